"""`tf.while_loop`: repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` holds.

Eager mode, a Python `while` on the tensors' values, so the tape differentiates whatever ran. Graph mode, cond
and body are traced into FuncGraphs (control_flow_ops.py's `_trace`) and one `While` op (ops/functional_ops.py)
runs them; its outputs get TF1's names through Identity ops (`while/Exit`). `maximum_iterations` adds a loop
variable counting the iterations, as TensorFlow does. The loop variables' shapes must stay within their
shape invariants (TensorFlow's messages).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.framework import context
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, functional_ops, tensor_array
from webflow.ops.control_flow_ops import (
    _align_captures,
    _assert_same_structure,
    _trace,
    cond_v2,
    flatten,
    pack_sequence_as,
)
from webflow.ops.registry import apply_op


def while_loop(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None, parallel_iterations: int = 10,
               back_prop: bool = True, swap_memory: bool = False, name: str | None = None,
               maximum_iterations: Any = None, return_same_structure: bool = False) -> Any:
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the final loop_vars.

    Graph mode: a While op over traced cond and body graphs; the loop variables' shapes must stay
    the same unless `shape_invariants` relaxes them. Eager mode: a Python while loop.
    TF1 (return_same_structure=False) returns the element of a one-element list instead of the list.
    """
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    single = not isinstance(loop_vars, (list, builtins.tuple))
    loop_vars = [loop_vars] if single else loop_vars
    if maximum_iterations is not None:
        result = _while_with_counter(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop,
                                     name, maximum_iterations)
    elif context.executing_eagerly():
        result = _eager_while(cond, body, loop_vars)
    else:
        result = _graph_while(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, name)
    if single or (not return_same_structure and len(result) == 1):
        return result[0]
    return result


def while_loop_v2(cond: Any, body: Any, loop_vars: Any, shape_invariants: Any = None, parallel_iterations: int = 10,
                  back_prop: bool = True, swap_memory: bool = False, maximum_iterations: Any = None,
                  name: str | None = None) -> Any:
    """TF2 `tf.while_loop`: returns loop_vars' structure as is."""
    return while_loop(cond, body, loop_vars, shape_invariants, parallel_iterations, back_prop, swap_memory, name,
                      maximum_iterations, return_same_structure=True)


def _call_body(body: Any, loop_vars: list) -> list:
    result = body(*loop_vars)
    if len(loop_vars) == 1 and not isinstance(result, (list, builtins.tuple)):
        result = [result]  # a one-variable body may return the variable itself
    _assert_same_structure(list(loop_vars), list(result))
    return list(result)


def _eager_while(cond: Any, body: Any, loop_vars: list) -> list:
    while bool(cond(*loop_vars)):
        loop_vars = _call_body(body, loop_vars)
    return list(loop_vars)


def _while_with_counter(cond: Any, body: Any, loop_vars: list, shape_invariants: Any, parallel_iterations: int,
                        back_prop: bool, name: Any, maximum_iterations: Any) -> list:
    """maximum_iterations, as TensorFlow does it: an extra loop variable counting the iterations."""
    from webflow.ops.convert import convert_to_tensor

    def counted_cond(i: Any, *rest: Any) -> Any:
        if context.executing_eagerly():
            return bool(i < maximum_iterations) and bool(cond(*rest))
        return apply_op("LogicalAnd", [apply_op("Less", [i, limit]), cond(*rest)]) \
            if "LogicalAnd" in _registered() else _and_via_cond(i, limit, cond, rest)

    def counted_body(i: Any, *rest: Any) -> list:
        return [i + 1] + _call_body(body, list(rest))

    if context.executing_eagerly():
        return _eager_while(counted_cond, counted_body, [0] + list(loop_vars))[1:]
    limit = convert_to_tensor(maximum_iterations, dtype="int32", name="maximum_iterations")
    invariants = None if shape_invariants is None else [TensorShape([])] + list(shape_invariants)
    start = convert_to_tensor(0, name="iteration_counter")
    return _graph_while(counted_cond, counted_body, [start] + list(loop_vars), invariants, parallel_iterations,
                        back_prop, name)[1:]


def _registered() -> dict:
    from webflow.ops.registry import OPS

    return OPS


def _and_via_cond(i: Any, limit: Any, cond: Any, rest: Any) -> Any:
    """i < limit and cond(*rest), evaluating cond only when the counter allows (no LogicalAnd needed)."""
    from webflow.ops.constants import constant

    return cond_v2(apply_op("Less", [i, limit]), lambda: cond(*rest), lambda: constant(False))


