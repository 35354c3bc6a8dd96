"""Conv2D and the 2-D pooling layers (channels_last, as tf_keras's default image_data_format)."""

from __future__ import annotations

from typing import Any

from webflow.keras import activations, initializers
from webflow.keras.base_layer import Layer
from webflow.keras.weight_options import set_weight_options
from webflow.ops import conv_ops, pool_ops
from webflow.ops.nn_ops import bias_add
from webflow.ops.sum_mean_ops import reduce_mean


def _pair(value: Any) -> tuple:
    return (int(value), int(value)) if isinstance(value, int) else tuple(int(v) for v in value)


def _padding(padding: str) -> str:
    if padding.lower() not in ("valid", "same"):
        raise ValueError(f"The `padding` argument must be a list/tuple or one of \"valid\", \"same\" "
                         f"(or \"causal\", only for `Conv1D). Received: {padding}")
    return padding.upper()


class Conv2D(Layer):
    """2-D convolution: kernel [kh, kw, in channels, filters] glorot_uniform, bias [filters] zeros."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: Any = None, dilation_rate: Any = (1, 1), groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        set_weight_options(self, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint)
        for key, value in (("filters", int(filters)), ("kernel_size", _pair(kernel_size)),
                           ("strides", _pair(strides)), ("padding", _padding(padding)),
                           ("dilation_rate", _pair(dilation_rate)), ("activation", activations.get(activation)),
                           ("use_bias", use_bias), ("kernel_initializer", initializers.get(kernel_initializer)),
                           ("bias_initializer", initializers.get(bias_initializer))):
            object.__setattr__(self, key, value)

    def build(self, input_shape: Any) -> None:
        channels = int(input_shape[-1])
        object.__setattr__(self, "_expected_last_dim", channels)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, channels, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.filters], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        outputs = conv_ops.conv2d(inputs, self.kernel, strides=[1, *self.strides, 1], padding=self.padding,
                                  dilations=[1, *self.dilation_rate, 1])
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        return self.activation(outputs)


class _Pooling2D(Layer):
    def __init__(self, pool_size: Any = (2, 2), strides: Any = None, padding: str = "valid", data_format: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "pool_size", _pair(pool_size))
        object.__setattr__(self, "strides", _pair(strides) if strides is not None else _pair(pool_size))
        object.__setattr__(self, "padding", _padding(padding))

    def _pool(self, inputs: Any, pool: Any) -> Any:
        return pool(inputs, ksize=[1, *self.pool_size, 1], strides=[1, *self.strides, 1], padding=self.padding)


class MaxPooling2D(_Pooling2D):
    def call(self, inputs: Any) -> Any:
        return self._pool(inputs, pool_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    def call(self, inputs: Any) -> Any:
        return self._pool(inputs, pool_ops.avg_pool2d)


class GlobalAveragePooling2D(Layer):
    """[batch, h, w, c] -> [batch, c] (the mean over h and w); `keepdims=True` keeps [batch, 1, 1, c]."""

    def __init__(self, data_format: Any = None, keepdims: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "keepdims", keepdims)

    def call(self, inputs: Any) -> Any:
        return reduce_mean(inputs, axis=[1, 2], keepdims=self.keepdims)


MaxPool2D, AvgPool2D, GlobalAvgPool2D = MaxPooling2D, AveragePooling2D, GlobalAveragePooling2D
