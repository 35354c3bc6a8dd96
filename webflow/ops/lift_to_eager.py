"""Lifting a variable's initial value out of a function being traced: its ops run again, eagerly.

    @wf.function
    def f(x):
        if state.v is None:
            state.v = wf.Variable(wf.zeros([3]) + 1.0)   # `wf.zeros([3]) + 1.0` is a tensor of the trace

A variable outlives the trace that makes it, so its first value cannot come from the traced graph: as
TensorFlow lifts the initializer's ops out of the function (lift_to_graph), the ops that compute the initial
value are run again here, one by one, in the outer (eager) context. Captured eager tensors stand for their
placeholders; a value computed from the function's own inputs cannot be lifted.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor import EagerTensor, Tensor
from webflow.ops.registry import apply_op


def lift_to_eager(tensor: Tensor) -> EagerTensor:
    """The value of `tensor` (a tensor of a function being traced), computed eagerly."""
    graph = tensor.graph
    captured = {inner._uid: outer for outer, inner in getattr(graph, "captures", [])}
    values: dict[int, Any] = {}
    for op in _ancestors(tensor.op):
        if op.type == "Placeholder":
            outer = captured.get(op.outputs[0]._uid)
            if not isinstance(outer, EagerTensor):
                raise ValueError(f"A variable's initial value is computed from {op.name}, an input of function "
                                 f"{getattr(graph, 'name', '')}, so it cannot be lifted out of the function: create "
                                 "the variable outside the function, or from values known before the call.")
            values[op.outputs[0]._uid] = outer
            continue
        result = apply_op(op.type, [values[t._uid] for t in op.inputs], dict(op._attrs))
        outputs = result if isinstance(result, list) else [result]
        for output, value in zip(op.outputs, outputs):
            values[output._uid] = value
    return values[tensor._uid]


def _ancestors(op: Any) -> list:
    """`op` and the ops it reads from (data inputs only), each after its inputs."""
    order: list = []
    seen: set = set()
    stack = [(op, False)]
    while stack:
        current, inputs_done = stack.pop()
        if inputs_done:
            order.append(current)
            continue
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.append((current, True))
        stack.extend((t.op, False) for t in current.inputs if id(t.op) not in seen)
    return order


__all__ = ["lift_to_eager"]
