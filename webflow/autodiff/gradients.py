"""`tf.gradients`: adds the backward pass to a graph (reverse-mode autodiff over Operations).

1. Find the ops between `xs` and `ys` (forward-reachable from xs and backward-reachable from ys).
2. Count, for each op, how many consumers inside that set still owe it a gradient.
3. Seed each y with `grad_ys` (default: ones), then process ops whose consumers are all done:
   sum the gradients reaching each output, call the op's gradient rule inside
   `gradients/<op name>_grad`, and hand the results to its inputs.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from webflow.autodiff.aggregate import aggregate
from webflow.framework import context
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.tensor import Tensor
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import gradient_function, op_scope


class UnconnectedGradients:
    NONE = "none"
    ZERO = "zero"


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_graph_tensor(value: Any, as_ref: bool = True) -> Tensor:
    if hasattr(value, "_gradient_source"):
        return value._gradient_source()  # a Variable: differentiate w.r.t. the variable itself
    return convert_to_tensor(value)


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients", colocate_gradients_with_ops: bool = False,
              gate_gradients: bool = False, aggregation_method: Any = None, stop_gradients: Any = None,
              unconnected_gradients: str = UnconnectedGradients.NONE) -> list:
    """Symbolic d(sum of ys)/d(x) for each x in xs; None for an x that ys do not depend on."""
    if context.executing_eagerly():
        raise RuntimeError("tf.gradients is not supported when eager execution is enabled. "
                           "Use tf.GradientTape instead.")
    ys = [_as_graph_tensor(y) for y in _as_list(ys)]
    xs = [_as_graph_tensor(x) for x in _as_list(xs)]
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    stop_ops = {_as_graph_tensor(t).op._id for t in _as_list(stop_gradients)} if stop_gradients is not None else set()
    graph = ys[0].graph
    with graph.as_default(), graph.name_scope(name):
        grads = _backpropagate(graph, ys, xs, grad_ys, stop_ops, gate_gradients)
        results = [aggregate(grads.get(x._uid, [])) for x in xs]
        if unconnected_gradients == UnconnectedGradients.ZERO:
            from webflow.ops import array_ops

            results = [array_ops.zeros_like(x) if g is None else g for g, x in zip(results, xs)]
    return results


def _between_ops(graph: Any, ys: list, xs: list, stop_ops: set) -> dict:
    """Ops on some path from an x to a y: {op id: op}. Going forward, a path continues only through outputs of a
    trainable dtype (TensorFlow's _MarkReachedOps): a Shape's int32 output ends it, so ones_like(loss) and what
    reads it (a loss's num_present) get no gradient ops."""
    consumers: dict[int, list] = {}
    for op in graph.get_operations():
        for tensor in op.inputs:
            consumers.setdefault(tensor._uid, []).append(op)
    reached: dict[int, Any] = {}
    queue = deque(x.op for x in xs)
    while queue:
        op = queue.popleft()
        if op._id in reached:
            continue
        reached[op._id] = op
        for output in op.outputs:
            if _differentiable(output):
                queue.extend(consumers.get(output._uid, []))
    between: dict[int, Any] = {}
    queue = deque(y.op for y in ys)
    while queue:
        op = queue.popleft()
        if op._id in between or op._id not in reached:
            continue
        between[op._id] = op
        if op._id not in stop_ops:
            queue.extend(t.op for t in op.inputs)
    return between


def _backpropagate(graph: Any, ys: list, xs: list, grad_ys: list, stop_ops: set, gate: bool) -> dict:
    between = _between_ops(graph, ys, xs, stop_ops)
    pending = {op_id: 0 for op_id in between}
    for op in between.values():
        for tensor in op.inputs:
            if tensor.op._id in between:
                pending[tensor.op._id] += 1
    grads: dict[int, list] = {}
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys)):
        grads.setdefault(y._uid, []).append(_initial_grad(y, grad_y, i))
    ready = deque(op for op in dict.fromkeys(y.op for y in ys) if pending.get(op._id, 0) == 0)
    done: set = set()
    while ready:
        op = ready.popleft()
        if op._id in done:
            continue
        done.add(op._id)
        feeds_between = any(t.op._id in between for t in op.inputs)
        if op._id in between and op._id not in stop_ops and feeds_between:
            _apply_gradient_rule(op, grads, gate)
        for tensor in op.inputs:
            producer = tensor.op
            if producer._id in pending:
                pending[producer._id] -= 1
                if pending[producer._id] == 0:
                    ready.append(producer)
    return grads


