"""`tf.layers.MaxPooling1D`, `AveragePooling1D` and their functions `max_pooling1d`, `average_pooling1d`:
pooling over the steps of [batch, steps, channels] (a 2-D pool of a width-1 image, as Keras does)."""

from __future__ import annotations

from typing import Any

from webflow.layers.pooling import _Pooling
from webflow.ops import manip_ops, pool_ops


class _Pooling1D(_Pooling):
    """Pooling over the steps of [batch, steps, channels] (or channels first)."""

    _rank = 1

    def call(self, inputs: Any) -> Any:
        """As Keras: a width-1 axis after the steps, a 2-D pool of window (pool_size, 1), the axis squeezed out."""
        axis = 2 if self.data_format == "channels_last" else 3
        window = (1, self.pool_size[0], 1, 1) if axis == 2 else (1, 1, self.pool_size[0], 1)
        strides = (1, self.strides[0], 1, 1) if axis == 2 else (1, 1, self.strides[0], 1)
        outputs = type(self)._pool_function(manip_ops.expand_dims(inputs, axis), ksize=window, strides=strides,
                                            padding=self.padding.upper(),
                                            data_format="NHWC" if axis == 2 else "NCHW")
        return manip_ops.squeeze(outputs, [axis])


class MaxPooling1D(_Pooling1D):
    _pool_function = staticmethod(pool_ops.max_pool)


class AveragePooling1D(_Pooling1D):
    _pool_function = staticmethod(pool_ops.avg_pool)


def max_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                  data_format: str = "channels_last", name: str | None = None) -> Any:
    """`tf.layers.max_pooling1d`."""
    return MaxPooling1D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                        name=name)(inputs)


def average_pooling1d(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
                      data_format: str = "channels_last", name: str | None = None) -> Any:
    """`tf.layers.average_pooling1d`."""
    return AveragePooling1D(pool_size=pool_size, strides=strides, padding=padding, data_format=data_format,
                            name=name)(inputs)


MaxPool1D, AvgPool1D = MaxPooling1D, AveragePooling1D

__all__ = ["MaxPooling1D", "AveragePooling1D", "max_pooling1d", "average_pooling1d"]
