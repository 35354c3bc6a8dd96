"""Control flow: no_op, group, tuple, with_dependencies, and cond and case (while_loop is in while_loop.py).

Eager mode, cond and while_loop are plain Python `if` / `while` on the tensor's value, so the tape
differentiates whatever ran. Graph mode, each Python callable is traced into a FuncGraph
(framework/func_graph.py) and one functional op runs it (ops/functional_ops.py): `If` runs only the
taken branch, `While` repeats the body. Their outputs get TF1's names through Identity ops
(`cond/Merge`, `while/Exit`), so code that fetches tensors by name works. The nest and tracing helpers
here serve both.
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.framework import context
from webflow.framework.tensor import Tensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, functional_ops  # functional_ops registers If, While and the call ops
from webflow.ops.registry import NotDifferentiable, apply_op, register_op
from webflow.ops.shapes import no_outputs


@register_op("NoOp", "NoOp", shape=no_outputs)
def no_op_kernel() -> None:
    """Does nothing; exists to carry control dependencies."""
    return None


def no_op(name: str | None = None) -> Any:
    return apply_op("NoOp", [], name=name)


def _as_op(item: Any) -> Any:
    if hasattr(item, "_as_control_input"):
        item = item._as_control_input()
    return item.op if isinstance(item, Tensor) else item


def group(*inputs: Any, name: str | None = None) -> Any:
    """An op that runs all `inputs` (ops or tensors); it has no outputs."""
    if context.executing_eagerly():
        return None
    flat = [item for entry in inputs for item in (entry if isinstance(entry, (list, builtins.tuple)) else [entry])]
    flat = [_as_op(item) for item in flat if item is not None]
    graph = context.get_default_graph()
    with graph.name_scope(name or "group_deps") as scope:
        with graph.control_dependencies(sorted(set(flat), key=lambda op: op._id)):
            return no_op(name=scope)


def tuple(tensors: list, name: str | None = None, control_inputs: list | None = None) -> list:  # noqa: A001
    """Identities of `tensors` that are only available once all of them (and control_inputs) are computed."""
    if context.executing_eagerly():
        return list(tensors)
    graph = context.get_default_graph()
    with graph.name_scope(name or "tuple"):
        gate = group(*[_gating_op(t) for t in tensors if t is not None], *(control_inputs or []))
        return [None if t is None else with_dependencies([gate], t) for t in tensors]


def _gating_op(tensor: Any) -> Any:
    return tensor.values.op if hasattr(tensor, "indices") else tensor


def with_dependencies(dependencies: list, output_tensor: Any, name: str | None = None) -> Any:
    """output_tensor, but only after `dependencies` ran."""
    if context.executing_eagerly():
        return output_tensor
    graph = context.get_default_graph()
    with graph.name_scope(name or "control_dependency") as scope:
        with graph.control_dependencies(dependencies):
            if hasattr(output_tensor, "indices"):  # IndexedSlices: gate the values, keep the indices
                from webflow.framework.indexed_slices import IndexedSlices

                values = array_ops.identity(output_tensor.values, name=scope)
                return IndexedSlices(values, output_tensor.indices, output_tensor.dense_shape)
            return array_ops.identity(output_tensor, name=scope)


# --- nests: the (possibly nested) structures that branches, loops and functions return ---------------
def flatten(structure: Any) -> list:
    """The leaves of a nest of lists, tuples, namedtuples and dicts (dict values in sorted key order)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, builtins.tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure: Any, leaves: list) -> Any:
    """`structure` with its leaves replaced, in order, by `leaves`."""
    iterator = iter(leaves)

    def pack(item: Any) -> Any:
        if isinstance(item, dict):
            return {key: pack(item[key]) for key in sorted(item)}
        if isinstance(item, (list, builtins.tuple)):
            packed = [pack(part) for part in item]
            if hasattr(item, "_fields"):
                return type(item)(*packed)
            return packed if isinstance(item, list) else builtins.tuple(packed)
        return next(iterator)

    return pack(structure)