def _graph_while(cond: Any, body: Any, loop_vars: list, shape_invariants: Any, parallel_iterations: int,
                 back_prop: bool, name: Any) -> list:
    from webflow.ops.convert import convert_to_tensor

    graph = context.get_default_graph()
    # a TensorArray travels through the loop as its flow tensor, as in TensorFlow
    templates = flatten(loop_vars)
    loop_vars = pack_sequence_as(loop_vars, tensor_array.to_flows(templates))
    if shape_invariants is not None:  # an array's invariant (its element shape) is not its flow's: a scalar
        shape_invariants = tensor_array.flow_invariants(templates, flatten(shape_invariants))
    cond, body = _on_arrays(cond, templates, loop_vars), _on_arrays(body, templates, loop_vars, returns=True)
    with graph.name_scope(name or "while"):
        initial = [convert_to_tensor(v) for v in flatten(loop_vars)]
        invariants = _shape_invariants(initial, shape_invariants)
        specs = [(t.dtype.base_dtype, shape) for t, shape in zip(initial, invariants)]
        cond_graph, _ = _trace(cond, "while_cond", loop_vars, specs)
        body_graph, result = _trace(lambda *args: _call_body(body, list(args)), "while_body", loop_vars, specs)
        _check_loop_body(initial, invariants, body_graph.outputs)
        captured = _align_captures([cond_graph, body_graph], len(initial))
        outputs = apply_op("While", initial + captured, {
            "cond": cond_graph, "body": body_graph, "Tout": [t.dtype.base_dtype for t in initial],
            "output_shapes": invariants, "parallel_iterations": parallel_iterations, "back_prop": back_prop,
        }, name="While")
        exits = [array_ops.identity(t, name="Exit") for t in functional_ops.output_list(outputs)]
    return list(pack_sequence_as(list(loop_vars), tensor_array.from_flows(templates, exits)))


def _on_arrays(function: Any, templates: list, structure: Any, returns: bool = False) -> Any:
    """`function` taking (and, for a body, returning) flow tensors where the loop variables hold TensorArrays."""
    def wrapped(*args: Any) -> Any:
        arrays = pack_sequence_as(list(structure), tensor_array.from_flows(templates, flatten(list(args))))
        result = function(*arrays)
        if not returns:
            return result
        if len(arrays) == 1 and not isinstance(result, (list, builtins.tuple)):
            result = [result]
        return pack_sequence_as(list(result), tensor_array.to_flows(flatten(list(result))))
    return wrapped


def _shape_invariants(initial: list, shape_invariants: Any) -> list:
    if shape_invariants is None:
        return [t.shape for t in initial]
    invariants = [TensorShape(s) for s in flatten(shape_invariants)]
    if len(invariants) != len(initial):
        raise ValueError(f"shape_invariants has {len(invariants)} shapes for {len(initial)} loop variables")
    for tensor, shape in zip(initial, invariants):
        if not shape.is_compatible_with(tensor.shape):
            raise ValueError(f"The shape invariant specified for {tensor.name} is not compatible with the initial "
                             f"shape of the loop variable. It enters the loop with shape {tensor.shape}, but the "
                             f"specified shape invariant is {shape}.")
    return invariants


def _check_loop_body(initial: list, invariants: list, outputs: list) -> None:
    """Each loop variable keeps its dtype, and its shape stays within its invariant (TF's messages)."""
    if len(outputs) != len(initial):
        raise ValueError(f"body returned {len(outputs)} tensors for {len(initial)} loop variables")
    for tensor, invariant, output in zip(initial, invariants, outputs):
        if output.dtype.base_dtype != tensor.dtype.base_dtype:
            raise TypeError(f"Loop var {tensor.name} enters the loop with type {tensor.dtype.base_dtype.name}, "
                            f"but has type {output.dtype.base_dtype.name} after 1 iteration.")
        if not _shape_within(output.shape, invariant):
            raise ValueError(
                f"Input tensor '{tensor.name}' enters the loop with shape {invariant}, but has shape "
                f"{output.shape} after one iteration. To allow the shape to vary across iterations, use the "
                "`shape_invariants` argument of tf.while_loop to specify a less-specific shape.")


def _shape_within(shape: TensorShape, invariant: TensorShape) -> bool:
    """True when `shape` is at least as specific as `invariant` (every known invariant dim matches)."""
    if invariant.rank is None:
        return True
    if shape.rank != invariant.rank:
        return False
    return all(b is None or a == b for a, b in zip(shape.as_tuple(), invariant.as_tuple()))
