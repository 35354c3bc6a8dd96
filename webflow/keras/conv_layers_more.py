"""Conv1D, Conv2DTranspose, DepthwiseConv2D and SeparableConv2D (channels_last), with tf_keras's weights:

    Conv1D            kernel [k, in, filters], bias [filters]; padding "causal" pads (k - 1) * dilation on the left
    Conv2DTranspose   kernel [kh, kw, filters, in] (TensorFlow's Conv2DBackpropInput filter), bias [filters]
    DepthwiseConv2D   depthwise_kernel [kh, kw, in, multiplier], bias [in * multiplier]
    SeparableConv2D   depthwise_kernel [kh, kw, in, multiplier], pointwise_kernel [1, 1, in * multiplier, filters]

A depthwise convolution (output channel c * multiplier + m reads input channel c only) runs as one Conv2D with a
block-diagonal filter (nn/depthwise_conv.py).
"""

from __future__ import annotations

from typing import Any

from webflow.keras import activations, backend, constraints, initializers, regularizers
from webflow.keras.base_layer import Layer
from webflow.keras.conv_layers import _padding, _pair
from webflow.keras.weight_options import set_weight_options
from webflow.nn.depthwise_conv import depthwise_as_conv2d, separable_as_conv2d
from webflow.ops import concat_ops, conv_ops, manip_ops, pad_ops
from webflow.ops.nn_ops import bias_add


def _single(value: Any) -> int:
    return int(value) if isinstance(value, int) else int(tuple(value)[0])


