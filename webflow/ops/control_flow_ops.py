"""Control flow: no_op, group, tuple, with_dependencies (and, added by the control-flow work, cond,
case and while_loop as functional ops over traced sub-graphs).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.framework import context
from webflow.framework.tensor import Tensor
from webflow.ops import array_ops
from webflow.ops.registry import apply_op, register_op
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
    with graph.name_scope(name or "tuple") as scope:
        gate = group(*[t for t in tensors if t is not None], *(control_inputs or []), name="control_dependency")
        del scope
        return [None if t is None else with_dependencies([gate], t) for t in tensors]


def with_dependencies(dependencies: list, output_tensor: Any, name: str | None = None) -> Any:
    """output_tensor, but only after `dependencies` ran."""
    if context.executing_eagerly():
        return output_tensor
    graph = context.get_default_graph()
    with graph.name_scope(name or "control_dependency") as scope:
        with graph.control_dependencies(dependencies):
            return array_ops.identity(output_tensor, name=scope)
