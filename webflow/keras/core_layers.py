"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, and the merge layer Add."""

from __future__ import annotations

import math
from typing import Any

from webflow.keras import activations, backend, initializers
from webflow.keras.base_layer import Layer
from webflow.keras.weight_options import set_weight_options
from webflow.nn.dropout_ops import dropout_v2
from webflow.ops.nn_ops import bias_add


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`; kernel [input dim, units] glorot_uniform, bias [units] zeros."""

    supports_masking = True   # passes its input's mask on (keras masks)

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None, **kwargs: Any):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        object.__setattr__(self, "units", int(units))
        set_weight_options(self, kernel_regularizer, bias_regularizer, kernel_constraint, bias_constraint)
        object.__setattr__(self, "activation", activations.get(activation))
        object.__setattr__(self, "use_bias", use_bias)
        object.__setattr__(self, "kernel_initializer", initializers.get(kernel_initializer))
        object.__setattr__(self, "bias_initializer", initializers.get(bias_initializer))

    def build(self, input_shape: Any) -> None:
        last = input_shape[-1]
        if last is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be defined. Found None. "
                             f"Full input shape received: {tuple(input_shape.as_list())}")
        object.__setattr__(self, "_expected_last_dim", int(last))
        self.kernel = self.add_weight("kernel", [int(last), self.units], initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", [self.units], initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint) \
            if self.use_bias else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        if dims[-1] != self._expected_last_dim:
            raise ValueError(f'Input 0 of layer "{self.name}" is incompatible with the layer: expected axis -1 of '
                             f"input shape to have value {self._expected_last_dim}, but received input with shape "
                             f"{tuple(dims)}")
        if len(dims) > 2:   # [..., in] -> [..., units]: matmul over the last axis
            flat = backend.reshape(inputs, [-1, dims[-1]])
            outputs = backend.reshape(backend.matmul(flat, self.kernel), [-1, *dims[1:-1], self.units])
        else:
            outputs = backend.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = bias_add(outputs, self.bias)
        return self.activation(outputs)

    def get_config(self) -> dict:
        return {**super().get_config(), "units": self.units, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias}


class Activation(Layer):
    supports_masking = True   # passes its input's mask on (keras masks)

    def __init__(self, activation: Any, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "activation", activations.get(activation))

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class Dropout(Layer):
    """Zeroes a fraction `rate` of the inputs and scales the rest by 1 / (1 - rate), in training only."""

    supports_masking = True   # passes its input's mask on (keras masks)

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Invalid value received for `rate`, expected a value between 0 and 1, got: {rate}")
        object.__setattr__(self, "rate", rate)
        object.__setattr__(self, "noise_shape", noise_shape)
        object.__setattr__(self, "seed", seed)

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not training or self.rate == 0:
            return backend.identity(inputs)
        return dropout_v2(inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)


class Flatten(Layer):
    """[batch, d1, d2 ...] -> [batch, d1 * d2 * ...]."""

    def __init__(self, data_format: Any = None, **kwargs: Any):
        super().__init__(**kwargs)

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        if len(dims) == 1:
            return backend.reshape(inputs, [-1, 1])
        return backend.reshape(inputs, [-1, math.prod(dims[1:])])


class Reshape(Layer):
    """[batch, ...] -> [batch, *target_shape] (one entry may be -1)."""

    def __init__(self, target_shape: Any, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "target_shape", tuple(target_shape))

    def call(self, inputs: Any) -> Any:
        target = list(self.target_shape)
        if -1 in target:   # resolve it from the static size of one example (the batch dim stays -1)
            size = math.prod(inputs.shape.as_list()[1:])
            target[target.index(-1)] = size // -math.prod(target)
        return backend.reshape(inputs, [-1, *target])


class Add(Layer):
    """The sum of a list of same-shaped inputs."""

    def call(self, inputs: Any) -> Any:
        total = inputs[0]
        for item in inputs[1:]:
            total = backend.add(total, item)
        return total
