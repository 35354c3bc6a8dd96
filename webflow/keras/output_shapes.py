"""`layer.compute_output_shape(input_shape)` for a layer that does not write its own: as tf_keras's default, the
layer is run (built first if needed) on a stand-in input and the output's shape read. Unknown dims are run as 1
and again as 2; an output axis that changes with them is unknown (None) in the answer."""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor_shape import TensorShape
from webflow.keras import backend


def _is_shape(value: Any) -> bool:
    return isinstance(value, TensorShape) or (isinstance(value, (list, tuple)) and
                                              all(d is None or isinstance(d, int) for d in value))


def _zeros(shape: Any, unknown: int) -> Any:
    if _is_shape(shape):
        return backend.zeros([unknown if d is None else d for d in TensorShape(shape).as_list()])
    return [_zeros(item, unknown) for item in shape]


def _shapes(first: Any, second: Any) -> Any:
    if isinstance(first, (list, tuple)):
        return [_shapes(a, b) for a, b in zip(first, second)]
    return TensorShape([a if a == b else None for a, b in zip(first.shape.as_list(), second.shape.as_list())])


def by_running(layer: Any, input_shape: Any) -> Any:
    """The output shape(s) of `layer` on inputs of `input_shape` (TensorShape, or a list for several outputs)."""
    first = layer._call_eagerly(_zeros(input_shape, 1), training=False)
    second = layer._call_eagerly(_zeros(input_shape, 2), training=False)
    return _shapes(first, second)
