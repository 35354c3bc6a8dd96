"""The global step: one int64 scalar variable "global_step" per graph, in the GLOBAL_STEP collection."""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.ops import array_ops
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.state_ops import RefVariable, VariableTypes

GLOBAL_STEP_NAME = "global_step"


def get_global_step(graph: Any = None) -> Any:
    """The graph's global step variable (GLOBAL_STEP collection, else the tensor "global_step:0"), or None."""
    graph = graph or context.get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) > 1:
        return None  # TensorFlow logs "Multiple tensors in global_step collection." and gives up
    if found:
        step = found[0]
    else:
        try:
            step = graph.get_tensor_by_name(GLOBAL_STEP_NAME + ":0")
        except (KeyError, ValueError):
            return None
    assert_global_step(step)
    return step


def assert_global_step(global_step_tensor: Any) -> None:
    """Raises TypeError unless `global_step_tensor` is an integer scalar Variable or Tensor."""
    if not (isinstance(global_step_tensor, VariableTypes) or hasattr(global_step_tensor, "op")):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}')
    shape = global_step_tensor.shape
    if shape.rank != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def create_global_step(graph: Any = None) -> Any:
    """Creates "global_step" (int64, 0, not trainable, in GLOBAL_VARIABLES and GLOBAL_STEP)."""
    graph = graph or context.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    collections = [GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP]
    if context.executing_eagerly():
        step = ResourceVariable(0, dtype=dtypes.int64, trainable=False, name=GLOBAL_STEP_NAME)
        graph.add_to_collections(collections, step)
        return step
    with graph.as_default(), graph.control_dependencies(None), graph.name_scope(""):
        return RefVariable(lambda: array_ops.zeros([], dtypes.int64, name="zeros"), trainable=False,
                           collections=collections, name=GLOBAL_STEP_NAME, dtype=dtypes.int64)


def get_or_create_global_step(graph: Any = None) -> Any:
    graph = graph or context.get_default_graph()
    step = get_global_step(graph)
    return step if step is not None else create_global_step(graph)


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The global step's current value, as a Python int."""
    if context.executing_eagerly():
        return int(global_step_tensor.numpy())
    return int(sess.run(global_step_tensor))


__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step", "assert_global_step",
           "global_step"]
