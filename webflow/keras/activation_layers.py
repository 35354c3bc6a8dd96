"""Activations as layers, as tf_keras computes them:

    ReLU(max_value, negative_slope, threshold)   min(x, max_value) if x >= threshold, else slope * (x - threshold)
    LeakyReLU(alpha=0.3)                         x if x > 0 else alpha * x
    Softmax(axis=-1)                             exp(x) / sum exp(x); masked positions get -1e9 added first
"""

from __future__ import annotations

from typing import Any

from webflow.keras.backend import cast_to_floatx
from webflow.keras.base_layer import Layer
from webflow.ops import nn_activation_ops, nn_ops, unary_math_ops
from webflow.ops.logic_ops import greater
from webflow.ops.math_ops import cast
from webflow.ops.reduction_ops import reduce_logsumexp
from webflow.train.clip_ops import clip_by_value


def relu(x: Any, alpha: float = 0.0, max_value: Any = None, threshold: float = 0.0) -> Any:
    """tf_keras's backend.relu: leaky_relu, relu6 or relu, then the clip and the negative part."""
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return nn_activation_ops.leaky_relu(x, alpha=alpha)
        negative_part = nn_ops.relu(-x + threshold) if threshold != 0 else nn_ops.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * cast(greater(x, threshold), x.dtype)
    elif max_value == 6:
        x, clip_max = nn_activation_ops.relu6(x), False
    else:
        x = nn_ops.relu(x)
    if clip_max:
        x = clip_by_value(x, 0.0, float(max_value))
    if alpha != 0.0:
        x = x - alpha * negative_part
    return x


class ReLU(Layer):
    supports_masking = True

    def __init__(self, max_value: Any = None, negative_slope: float = 0.0, threshold: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"max_value of a ReLU layer cannot be a negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"negative_slope of a ReLU layer cannot be a negative value. Received: {negative_slope}")
        object.__setattr__(self, "max_value", None if max_value is None else cast_to_floatx(max_value))
        object.__setattr__(self, "negative_slope", cast_to_floatx(negative_slope))
        object.__setattr__(self, "threshold", cast_to_floatx(threshold))

    def call(self, inputs: Any) -> Any:
        return relu(inputs, alpha=self.negative_slope, max_value=self.max_value, threshold=self.threshold)


class LeakyReLU(Layer):
    supports_masking = True

    def __init__(self, alpha: float = 0.3, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "alpha", cast_to_floatx(alpha))

    def call(self, inputs: Any) -> Any:
        return nn_activation_ops.leaky_relu(inputs, alpha=self.alpha)


class Softmax(Layer):
    supports_masking = True

    def __init__(self, axis: Any = -1, **kwargs: Any):
        super().__init__(**kwargs)
        object.__setattr__(self, "axis", axis)

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:   # masked positions: a large negative number, so they get ~0 probability
            inputs = inputs + (1.0 - cast(mask, inputs.dtype)) * -1e9
        if isinstance(self.axis, (list, tuple)):
            if len(self.axis) > 1:
                return unary_math_ops.exp(inputs - reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True))
            return nn_ops.softmax(inputs, axis=self.axis[0])
        return nn_ops.softmax(inputs, axis=self.axis)