class _Conv(Layer):
    """What the convolutions share: filters, geometry, activation, bias and the weight options."""

    def __init__(self, filters: Any, kernel_size: Any, strides: Any, padding: str, dilation_rate: Any,
                 activation: Any, use_bias: bool, kernel_initializer: Any, bias_initializer: Any,
                 kernel_regularizer: Any, bias_regularizer: Any, activity_regularizer: Any, kernel_constraint: Any,
                 bias_constraint: Any, rank: int = 2, **kwargs: Any):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        tuple_of = (lambda v: (_single(v),)) if rank == 1 else _pair
        padding = padding.lower()
        for key, value in (("filters", None if filters is None else int(filters)),
                           ("kernel_size", tuple_of(kernel_size)), ("strides", tuple_of(strides)),
                           ("padding", "CAUSAL" if padding == "causal" and rank == 1 else _padding(padding)),
                           ("dilation_rate", tuple_of(dilation_rate)), ("activation", activations.get(activation)),
                           ("use_bias", use_bias), ("kernel_initializer", initializers.get(kernel_initializer)),
                           ("bias_initializer", initializers.get(bias_initializer))):
            object.__setattr__(self, key, value)
        set_weight_options(self, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint)
        object.__setattr__(self, "data_format", "channels_last")   # (for get_config: the only layout here)
        object.__setattr__(self, "groups", 1)

    def _add_bias(self, size: int) -> None:
        self.bias = self.add_weight("bias", [size], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None

    def _finish(self, outputs: Any) -> Any:
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        return self.activation(outputs)


class Conv1D(_Conv):
    """1-D convolution over [batch, steps, channels]: Conv2D on a height-1 image, as tf.nn.conv1d does."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, groups: int = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, dilation_rate, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, rank=1, **kwargs)

    def build(self, input_shape: Any) -> None:
        channels = int(input_shape[-1])
        object.__setattr__(self, "_expected_last_dim", channels)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, channels, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias(self.filters)
        self.built = True

    def call(self, inputs: Any) -> Any:
        padding = self.padding
        if padding == "CAUSAL":   # only the past: pad the left end, then a VALID convolution
            inputs = pad_ops.pad(inputs, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
            padding = "VALID"
        image = manip_ops.expand_dims(inputs, 1)
        kernel = manip_ops.expand_dims(self.kernel, 0)
        outputs = conv_ops.conv2d(image, kernel, strides=[1, 1, self.strides[0], 1], padding=padding,
                                  dilations=[1, 1, self.dilation_rate[0], 1])
        return self._finish(manip_ops.squeeze(outputs, [1]))


def deconv_output_length(length: int, kernel: int, padding: str, output_padding: Any, stride: int,
                         dilation: int = 1) -> int:
    """tf_keras's conv_utils.deconv_output_length: the size a transposed convolution gives."""
    kernel = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return length * stride + (max(kernel - stride, 0) if padding == "VALID" else 0)
    pad = kernel // 2 if padding == "SAME" else 0
    return (length - 1) * stride + kernel - 2 * pad + output_padding


class Conv2DTranspose(_Conv):
    """The adjoint of Conv2D (its gradient in its input): [b, h, w, in] -> [b, ~h * stride, ~w * stride, filters]."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 output_padding: Any = None, data_format: Any = None, dilation_rate: Any = (1, 1),
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, dilation_rate, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, **kwargs)
        object.__setattr__(self, "output_padding", None if output_padding is None else _pair(output_padding))

    def build(self, input_shape: Any) -> None:
        channels = int(input_shape[-1])
        object.__setattr__(self, "_expected_last_dim", channels)
        self.kernel = self.add_weight("kernel", [*self.kernel_size, self.filters, channels],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self._add_bias(self.filters)
        self.built = True

    def _spatial(self, height: int, width: int) -> list:
        padding = self.output_padding or (None, None)
        return [deconv_output_length(size, self.kernel_size[i], self.padding, padding[i], self.strides[i],
                                     self.dilation_rate[i]) for i, size in enumerate((height, width))]

    def call(self, inputs: Any) -> Any:
        _, height, width, _ = backend.int_shape(inputs)
        batch = backend.shape(inputs)[0]   # a tensor: the batch may be unknown inside a trace
        out_shape = concat_ops.stack([batch, *self._spatial(height, width), self.filters])
        outputs = conv_ops.conv2d_transpose(inputs, self.kernel, out_shape, strides=[1, *self.strides, 1],
                                            padding=self.padding, dilations=[1, *self.dilation_rate, 1])
        return self._finish(outputs)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        batch, height, width, _ = tuple(input_shape)
        return (batch, *self._spatial(height, width), self.filters)


class DepthwiseConv2D(_Conv):
    """Each input channel convolved with its own `depth_multiplier` filters: [b, h, w, in] -> [.., in * mult]."""

    def __init__(self, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid", depth_multiplier: int = 1,
                 data_format: Any = None, dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(None, kernel_size, strides, padding, dilation_rate, activation, use_bias,
                         depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
        object.__setattr__(self, "depth_multiplier", int(depth_multiplier))
        for key in ("initializer", "regularizer", "constraint"):   # tf_keras's names of the kernel's options
            object.__setattr__(self, f"depthwise_{key}", getattr(self, f"kernel_{key}"))

    def build(self, input_shape: Any) -> None:
        channels = int(input_shape[-1])
        object.__setattr__(self, "_expected_last_dim", channels)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self._add_bias(channels * self.depth_multiplier)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self._finish(depthwise_as_conv2d(inputs, self.depthwise_kernel, self.strides, self.padding,
                                                self.dilation_rate))


class SeparableConv2D(_Conv):
    """A depthwise convolution, then a 1x1 convolution mixing its channels into `filters` (tf.nn.separable_conv2d)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: Any = None, dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True, depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, dilation_rate, activation, use_bias,
                         depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
        object.__setattr__(self, "depth_multiplier", int(depth_multiplier))
        for key in ("initializer", "regularizer", "constraint"):   # tf_keras's names of the kernel's options
            object.__setattr__(self, f"depthwise_{key}", getattr(self, f"kernel_{key}"))
        object.__setattr__(self, "pointwise_initializer", initializers.get(pointwise_initializer))
        object.__setattr__(self, "pointwise_regularizer", regularizers.get(pointwise_regularizer))
        object.__setattr__(self, "pointwise_constraint", constraints.get(pointwise_constraint))

    def build(self, input_shape: Any) -> None:
        channels = int(input_shape[-1])
        object.__setattr__(self, "_expected_last_dim", channels)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", [*self.kernel_size, channels, self.depth_multiplier],
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", [1, 1, channels * self.depth_multiplier, self.filters],
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self._add_bias(self.filters)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self._finish(separable_as_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                                                self.padding, self.dilation_rate))


Convolution1D, Convolution2DTranspose, SeparableConvolution2D = Conv1D, Conv2DTranspose, SeparableConv2D