def _skeleton(structure: Any) -> Any:
    """The shape of a nest with every leaf replaced by '.', for comparing structures."""
    if isinstance(structure, dict):
        return {key: _skeleton(value) for key, value in structure.items()}
    if isinstance(structure, (list, builtins.tuple)):
        return builtins.tuple(_skeleton(item) for item in structure)
    return "."


def _assert_same_structure(first: Any, second: Any) -> None:
    if _skeleton(first) != _skeleton(second):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         f"First structure: {first}\n\nSecond structure: {second}")


# --- tracing a Python callable into a FuncGraph ------------------------------------------------------
def _trace(function: Any, name: str, args: list | None = None, placeholders: list | None = None) -> tuple:
    """(FuncGraph, structure returned) for `function(*args)` traced into a new graph.

    `placeholders` are (dtype, shape) for the leaves of `args`; the graph's outputs are the returned
    leaves as tensors of the new graph (Python values become Consts, outer tensors are captured).
    """
    from webflow.framework.func_graph import FuncGraph
    from webflow.ops.convert import convert_to_tensor

    outer = context.get_default_graph()
    graph = FuncGraph(name, outer)
    # TF1 builds cond/while bodies inside the outer graph, so their random ops take op seeds from its
    # counter (framework/random_seed.py); a body traced inside a wf.function keeps its own counter (TF2).
    graph.op_seed_graph = getattr(outer, "op_seed_graph", None) if isinstance(outer, FuncGraph) else outer
    with graph.as_default():
        inputs = [graph.add_placeholder(dtype, shape, "loop_var") for dtype, shape in (placeholders or [])]
        graph.inputs = list(inputs)
        result = function(*pack_sequence_as(args, inputs)) if args is not None else function()
        outputs = []
        for leaf in flatten(result):
            if leaf is None:
                continue
            if _is_operation(leaf):
                graph.stateful_ops.append(leaf)  # an op returned by a branch: run it when the branch runs
                continue
            outputs.append(graph.capture(convert_to_tensor(leaf)))
        graph.outputs = outputs
    return graph, result


def _is_operation(value: Any) -> bool:
    return hasattr(value, "node_def") and hasattr(value, "outputs") and not isinstance(value, Tensor)


def _align_captures(graphs: list, explicit: int) -> list:
    """Gives every graph the same inputs: its `explicit` ones, then one per tensor captured by any of them."""
    captured: dict[int, Any] = {}
    for graph in graphs:
        for outer, _ in graph.captures:
            captured.setdefault(outer._uid, outer)
    for graph in graphs:
        graph.inputs = graph.inputs[:explicit] + [graph.capture(outer) for outer in captured.values()]
    return list(captured.values())


def _relaxed(first: TensorShape, second: TensorShape) -> TensorShape:
    """The most specific shape both fit: dims that agree are kept, others become unknown."""
    if first.rank is None or second.rank is None or first.rank != second.rank:
        return TensorShape(None)
    return TensorShape([a if a == b else None for a, b in zip(first.as_tuple(), second.as_tuple())])


def _leaves_as_results(structure: Any, tensors: list, operation: Any) -> Any:
    """The structure a branch or loop returned, its tensor leaves replaced by the op's renamed outputs."""
    iterator = iter(tensors)
    leaves = [None if leaf is None else operation if _is_operation(leaf) else next(iterator)
              for leaf in flatten(structure)]
    return pack_sequence_as(structure, leaves)