def _initial_grad(y: Tensor, grad_y: Any, index: int) -> Any:
    from webflow.ops import array_ops
    from webflow.ops.constants import constant

    if grad_y is not None:
        # TensorFlow's names: a Python value becomes gradients/grad_y_0, then every given seed passes through an
        # Identity gradients/grad_ys_0 (so the gradient graph has its own node for it, even for a fed placeholder)
        grad_y = convert_to_tensor(grad_y, dtype=y.dtype.base_dtype, name=f"grad_y_{index}")
        if not grad_y.shape.is_compatible_with(y.shape):
            raise ValueError(f"Incompatible shapes between op input and calculated input gradient. "
                             f"Forward operation: {y.op.name}. Input index: {index}. "
                             f"Original input shape: {y.shape}. Calculated input gradient shape: {grad_y.shape}")
        return array_ops.identity(grad_y, name=f"grad_ys_{index}")
    if not (y.dtype.is_floating or y.dtype.base_dtype.is_complex):
        raise TypeError(f"Gradients of non-floating tensors are not supported ({y.name} is {y.dtype.base_dtype.name})")
    # TensorFlow's nodes and names: gradients/Shape (a Const when the shape is static), gradients/grad_ys_0/Const
    # and the Fill gradients/grad_ys_0 (array_ops.ones(shape(y), name="grad_ys_0"))
    shape = array_ops.shape(y)
    with op_scope(f"grad_ys_{index}") as scope:
        return array_ops.fill(shape, constant(1, dtype=y.dtype.base_dtype), name=scope or None)


def _apply_gradient_rule(op: Any, grads: dict, gate: bool) -> None:
    out_grads = [aggregate(grads.get(t._uid, [])) for t in op.outputs]
    if all(g is None for g in out_grads):
        return
    rule = gradient_function(op)
    if rule is None:
        return
    graph = op.graph
    if any(g is None for g in out_grads):
        # as TensorFlow (control_flow_state.ZerosLike): a ZerosLike op "zeros_like" in the gradients scope, for the
        # trainable outputs nothing reached (every output of a function call); the rule gets None for the others
        from webflow.ops import array_ops

        every = op.type in _FUNCTION_CALLS
        out_grads = [array_ops.zeros_like(t, optimize=False) if g is None and (every or _differentiable(t)) else g
                     for g, t in zip(out_grads, op.outputs)]
    with graph.name_scope(op.name + "_grad"):
        in_grads = rule(op, *out_grads)
        in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
        if gate and sum(g is not None for g in in_grads) > 1:
            # gate_gradients: all of this op's input gradients exist before any consumer (e.g. an
            # optimizer's update of a variable another gradient still reads) can use one of them
            from webflow.ops.control_flow_ops import tuple as gated_tuple

            in_grads = gated_tuple(in_grads)
    if len(in_grads) != len(op.inputs):
        raise ValueError(f"Num gradients {len(in_grads)} generated for op {op.name} ({op.type}) "
                         f"do not match num inputs {len(op.inputs)}")
    for tensor, grad in zip(op.inputs, in_grads):
        if grad is None or not _differentiable(tensor):
            continue
        if not isinstance(grad, IndexedSlices) and isinstance(grad, Tensor):
            _check_grad_shape(op, tensor, grad)
        grads.setdefault(tensor._uid, []).append(grad)


# ops whose gradient is a function's gradient graph: it takes a gradient for every output (zeros where none arrived)
_FUNCTION_CALLS = ("If", "StatelessIf", "While", "StatelessWhile", "PartitionedCall", "StatefulPartitionedCall")


def _differentiable(tensor: Tensor) -> bool:
    """A trainable dtype (TensorFlow's backprop_util.IsTrainable): floats, complex, resource and variant."""
    dtype = tensor.dtype.base_dtype
    return dtype.is_floating or dtype.is_complex or dtype.name in ("resource", "variant")


def _check_grad_shape(op: Any, tensor: Tensor, grad: Tensor) -> None:
    if tensor.dtype.base_dtype.name in ("resource", "variant"):
        return
    if not grad.shape.is_compatible_with(tensor.shape):
        raise ValueError(f"Incompatible shapes between op input and calculated input gradient. Forward operation: "
                         f"{op.name}. Input index: {_index_of(op.inputs, tensor)}. "
                         f"Original input shape: {tensor.shape}. Calculated input gradient shape: {grad.shape}")


def _index_of(tensors: Any, tensor: Tensor) -> int:
    return next(i for i, t in enumerate(tensors) if t is tensor)
