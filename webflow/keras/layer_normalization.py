"""`LayerNormalization`: each example normalized over `axis` (the features), then scaled and shifted:

    y = gamma * (x - mean) / sqrt(var + epsilon) + beta      mean, var (biased) over `axis`, per example

Weights `gamma` [features] (ones) then `beta` [features] (zeros), tf_keras's order; epsilon 1e-3.
"""

from __future__ import annotations

from typing import Any

from webflow.keras import constraints, initializers, regularizers
from webflow.keras.backend import reshape
from webflow.keras.base_layer import Layer
from webflow.nn.moments import moments
from webflow.nn.normalization import batch_normalization


class LayerNormalization(Layer):
    supports_masking = True
    _float32_math = True   # mixed precision: statistics in float32, as tf_keras (base_layer casts in and out)

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                 beta_initializer: Any = "zeros", gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None, gamma_constraint: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        for key, value in (("axis", list(axis) if isinstance(axis, (list, tuple)) else axis),
                           ("epsilon", epsilon), ("center", center), ("scale", scale),
                           ("beta_initializer", initializers.get(beta_initializer)),
                           ("gamma_initializer", initializers.get(gamma_initializer)),
                           ("beta_regularizer", regularizers.get(beta_regularizer)),
                           ("gamma_regularizer", regularizers.get(gamma_regularizer)),
                           ("beta_constraint", constraints.get(beta_constraint)),
                           ("gamma_constraint", constraints.get(gamma_constraint))):
            object.__setattr__(self, key, value)

    def build(self, input_shape: Any) -> None:
        dims = list(input_shape.as_list())
        axes = sorted(axis % len(dims) for axis in (self.axis if isinstance(self.axis, list) else [self.axis]))
        object.__setattr__(self, "axis", axes)
        param_shape = [dims[axis] for axis in axes]
        self.gamma = self.add_weight("gamma", param_shape, initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint) \
            if self.scale else None
        self.beta = self.add_weight("beta", param_shape, initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint) \
            if self.center else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        dims = inputs.shape.as_list()
        broadcast = [dims[axis] if axis in self.axis else 1 for axis in range(len(dims))]
        mean, variance = moments(inputs, self.axis, keepdims=True)
        scale = reshape(self.gamma, broadcast) if self.scale else None
        offset = reshape(self.beta, broadcast) if self.center else None
        return batch_normalization(inputs, mean, variance, offset=offset, scale=scale,
                                   variance_epsilon=self.epsilon)
