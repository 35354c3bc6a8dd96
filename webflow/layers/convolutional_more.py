"""`tf.layers` convolutions beyond Conv2D (channels_last), with TF1's variable names:

    Conv1D / conv1d                     conv1d/kernel [k, in, filters], conv1d/bias; Conv2D on a height-1 image
    Conv2DTranspose / conv2d_transpose  conv2d_transpose/kernel [kh, kw, filters, in]: a Conv2DBackpropInput
    SeparableConv2D / separable_conv2d  depthwise_kernel [kh, kw, in, mult], pointwise_kernel [1, 1, in*mult, f]

Output sizes: conv as Conv2D's; transposed "valid": n * stride + max(k - stride, 0), "same": n * stride.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.tensor_shape import TensorShape
from webflow.layers import utils
from webflow.layers.base import InputSpec, Layer
from webflow.layers.convolutional import conv_output_length
from webflow.layers.utils import normalize_tuple
from webflow.nn.depthwise_conv import separable_as_conv2d
from webflow.ops import array_ops, concat_ops, conv_ops, init_ops, manip_ops, nn_ops
from webflow.ops.registry import op_scope


class _Conv(Layer):
    """Arguments, bias and activation shared by the convolutions here (channels_last only)."""

    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any, padding: str, data_format: str,
                 dilation_rate: Any, activation: Any, use_bias: bool, kernel_initializer: Any, bias_initializer: Any,
                 kernel_regularizer: Any, bias_regularizer: Any, activity_regularizer: Any, kernel_constraint: Any,
                 bias_constraint: Any, trainable: bool, name: Any, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        if utils.normalize_data_format(data_format) != "channels_last":
            raise NotImplementedError("webflow's tf.layers convolutions take channels_last inputs only")
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = "channels_last"
        self.dilation_rate = normalize_tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = utils.get_initializer(kernel_initializer)
        self.bias_initializer = utils.get_initializer(bias_initializer)
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _channels(self, input_shape: Any) -> int:
        channels = TensorShape(input_shape).as_list()[-1]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={-1: channels})
        return channels

    def _weight(self, name: str, shape: list, initializer: Any, regularizer: Any, constraint: Any) -> Any:
        return self.add_weight(name, shape=shape, initializer=initializer, regularizer=regularizer,
                               constraint=constraint, trainable=True, dtype=self._dtype)

    def _add_bias(self) -> None:
        self.bias = self._weight("bias", [self.filters], self.bias_initializer, self.bias_regularizer,
                                 self.bias_constraint) if self.use_bias else None

    def _finish(self, outputs: Any, input_shape: Any) -> Any:
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format="NHWC")
        if not context.executing_eagerly() and input_shape.rank:
            outputs.set_shape(self.compute_output_shape(input_shape))
        return self.activation(outputs) if self.activation is not None else outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        spatial = [self._length(dims[1 + i], i) for i in range(self.rank)]
        return TensorShape([dims[0], *spatial, self.filters])

    def _length(self, length: Any, i: int) -> Any:
        return conv_output_length(length, self.kernel_size[i], self.padding, self.strides[i], self.dilation_rate[i])


class Conv1D(_Conv):
    """1-D convolution over [batch, steps, channels]."""

    rank = 1

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = 1, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = init_ops.zeros_initializer(), kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: Any = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.kernel = self._weight("kernel", [*self.kernel_size, channels, self.filters], self.kernel_initializer,
                                   self.kernel_regularizer, self.kernel_constraint)
        self._add_bias()
        self.built = True

    def call(self, inputs: Any) -> Any:
        with op_scope("Conv1D") as scope:   # TensorFlow's conv1d: ExpandDims ops, then a Conv2D named "Conv1D"
            image = manip_ops.expand_dims(inputs, 1)
            kernel = manip_ops.expand_dims(self.kernel, 0)
            outputs = conv_ops.conv2d(image, kernel, strides=[1, 1, self.strides[0], 1],
                                      padding=self.padding.upper(), dilations=[1, 1, self.dilation_rate[0], 1],
                                      name=scope or None)
            outputs = manip_ops.squeeze(outputs, [1])
        return self._finish(outputs, inputs.shape)


class Conv2DTranspose(_Conv):
    """The transpose of Conv2D: [b, h, w, in] -> [b, h', w', filters]."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
                 name: Any = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, data_format, 1, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, trainable, name, **kwargs)

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.kernel = self._weight("kernel", [*self.kernel_size, self.filters, channels], self.kernel_initializer,
                                   self.kernel_regularizer, self.kernel_constraint)
        self._add_bias()
        self.built = True

    def _grown(self, length: Any, i: int) -> Any:
        grow = max(self.kernel_size[i] - self.strides[i], 0) if self.padding == "valid" else 0
        return length * self.strides[i] + grow

    def _length(self, length: Any, i: int) -> Any:
        return None if length is None else self._grown(length, i)

    def call(self, inputs: Any) -> Any:
        dims, dynamic = inputs.shape.as_list(), array_ops.shape(inputs)
        sizes = [dynamic[axis] if dims[axis] is None else dims[axis] for axis in (1, 2)]
        out_shape = concat_ops.stack([dynamic[0], *(self._grown(size, i) for i, size in enumerate(sizes)),
                                      self.filters])
        outputs = conv_ops.conv2d_transpose(inputs, self.kernel, out_shape, strides=[1, *self.strides, 1],
                                            padding=self.padding.upper())
        return self._finish(outputs, inputs.shape)


