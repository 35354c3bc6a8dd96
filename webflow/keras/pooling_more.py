"""1-D pooling and the global poolings (channels_last):

    MaxPooling1D / AveragePooling1D   [b, steps, c] -> [b, ~steps / stride, c] (pool_size 2, strides = pool_size)
    GlobalMaxPooling1D / 2D           the max over the steps (over h and w): [b, c]; keepdims=True keeps 1s
    GlobalAveragePooling1D            the mean over the steps; with a mask, over the unmasked steps only
"""

from __future__ import annotations

from typing import Any

from webflow.keras.base_layer import Layer
from webflow.keras.conv_layers import _padding
from webflow.ops import manip_ops, pool_ops
from webflow.ops.math_ops import cast
from webflow.ops.reduction_ops import reduce_max
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum


def _one(value: Any) -> int:
    return int(value) if isinstance(value, int) else int(tuple(value)[0])


class _Pooling1D(Layer):
    def __init__(self, pool_size: Any = 2, strides: Any = None, padding: str = "valid",
                 data_format: str = "channels_last", **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "pool_size", (_one(pool_size),))
        object.__setattr__(self, "strides", (_one(strides if strides is not None else pool_size),))
        object.__setattr__(self, "padding", _padding(padding))
        object.__setattr__(self, "data_format", "channels_last")

    def _pool(self, inputs: Any, pool: Any) -> Any:
        """As tf_keras: a width-1 axis after the steps, a 2-D pool of window (pool_size, 1), squeezed out again."""
        outputs = pool(manip_ops.expand_dims(inputs, 2), ksize=[1, self.pool_size[0], 1, 1],
                       strides=[1, self.strides[0], 1, 1], padding=self.padding)
        return manip_ops.squeeze(outputs, [2])


class MaxPooling1D(_Pooling1D):
    def call(self, inputs: Any) -> Any:
        return self._pool(inputs, pool_ops.max_pool)


class AveragePooling1D(_Pooling1D):
    def call(self, inputs: Any) -> Any:
        return self._pool(inputs, pool_ops.avg_pool)


class _GlobalPooling(Layer):
    axes: list = [1]

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "keepdims", keepdims)
        object.__setattr__(self, "data_format", "channels_last")


class GlobalMaxPooling1D(_GlobalPooling):
    def call(self, inputs: Any) -> Any:
        return reduce_max(inputs, axis=self.axes, keepdims=self.keepdims)


class GlobalMaxPooling2D(GlobalMaxPooling1D):
    axes = [1, 2]


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps; masked steps (keras masks) are left out of the mean."""

    supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return reduce_mean(inputs, axis=1, keepdims=self.keepdims)
        weights = manip_ops.expand_dims(cast(mask, inputs.dtype), 2)   # [b, steps, 1]
        total = reduce_sum(inputs * weights, axis=1, keepdims=self.keepdims)
        return total / reduce_sum(weights, axis=1, keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None


MaxPool1D, AvgPool1D = MaxPooling1D, AveragePooling1D
GlobalMaxPool1D, GlobalMaxPool2D, GlobalAvgPool1D = GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalAveragePooling1D
