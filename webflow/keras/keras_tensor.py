"""Symbolic tensors of the functional API: `keras.Input(shape)` and what a layer returns when called on one.

A `KerasTensor` holds a shape and dtype and where it came from (its layer, the node = one call of that layer, and
which output). Calling a layer on KerasTensors records a `Node`; a functional Model replays its nodes in order on
real tensors. The output shape is found by running the layer once on zeros (unknown dims taken as 1, the batch
dim given back as None), which also builds the layer's weights, as tf_keras builds them at that moment.
"""

from __future__ import annotations

import itertools
from typing import Any

from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape
from webflow.keras import backend

_NODE_IDS = itertools.count()


class KerasTensor:
    """A symbolic tensor: `shape` (batch dim None), `dtype`, `name`, and the node that made it."""

    def __init__(self, shape: Any, dtype: Any, name: str, node: Any = None, index: int = 0):
        self.shape = TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name
        self.node = node
        self.index = index

    def __repr__(self) -> str:
        layer = self.node.layer.name if self.node is not None else "?"
        return (f"<KerasTensor: shape={tuple(self.shape.as_list())} dtype={self.dtype.name} "
                f"(created by layer '{layer}')>")


class Node:
    """One call of `layer` on symbolic inputs: what to replay, and the KerasTensors it gave."""

    def __init__(self, layer: Any, inputs: Any, args: tuple, kwargs: dict):
        self.id = next(_NODE_IDS)
        self.layer = layer
        self.inputs = inputs
        self.args = args
        self.kwargs = kwargs
        self.outputs: Any = None
        self.index = len(layer._inbound_nodes)   # the `[1]` of tf_keras's `dense[1][0]`
        layer._inbound_nodes.append(self)

    def input_tensors(self) -> list:
        return flatten(self.inputs)


def flatten(structure: Any) -> list:
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    return [structure]


def map_structure(fn: Any, structure: Any) -> Any:
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_structure(fn, item) for item in structure)
    if isinstance(structure, dict):
        return {key: map_structure(fn, value) for key, value in structure.items()}
    return fn(structure)


def any_symbolic(inputs: Any) -> bool:
    return any(isinstance(leaf, KerasTensor) for leaf in flatten(inputs))


def _concrete_zeros(tensor: KerasTensor, unknown: int = 1) -> Any:
    dims = [unknown if dim is None else dim for dim in tensor.shape.as_list()]
    return backend.zeros(dims, dtype=tensor.dtype)


def _varying_dims(layer: Any, inputs: Any, args: tuple, call_kwargs: dict, concrete: Any) -> list:
    """Per output, the axes that follow an unknown non-batch input dim (a None time axis stays None): found by
    running the layer again with those dims 2 instead of 1."""
    if not any(None in leaf.shape.as_list()[1:] for leaf in flatten(inputs) if isinstance(leaf, KerasTensor)):
        return [set() for _ in flatten(concrete)]
    other = layer._call_eagerly(map_structure(lambda t: _concrete_zeros(t, 2), inputs), *args, training=False,
                                **call_kwargs)
    return [{axis for axis, (a, b) in enumerate(zip(one.shape.as_list(), two.shape.as_list())) if a != b}
            for one, two in zip(_in_order(concrete), _in_order(other))]


def _in_order(structure: Any) -> list:
    """The leaves in map_structure's order."""
    found: list = []
    map_structure(found.append, structure)
    return found


def call_symbolically(layer: Any, inputs: Any, args: tuple, kwargs: dict) -> Any:
    """Records a node of `layer` on KerasTensors; returns its symbolic outputs."""
    check_input_shape(layer, inputs)
    node = Node(layer, inputs, args, kwargs)
    call_kwargs = {key: value for key, value in kwargs.items() if key != "training"}
    concrete = layer._call_eagerly(map_structure(_concrete_zeros, inputs), *args, training=False, **call_kwargs)
    varying = _varying_dims(layer, inputs, args, call_kwargs, concrete)
    counter = itertools.count()

    def symbolic(value: Any) -> KerasTensor:
        dims = value.shape.as_list()
        index = next(counter)
        dims = [None if axis in varying[index] else dim for axis, dim in enumerate(dims)]
        if dims:
            dims[0] = None
        return KerasTensor(dims, value.dtype, f"{layer.name}/{index}", node, index)

    node.outputs = map_structure(symbolic, concrete)
    return node.outputs


def check_input_shape(layer: Any, inputs: Any) -> None:
    """tf_keras's InputSpec check on the last axis, for a built layer that recorded its input's last dim."""
    expected = getattr(layer, "_expected_last_dim", None)
    if expected is None or not isinstance(inputs, KerasTensor):
        return
    dims = inputs.shape.as_list()
    if dims and dims[-1] is not None and dims[-1] != expected:
        raise ValueError(f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected axis -1 of '
                         f"input shape to have value {expected}, but received input with shape "
                         f"{tuple(dims)}")