# --- cond ----------------------------------------------------------------------------------------------
def cond(pred: Any, true_fn: Any = None, false_fn: Any = None, strict: bool = False, name: str | None = None,
         fn1: Any = None, fn2: Any = None) -> Any:
    """`true_fn()` if `pred` else `false_fn()`. Graph mode: an If op running only the taken branch.

    TF1 (strict=False) returns the element of a one-element list instead of the list.
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if context.executing_eagerly():
        result = true_fn() if bool(pred) else false_fn()  # plain Python: the tape sees the ops that ran
        return result if strict else _unpack_singleton(result)
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    from webflow.ops.convert import convert_to_tensor

    graph = context.get_default_graph()
    with graph.name_scope(name or "cond"):
        pred = convert_to_tensor(pred)
        if pred.dtype.base_dtype.name != "bool" or pred.shape.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {pred.shape.rank} for 'cond' (pred {pred.name})"
                             if pred.dtype.base_dtype.name == "bool" else
                             f"pred must be a bool tensor, got {pred.dtype.base_dtype.name} ({pred.name})")
        templates: list = []  # a branch's TensorArrays leave it as their flows (tensor_array.to_flows)
        then_graph, then_result = _trace(_returning_flows(true_fn, templates), "cond_true")
        else_graph, else_result = _trace(_returning_flows(false_fn, templates), "cond_false")
        _check_branches(then_graph, then_result, else_graph, else_result)
        inputs = _align_captures([then_graph, else_graph], 0)
        outputs = apply_op("If", [pred] + inputs, {
            "then_branch": then_graph, "else_branch": else_graph,
            "Tout": [t.dtype.base_dtype for t in then_graph.outputs],
            "output_shapes": [_relaxed(a.shape, b.shape) for a, b in zip(then_graph.outputs, else_graph.outputs)],
        }, name="If")
        tensors = functional_ops.output_list(outputs)
        operation = tensors[0].op if tensors else outputs  # branches with no tensors: the If op itself
        merged = [array_ops.identity(t, name="Merge") for t in tensors]
    result = _leaves_as_results(then_result, merged, operation)
    if templates and any(t is not None for t in templates[0]):
        from webflow.ops import tensor_array

        result = pack_sequence_as(result, tensor_array.from_flows(templates[0], flatten(result)))
    return result if strict else _unpack_singleton(result)


def _returning_flows(function: Any, templates: list) -> Any:
    """`function` with each TensorArray it returns replaced by the array's flow tensor (as TensorFlow's cond
    passes arrays); the first branch's arrays are kept in `templates` to rebuild the result."""
    from webflow.ops import tensor_array

    def wrapped() -> Any:
        result = function()
        leaves = flatten(result)
        if not any(isinstance(leaf, tensor_array.TensorArray) for leaf in leaves):
            templates.append([None] * len(leaves))
            return result
        templates.append(leaves)
        return pack_sequence_as(result, tensor_array.to_flows(leaves))
    return wrapped


def _unpack_singleton(result: Any) -> Any:
    if isinstance(result, (list, builtins.tuple)) and len(result) == 1 and not hasattr(result, "_fields"):
        return result[0]
    return result


def _check_branches(then_graph: Any, then_result: Any, else_graph: Any, else_result: Any) -> None:
    _assert_same_structure(then_result, else_result)
    for a, b in zip(then_graph.outputs, else_graph.outputs):
        if a.dtype.base_dtype != b.dtype.base_dtype:
            raise ValueError("Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                             f"{a.dtype.base_dtype.name} from 'true_fn' and {b.dtype.base_dtype.name} from 'false_fn'.")


def cond_v2(pred: Any, true_fn: Any = None, false_fn: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.cond(pred, true_fn, false_fn, name)`: returns the branches' structure as is."""
    return cond(pred, true_fn, false_fn, strict=True, name=name)


# --- case ----------------------------------------------------------------------------------------------
def case(pred_fn_pairs: Any, default: Any = None, exclusive: bool = False, strict: bool = False,
         name: str = "case") -> Any:
    """The fn of the first pair whose pred holds, else `default()`: a chain of conds.

    Without a default, the last pair's fn is the default. `exclusive` is not checked at run time.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    for pair in pairs:
        if not isinstance(pair, builtins.tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]} must be callable.")
    if default is None:
        if not pairs:
            raise ValueError("pred_fn_pairs must not be empty when no default is given")
        pairs, default = pairs[:-1], pairs[-1][1]
    if context.executing_eagerly():
        for pred, function in pairs:
            if bool(pred):
                return function()
        return default()
    graph = context.get_default_graph()
    with graph.name_scope(name):
        branch = default
        for pred, function in reversed(pairs[1:]):
            branch = _case_branch(pred, function, branch, strict)
        if not pairs:
            return branch()
        return cond(pairs[0][0], pairs[0][1], branch, strict=strict)


def _case_branch(pred: Any, function: Any, otherwise: Any, strict: bool) -> Any:
    return lambda: cond(pred, function, otherwise, strict=strict)


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("NoOp",):
    NotDifferentiable(_op_type)
