"""Normalization: `l2_normalize`, `batch_normalization` (composed from ops) and `fused_batch_norm`.

Each is built exactly as TensorFlow builds it, so node names and numbers agree:
- l2_normalize(x) = x * rsqrt(max(sum(x^2, axis, keepdims), epsilon))   (scope `l2_normalize`)
- batch_normalization(x) = x * inv + (offset - mean * inv), inv = rsqrt(variance + eps) * scale
                                                                          (scope `batchnorm`)
- fused_batch_norm: one FusedBatchNormV3 op (ops/nn_batch_norm_ops.py), returning (y, mean, variance).
`tf.layers.batch_normalization` calls `fused_batch_norm` for 4-D inputs and `batch_normalization` otherwise.
"""

from __future__ import annotations

from typing import Any

from webflow.ops import math_ops, sum_mean_ops
from webflow.ops.binary_math_ops import maximum
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_batch_norm_ops import fused_batch_norm_v3
from webflow.ops.registry import op_scope
from webflow.ops.unary_math_ops import rsqrt, square


def _axis_or_dim(axis: Any, dim: Any) -> Any:
    """TF's deprecated_argument_lookup("axis", axis, "dim", dim)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    return axis if axis is not None else dim


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None, dim: Any = None) -> Any:
    """x / sqrt(max(sum(x^2, axis), epsilon)) along `axis` (every axis when None)."""
    axis = _axis_or_dim(axis, dim)
    with op_scope(name or "l2_normalize") as scope:
        x = convert_to_tensor(x, name="x")
        square_sum = sum_mean_ops.reduce_sum(square(x), axis, keepdims=True)
        x_inv_norm = rsqrt(maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope or None)


def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: float,
                        name: str | None = None) -> Any:
    """(x - mean) * scale / sqrt(variance + variance_epsilon) + offset, in TF's rsqrt form (offset, scale optional)."""
    with op_scope(name or "batchnorm"):
        x = convert_to_tensor(x, name="x")
        # The operators name the nodes as TF's (add, Rsqrt, mul, mul_1, mul_2, sub, add_1): tools that fold
        # batch norm into convolutions look for exactly this pattern.
        inv = rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        shift = offset - mean * inv if offset is not None else -mean * inv
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(shift, x.dtype)


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None, epsilon: float = 0.001,
                     data_format: str = "NHWC", is_training: bool = True, name: str | None = None,
                     exponential_avg_factor: float = 1.0) -> tuple:
    """TF1 `tf.nn.fused_batch_norm`: (y, batch or running mean, batch or running variance) from FusedBatchNormV3.

    When training, the returned variance is the Bessel-corrected batch variance (n / (n - 1)), the one to
    feed a moving average; y itself is normalized with the biased batch variance, as TensorFlow does.
    """
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = convert_to_tensor([], dtype=scale.dtype)
    if variance is None:
        variance = convert_to_tensor([], dtype=scale.dtype)
    y, running_mean, running_var, _, _, _ = fused_batch_norm_v3(
        x, scale, offset, mean, variance, epsilon=epsilon, exponential_avg_factor=exponential_avg_factor,
        data_format=data_format, is_training=is_training, name=name)
    return y, running_mean, running_var


__all__ = ["l2_normalize", "batch_normalization", "fused_batch_norm"]
