"""`tf.layers.Dense`, `Flatten`, `Dropout` and their functions `dense`, `flatten`, `dropout`.

dense:   outputs = activation(inputs @ kernel + bias), kernel [in, units] (glorot uniform), bias [units] (zeros);
         rank-2 inputs give "dense/MatMul", "dense/BiasAdd", "dense/Relu"; higher ranks contract the last axis
         with a Tensordot, as TensorFlow does.
flatten: [batch, d1, d2, ...] -> [batch, d1 * d2 * ...] with one Reshape.
dropout: in training, keep each element with probability 1 - rate and scale it by 1 / (1 - rate)
         (tf.nn.dropout); otherwise an Identity. `training` may be a Python bool or a bool tensor.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from webflow.framework import context
from webflow.framework.tensor_shape import TensorShape
from webflow.layers.base import InputSpec, Layer
from webflow.layers.utils import get_activation, get_initializer, normalize_data_format, smart_cond
from webflow.nn.dropout_ops import dropout_v2
from webflow.ops import array_ops, init_ops, manip_ops, math_ops, matmul_ops, nn_ops
from webflow.ops.binary_math_ops import tensordot
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor


class Dense(Layer):
    """A densely connected layer: `activation(inputs @ kernel + bias)`."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = init_ops.zeros_initializer(), kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: Any = None, **kwargs: Any):
        super().__init__(trainable=trainable, name=name, activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units) if not isinstance(units, int) else units
        if self.units < 0:
            raise ValueError(f"Received an invalid value for `units`, expected a positive integer. "
                             f"Received: units={units}")
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = get_initializer(kernel_initializer)
        self.bias_initializer = get_initializer(bias_initializer)
        self.kernel_regularizer = kernel_regularizer
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        dtype = self._dtype
        if dtype is not None and not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"A Dense layer can only be built with a floating-point dtype. Received: dtype={dtype}")
        input_shape = TensorShape(input_shape)
        last_dim = input_shape.as_list()[-1] if input_shape.rank else None
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        self.kernel = self.add_weight("kernel", shape=[last_dim, self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      dtype=self._dtype, trainable=True)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=[self.units], initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        dtype=self._dtype, trainable=True)
        self.built = True

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.base_dtype != self._dtype:
            inputs = math_ops.cast(inputs, self._dtype)
        rank = inputs.shape.rank
        if rank == 2 or rank is None:
            outputs = matmul_ops.matmul(inputs, self.kernel)
        else:
            # Contract the last axis with the kernel's first; the static shape is set as TensorFlow does.
            outputs = tensordot(inputs, self.kernel, [[rank - 1], [0]])
            if not context.executing_eagerly():
                outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(TensorShape(input_shape).as_list()[:-1] + [self.units])


def dense(inputs: Any, units: int, activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
          bias_initializer: Any = init_ops.zeros_initializer(), kernel_regularizer: Any = None,
          bias_regularizer: Any = None, activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: str | None = None, reuse: Any = None) -> Any:
    """`tf.layers.dense`: a `Dense` layer applied once; `name` is also its variable scope, `reuse` shares it."""
    layer = Dense(units, activation=activation, use_bias=use_bias, kernel_initializer=kernel_initializer,
                  bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                  bias_regularizer=bias_regularizer, activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint, trainable=trainable,
                  name=name, _scope=name, _reuse=reuse)
    return layer(inputs)


class Flatten(Layer):
    """[batch, ...] -> [batch, product of the other dims] (channels_first inputs are made channels_last first)."""

    def __init__(self, data_format: str | None = "channels_last", **kwargs: Any):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)
        self._channels_first = self.data_format == "channels_first"

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.rank
        if self._channels_first and rank and rank > 1:
            inputs = manip_ops.transpose(inputs, perm=[0] + list(range(2, rank)) + [1])
        if rank == 1:
            return manip_ops.expand_dims(inputs, axis=1)
        dims = inputs.shape.as_list()
        if None not in dims[1:]:
            # The static shape keeps the known sizes: a constant [-1, product] target.
            target = constant([-1, int(functools.reduce(operator.mul, dims[1:], 1))])
        elif dims[0] is not None:
            target = constant([int(dims[0]), -1])
        else:
            target = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, target)

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        dims = TensorShape(input_shape).as_list()
        rest = None if None in dims[1:] else functools.reduce(operator.mul, dims[1:], 1)
        return TensorShape([dims[0], rest])


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Any:
    """`tf.layers.flatten`: keeps the batch axis, flattens the rest."""
    return Flatten(name=name, data_format=data_format)(inputs)


class Dropout(Layer):
    """Zeroes each element with probability `rate` in training; the identity otherwise."""

    def __init__(self, rate: Any = 0.5, noise_shape: Any = None, seed: int | None = None, name: str | None = None,
                 **kwargs: Any):
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value between 0 and 1.")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self._next_seed = seed  # each call of a seeded layer uses seed, seed + 1, ... (Keras' legacy seeds)
        self.supports_masking = True

    def _legacy_seed(self) -> int | None:
        seed = self._next_seed
        if seed is not None:
            self._next_seed += 1
        return seed

    def _get_noise_shape(self, inputs: Any) -> Any:
        if self.noise_shape is None:
            return None
        dynamic = array_ops.shape(inputs)
        dims = [dynamic[i] if value is None else value for i, value in enumerate(self.noise_shape)]
        return convert_to_tensor(dims)

    def call(self, inputs: Any, training: Any = False) -> Any:
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return array_ops.identity(inputs)
        if training is None:
            training = False  # TF reads Keras' learning phase here; webflow has none, so inference

        def dropped_inputs() -> Any:
            return dropout_v2(inputs, self.rate, noise_shape=self._get_noise_shape(inputs), seed=self._legacy_seed())

        return smart_cond(training, dropped_inputs, lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        return TensorShape(input_shape)


def dropout(inputs: Any, rate: Any = 0.5, noise_shape: Any = None, seed: int | None = None, training: Any = False,
            name: str | None = None) -> Any:
    """`tf.layers.dropout`: dropout when `training` (a Python bool or a bool tensor) is true."""
    return Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)(inputs, training=training)


__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]
