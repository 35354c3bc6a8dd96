"""`tf.layers.Conv2D` and `tf.layers.conv2d`: a 2-D convolution with bias and activation.

outputs = activation(conv2d(inputs, kernel) + bias), kernel [kh, kw, in_channels, filters] (glorot uniform
with fan_in = kh * kw * in, fan_out = kh * kw * filters), bias [filters] (zeros). Nodes: "conv2d/Conv2D",
"conv2d/BiasAdd", "conv2d/Relu". Output size per spatial axis: ceil(n / stride) for "same" padding,
ceil((n - dilated_kernel + 1) / stride) for "valid", where dilated_kernel = k + (k - 1) * (dilation - 1).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.tensor_shape import TensorShape
from webflow.layers import utils
from webflow.layers.base import InputSpec, Layer
from webflow.layers.utils import normalize_tuple, tf_data_format
from webflow.ops import conv_ops, init_ops, nn_ops


def conv_output_length(length: int | None, kernel: int, padding: str, stride: int, dilation: int = 1) -> int | None:
    if length is None:
        return None
    dilated_kernel = kernel + (kernel - 1) * (dilation - 1)
    length = length if padding == "same" else length - dilated_kernel + 1
    return (length + stride - 1) // stride


class Conv2D(Layer):
    """2-D convolution layer (channels_last: inputs [batch, height, width, channels])."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
                 data_format: str = "channels_last", dilation_rate: Any = (1, 1), activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = init_ops.zeros_initializer(), kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: Any = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        filters = int(filters) if filters is not None and not isinstance(filters, int) else filters
        if filters is not None and filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. "
                             f"Received filters={filters}.")
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, 2, "kernel_size")
        self.strides = normalize_tuple(strides, 2, "strides")
        self.padding = utils.normalize_padding(padding)
        self.data_format = utils.normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, 2, "dilation_rate")
        self.activation = utils.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = utils.get_initializer(kernel_initializer)
        self.bias_initializer = utils.get_initializer(bias_initializer)
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=4)

    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else -3

    def build(self, input_shape: Any) -> None:
        input_shape = TensorShape(input_shape)
        channel_axis = self._channel_axis()
        input_channel = input_shape.as_list()[channel_axis]
        if input_channel is None:
            raise ValueError(f"The channel dimension of the inputs should be defined. The input_shape received is "
                             f"{input_shape}, where axis {channel_axis} (0-based) is the channel dimension, which "
                             "found to be `None`.")
        self.kernel = self.add_weight("kernel", shape=[*self.kernel_size, input_channel, self.filters],
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, trainable=True, dtype=self._dtype)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.filters], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        trainable=True, dtype=self._dtype)
        self.input_spec = InputSpec(min_ndim=4, axes={channel_axis: input_channel})
        self.built = True

    def call(self, inputs: Any) -> Any:
        input_shape = inputs.shape
        data_format = tf_data_format(self.data_format)
        outputs = conv_ops.convolution(inputs, self.kernel, strides=list(self.strides),
                                       padding=self.padding.upper(), data_format=data_format,
                                       dilations=list(self.dilation_rate), name="Conv2D")
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        if not context.executing_eagerly() and input_shape.rank:
            outputs.set_shape(self.compute_output_shape(input_shape))
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        first_spatial = 1 if self.data_format == "channels_last" else 2
        spatial = [conv_output_length(dims[first_spatial + i], self.kernel_size[i], self.padding, self.strides[i],
                                      self.dilation_rate[i]) for i in range(2)]
        if self.data_format == "channels_last":
            return TensorShape([dims[0], *spatial, self.filters])
        return TensorShape([dims[0], self.filters, *spatial])


def conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1), padding: str = "valid",
           data_format: str = "channels_last", dilation_rate: Any = (1, 1), activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None, bias_initializer: Any = init_ops.zeros_initializer(),
           kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None, trainable: bool = True,
           name: str | None = None, reuse: Any = None) -> Any:
    """`tf.layers.conv2d`: a `Conv2D` layer applied once; `name` is also its variable scope, `reuse` shares it."""
    layer = Conv2D(filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate, activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
                   bias_constraint=bias_constraint, trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


__all__ = ["Conv2D", "conv2d"]
