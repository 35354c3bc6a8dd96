"""`tf.layers.MaxPooling2D`, `AveragePooling2D` and their functions `max_pooling2d`, `average_pooling2d`.

Each output cell is the max (or mean of the in-bounds cells) of one `pool_size` window, windows moving
by `strides`; one MaxPool / AvgPool node ("max_pooling2d/MaxPool"), no variables.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor_shape import TensorShape
from webflow.layers import utils
from webflow.layers.base import InputSpec, Layer
from webflow.layers.utils import normalize_tuple
from webflow.ops import pool_ops


def _pooled_length(length: int | None, window: int, padding: str, stride: int) -> int | None:
    if length is None:
        return None
    length = length if padding == "same" else length - window + 1
    return (length + stride - 1) // stride


class _Pooling(Layer):
    """Shared by the 1-D and 2-D pooling layers: argument checks, window/stride tuples, the static output shape."""

    _rank = 2  # how many spatial axes the window slides over
    _pool_function: Any = None

    def __init__(self, pool_size: Any, strides: Any, padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs: Any):
        super().__init__(name=name, **kwargs)
        if strides is None:
            strides = pool_size
        self.pool_size = normalize_tuple(pool_size, self._rank, "pool_size")
        self.strides = normalize_tuple(strides, self._rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)  # None means "channels_last"
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        first = 1 if self.data_format == "channels_last" else 2  # the first spatial axis
        for i in range(self._rank):
            dims[first + i] = _pooled_length(dims[first + i], self.pool_size[i], self.padding, self.strides[i])
        return TensorShape(dims)


class _Pooling2D(_Pooling):
    """A MaxPool / AvgPool node on [batch, height, width, channels] (or channels first)."""

    def call(self, inputs: Any) -> Any:
        if self.data_format == "channels_last":
            window, strides = (1, *self.pool_size, 1), (1, *self.strides, 1)
        else:
            window, strides = (1, 1, *self.pool_size), (1, 1, *self.strides)
        return type(self)._pool_function(inputs, ksize=window, strides=strides, padding=self.padding.upper(),
                                         data_format=utils.tf_data_format(self.data_format))


class MaxPooling2D(_Pooling2D):
    """Max pooling over 2-D windows."""

    _pool_function = staticmethod(pool_ops.max_pool)


class AveragePooling2D(_Pooling2D):
    """Average pooling over 2-D windows ("same" padding averages only the cells inside the input)."""

    _pool_function = staticmethod(pool_ops.avg_pool)


def max_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Any:
    """`tf.layers.max_pooling2d`."""
    return MaxPooling2D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                        name=name)(inputs)


def average_pooling2d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Any:
    """`tf.layers.average_pooling2d`."""
    return AveragePooling2D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                            name=name)(inputs)



__all__ = ["AveragePooling2D", "MaxPooling2D", "average_pooling2d", "max_pooling2d"]
