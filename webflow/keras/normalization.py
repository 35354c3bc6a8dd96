"""BatchNormalization and Embedding.

BatchNormalization (axis -1, momentum 0.99, epsilon 1e-3): in training it normalizes with the batch's mean and
(biased) variance and moves `moving_* -= (moving_* - batch) * (1 - momentum)`; for 4-D inputs tf_keras runs the
fused kernel, whose moving variance takes the unbiased batch variance (times n / (n - 1)) - done here too. At
inference it normalizes with the moving statistics.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import initializers
from webflow.keras.base_layer import Layer
from webflow.nn.embedding import embedding_lookup
from webflow.nn.moments import moments
from webflow.nn.normalization import batch_normalization
from webflow.ops.math_ops import cast


class BatchNormalization(Layer):
    supports_masking = True   # passes its input's mask on (keras masks)

    def __init__(self, axis: int = -1, momentum: float = 0.99, epsilon: float = 0.001, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros", gamma_initializer: Any = "ones",
                 moving_mean_initializer: Any = "zeros", moving_variance_initializer: Any = "ones",
                 beta_regularizer: Any = None, gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        for key, value in (("axis", axis), ("momentum", momentum), ("epsilon", epsilon), ("center", center),
                           ("scale", scale)):
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_inits", [initializers.get(i) for i in (gamma_initializer, beta_initializer,
                                                                          moving_mean_initializer,
                                                                          moving_variance_initializer)])

    _float32_math = True   # mixed precision: statistics in float32, as tf_keras (base_layer casts in and out)

    def build(self, input_shape: Any) -> None:
        channels = [int(input_shape[self.axis])]
        gamma, beta, mean, variance = self._inits
        self.gamma = self.add_weight("gamma", channels, initializer=gamma) if self.scale else None
        self.beta = self.add_weight("beta", channels, initializer=beta) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", channels, initializer=mean, trainable=False)
        self.moving_variance = self.add_weight("moving_variance", channels, initializer=variance, trainable=False)
        self.built = True

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not training:
            return batch_normalization(inputs, self.moving_mean, self.moving_variance, self.beta, self.gamma,
                                       self.epsilon)
        dims = inputs.shape.as_list()
        axes = [i for i in range(len(dims)) if i != len(dims) - 1]
        mean, variance = moments(inputs, axes)
        outputs = batch_normalization(inputs, mean, variance, self.beta, self.gamma, self.epsilon)
        update_variance = variance
        if len(dims) == 4:   # the fused kernel's moving variance is the unbiased one
            update_variance = variance * _unbiased_factor(inputs, dims, variance.dtype)
        decay = 1.0 - self.momentum
        self.moving_mean.assign_sub((self.moving_mean - mean) * decay)
        self.moving_variance.assign_sub((self.moving_variance - update_variance) * decay)
        return outputs


def _unbiased_factor(inputs: Any, dims: list, dtype: Any) -> Any:
    """n / (n - 1) for the n values behind each channel's variance (float64, then the variance's float32); read
    from the input's shape at run time in a step traced for any batch size (step_functions.py)."""
    if None not in dims[:-1]:
        count = 1
        for dim in dims[:-1]:
            count *= dim
        return count / max(count - 1, 1)
    from webflow.ops.array_ops import size
    from webflow.ops.binary_math_ops import maximum
    count = cast(size(inputs, out_type=dtypes.int64), dtypes.float64) / float(dims[-1])
    return cast(count / maximum(count - 1.0, 1.0), dtype.base_dtype)


class Embedding(Layer):
    """Integer ids [batch, ...] -> vectors [batch, ..., output_dim]; embeddings uniform in [-0.05, 0.05]."""

    def __init__(self, input_dim: int, output_dim: int, embeddings_initializer: Any = "uniform",
                 embeddings_regularizer: Any = None, activity_regularizer: Any = None,
                 embeddings_constraint: Any = None, mask_zero: bool = False, input_length: Any = None,
                 **kwargs: Any):
        if input_length is not None and "input_shape" not in kwargs:
            kwargs["input_shape"] = (input_length,)
        super().__init__(**kwargs)
        object.__setattr__(self, "input_dim", int(input_dim))
        object.__setattr__(self, "output_dim", int(output_dim))
        object.__setattr__(self, "mask_zero", mask_zero)
        object.__setattr__(self, "_init", initializers.get(embeddings_initializer))

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight("embeddings", [self.input_dim, self.output_dim], initializer=self._init)
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """With `mask_zero`, id 0 is padding: the mask is `inputs != 0` (masks.py carries it on)."""
        if not self.mask_zero:
            return None
        from webflow.ops.logic_ops import not_equal
        return not_equal(inputs, 0)

    def call(self, inputs: Any) -> Any:
        if inputs.dtype not in (dtypes.int32, dtypes.int64):
            inputs = cast(inputs, dtypes.int32)
        return embedding_lookup(self.embeddings, inputs)