class SeparableConv2D(_Conv):
    """A depthwise convolution then a 1x1 convolution (tf.nn.separable_conv2d)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True, depthwise_initializer: Any = None,
                 pointwise_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: Any = None, **kwargs: Any):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, trainable, name, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.pointwise_initializer = utils.get_initializer(pointwise_initializer)
        self.pointwise_regularizer, self.pointwise_constraint = pointwise_regularizer, pointwise_constraint

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.depthwise_kernel = self._weight("depthwise_kernel", [*self.kernel_size, channels, self.depth_multiplier],
                                             self.kernel_initializer, self.kernel_regularizer, self.kernel_constraint)
        self.pointwise_kernel = self._weight("pointwise_kernel", [1, 1, channels * self.depth_multiplier,
                                                                  self.filters],
                                             self.pointwise_initializer, self.pointwise_regularizer,
                                             self.pointwise_constraint)
        self._add_bias()
        self.built = True

    def call(self, inputs: Any) -> Any:
        outputs = separable_as_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel, self.strides,
                                      self.padding.upper(), self.dilation_rate)
        return self._finish(outputs, inputs.shape)


def _apply(layer_class: type, inputs: Any, name: Any, reuse: Any, **kwargs: Any) -> Any:
    """A layer applied once; `name` is also its variable scope, `reuse` shares it (as tf.layers.conv2d)."""
    return layer_class(name=name, _scope=name, _reuse=reuse, **kwargs)(inputs)


def conv1d(inputs: Any, filters: int, kernel_size: Any, strides: Any = 1, padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
           kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
           name: str | None = None, reuse: Any = None) -> Any:
    """`tf.layers.conv1d`."""
    return _apply(Conv1D, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                  padding=padding, data_format=data_format, dilation_rate=dilation_rate, activation=activation,
                  use_bias=use_bias, kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                  bias_constraint=bias_constraint, trainable=trainable)


def conv2d_transpose(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str = "channels_last", activation: Any = None, use_bias: bool = True,
                     kernel_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
                     kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                     kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
                     name: str | None = None, reuse: Any = None) -> Any:
    """`tf.layers.conv2d_transpose`."""
    return _apply(Conv2DTranspose, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                  padding=padding, data_format=data_format, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                  bias_constraint=bias_constraint, trainable=trainable)


def separable_conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                     data_format: str = "channels_last", dilation_rate: Any = (1, 1), depth_multiplier: int = 1,
                     activation: Any = None, use_bias: bool = True, depthwise_initializer: Any = None,
                     pointwise_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
                     depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                     bias_regularizer: Any = None, activity_regularizer: Any = None, depthwise_constraint: Any = None,
                     pointwise_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
                     name: str | None = None, reuse: Any = None) -> Any:
    """`tf.layers.separable_conv2d`."""
    return _apply(SeparableConv2D, inputs, name, reuse, filters=filters, kernel_size=kernel_size, strides=strides,
                  padding=padding, data_format=data_format, dilation_rate=dilation_rate,
                  depth_multiplier=depth_multiplier, activation=activation, use_bias=use_bias,
                  depthwise_initializer=depthwise_initializer, pointwise_initializer=pointwise_initializer,
                  bias_initializer=bias_initializer, depthwise_regularizer=depthwise_regularizer,
                  pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer, depthwise_constraint=depthwise_constraint,
                  pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint, trainable=trainable)


Convolution1D, Convolution2DTranspose, SeparableConvolution2D = Conv1D, Conv2DTranspose, SeparableConv2D
convolution1d, convolution2d_transpose, separable_convolution2d = conv1d, conv2d_transpose, separable_conv2d

__all__ = ["Conv1D", "Conv2DTranspose", "SeparableConv2D", "conv1d", "conv2d_transpose", "separable_conv2d"]
