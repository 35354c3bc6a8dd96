"""Fused batch normalization: the FusedBatchNormV3 op and its gradient op FusedBatchNormGradV3.

The wrapper with TensorFlow's signature, `fused_batch_norm`, is in nn/normalization.py.

Training (is_training=True), per channel c over every other axis (n values per channel):
    mean_c = mean(x),  var_c = mean((x - mean_c)^2)          (the biased batch variance)
    y = (x - mean_c) / sqrt(var_c + epsilon) * scale_c + offset_c
    batch_mean = mean_c,  batch_variance = var_c * n / (n - 1)   (Bessel-corrected, for the running average)
    with exponential_avg_factor f != 1 both are blended into the given running values: (1 - f) * old + f * new
    reserve_space_1/2 = mean_c and the *biased* var_c: what the gradient needs.
Inference (is_training=False): y normalizes with the given mean and variance, which pass through unchanged.
Float attrs (epsilon) are float32, as TensorFlow's attrs; statistics are computed in float32 (U) even for
float16 inputs, as TensorFlow's kernels do.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import nn_kernels
from webflow.framework import dtypes
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import merge_dims

INPUT_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32)
_RANKS = {"NHWC": 4, "NCHW": 4, "NDHWC": 5, "NCDHW": 5}


def _channel_axis(data_format: str) -> int:
    return 1 if data_format.startswith("NC") else _RANKS[data_format] - 1


def _reduce_axes(data_format: str) -> tuple:
    channel = _channel_axis(data_format)
    return tuple(i for i in range(_RANKS[data_format]) if i != channel)


def _per_channel(vector: Any, data_format: str) -> Any:
    """[C] -> a shape that broadcasts along the channel axis of x."""
    shape = [1] * _RANKS[data_format]
    shape[_channel_axis(data_format)] = -1
    return vector.reshape(shape)


def _check_format(attrs: dict) -> str:
    data_format = attrs["data_format"]
    data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
    if data_format not in _RANKS:
        raise ShapeError(f"Invalid data format: {data_format}")
    return data_format


def _check_types(x: Any, scale: Any) -> None:
    """T (x, y) is a half or single float; U (scale, statistics) is float32, as TF's op def says."""
    for tensor, name, allowed in ((x, "x", "float16, bfloat16, float32"), (scale, "scale", "float32")):
        dtype = dtypes.as_dtype(tensor.dtype).base_dtype
        if dtype.name not in allowed.split(", "):
            raise TypeError(f"Value passed to parameter '{name}' has DataType {dtype.name} not in list of allowed "
                            f"values: {allowed}")


def _vector_channels(tensor: Any, channels: int | None) -> int | None:
    if tensor.shape.rank is not None and tensor.shape.rank != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {tensor.shape.rank}")
    dim = tensor.shape.as_tuple()[0] if tensor.shape.rank == 1 else None
    return merge_dims(channels, dim, "Dimensions must be equal, but are {a} and {b}")


# --- FusedBatchNormV3 -------------------------------------------------------------------------------
def _fused_batch_norm_shape(inputs: list, attrs: dict) -> list:
    x, scale, offset, mean, variance = inputs
    _check_types(x, scale)
    data_format = _check_format(attrs)
    rank = _RANKS[data_format]
    if x.shape.rank is not None and x.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {x.shape.rank}")
    dims = list(x.shape.as_tuple()) if x.shape.rank is not None else [None] * rank
    axis = _channel_axis(data_format)
    channels = _vector_channels(scale, dims[axis])
    channels = _vector_channels(offset, channels)
    if not attrs["is_training"] or attrs["exponential_avg_factor"] != 1.0:
        channels = _vector_channels(mean, channels)
        channels = _vector_channels(variance, channels)
    dims[axis] = channels
    u = scale.dtype.base_dtype
    return [output_spec(dims, x.dtype.base_dtype)] + [output_spec([channels], u) for _ in range(4)] + \
        [output_spec(None, u)]


@register_op("FusedBatchNormV3", "FusedBatchNormV3", inputs=("x", "scale", "offset", "mean", "variance"),
             shape=_fused_batch_norm_shape, same_dtype=(1, 2, 3, 4), portable=nn_kernels.fused_batch_norm)
def fused_batch_norm_kernel(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, *, epsilon: float = 1e-4,
                            exponential_avg_factor: float = 1.0, data_format: str = "NHWC",
                            is_training: bool = True) -> list:
    """y = (x - mean) / sqrt(var + eps) * scale + offset per channel; batch statistics when training."""
    data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
    u = scale.dtype
    eps = u.type(np.float32(epsilon))
    values = x.astype(u)
    axes = _reduce_axes(data_format)
    if is_training:
        count = values.size // max(values.shape[_channel_axis(data_format)], 1)
        batch_mean = np.mean(values, axis=axes, dtype=u)
        centered = values - _per_channel(batch_mean, data_format)
        batch_var = np.mean(np.square(centered), axis=axes, dtype=u)
        corrected = batch_var * u.type(count / (count - 1) if count > 1 else 1)
        factor = u.type(np.float32(exponential_avg_factor))
        if factor != 1:
            running_mean = (u.type(1) - factor) * mean + factor * batch_mean
            running_var = (u.type(1) - factor) * variance + factor * corrected
        else:
            running_mean, running_var = batch_mean, corrected
        saved_mean, saved_var = batch_mean, batch_var
    else:
        centered = values - _per_channel(mean, data_format)
        saved_var = variance
        running_mean, running_var, saved_mean = mean, variance, mean
    inv = _per_channel(scale / np.sqrt(saved_var + eps), data_format)
    y = centered * inv + _per_channel(offset, data_format)
    return [y.astype(x.dtype), np.array(running_mean, u), np.array(running_var, u), np.array(saved_mean, u),
            np.array(saved_var, u), np.zeros((0,), u)]


@register_gradient("FusedBatchNormV3")
def _fused_batch_norm_grad(op: Any, grad_y: Any, *unused: Any) -> list:
    """dx, dscale, doffset from the FusedBatchNormGradV3 op (fed the saved mean and biased variance when
    training, the population statistics otherwise); no gradient into mean and variance, as in TF."""
    x, scale = op.inputs[0], op.inputs[1]
    training = op.get_attr("is_training")
    saved_mean = op.outputs[3] if training else op.inputs[3]
    saved_var = op.outputs[4] if training else op.inputs[4]
    dx, dscale, doffset, _, _ = fused_batch_norm_grad_v3(
        grad_y, x, scale, saved_mean, saved_var, op.outputs[5], epsilon=op.get_attr("epsilon"),
        data_format=op.get_attr("data_format"), is_training=training)
    return [dx, dscale, doffset, None, None]


def fused_batch_norm_v3(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: float = 1e-4,
                        exponential_avg_factor: float = 1.0, data_format: str = "NHWC", is_training: bool = True,
                        name: str | None = None) -> list:
    """The raw op (`tf.raw_ops.FusedBatchNormV3`): [y, batch_mean, batch_variance, reserve_space_1..3]."""
    if hasattr(x, "dtype") and hasattr(scale, "dtype"):   # checked here too: eagerly no shape rule runs first
        _check_types(x, scale)
    attrs = {"epsilon": float(epsilon), "exponential_avg_factor": float(exponential_avg_factor),
             "data_format": data_format, "is_training": bool(is_training)}
    return apply_op("FusedBatchNormV3", [x, scale, offset, mean, variance], attrs, name=name)


# --- FusedBatchNormGradV3 ---------------------------------------------------------------------------
def _fused_batch_norm_grad_shape(inputs: list, attrs: dict) -> list:
    y_backprop, x, scale, reserve_1, reserve_2, _ = inputs
    data_format = _check_format(attrs)
    rank = _RANKS[data_format]
    for tensor in (y_backprop, x):
        if tensor.shape.rank is not None and tensor.shape.rank != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank}")
    shape = y_backprop.shape.merge_with(x.shape) if y_backprop.shape.rank is not None else x.shape
    dims = list(shape.as_tuple()) if shape.rank is not None else [None] * rank
    axis = _channel_axis(data_format)
    channels = dims[axis]
    for tensor in (scale, reserve_1, reserve_2):
        channels = _vector_channels(tensor, channels)
    dims[axis] = channels
    u = scale.dtype.base_dtype
    return [output_spec(dims, x.dtype.base_dtype), output_spec([channels], u), output_spec([channels], u),
            output_spec([0], u), output_spec([0], u)]


@register_op("FusedBatchNormGradV3", "FusedBatchNormGradV3",
             inputs=("y_backprop", "x", "scale", "reserve_space_1", "reserve_space_2", "reserve_space_3"),
             shape=_fused_batch_norm_grad_shape, same_dtype=(0, 1), allowed=INPUT_TYPES,
             portable=nn_kernels.fused_batch_norm_grad)
def fused_batch_norm_grad_kernel(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any,
                                 reserve_space_3: Any, *, epsilon: float = 1e-4, data_format: str = "NHWC",
                                 is_training: bool = True) -> list:
    """Training: dx = scale / sqrt(v + eps) * (dy - mean(dy) - (x - m) * mean(dy * (x - m)) / (v + eps));
    inference: dx = dy * scale / sqrt(v + eps). Both: dscale = sum(dy * (x - m)) / sqrt(v + eps), doffset = sum(dy)."""
    data_format = data_format.decode() if isinstance(data_format, bytes) else data_format
    u = scale.dtype
    eps = u.type(np.float32(epsilon))
    axes = _reduce_axes(data_format)
    dy, values = y_backprop.astype(u), x.astype(u)
    centered = values - _per_channel(reserve_space_1, data_format)
    inv_std = u.type(1) / np.sqrt(reserve_space_2 + eps)
    doffset = np.sum(dy, axis=axes, dtype=u)
    dscale = np.sum(dy * centered, axis=axes, dtype=u) * inv_std
    if is_training:
        mean_dy = _per_channel(np.mean(dy, axis=axes, dtype=u), data_format)
        mean_dy_centered = _per_channel(np.mean(dy * centered, axis=axes, dtype=u), data_format)
        dx = _per_channel(scale * inv_std, data_format) * (
            dy - mean_dy - centered * mean_dy_centered / _per_channel(reserve_space_2 + eps, data_format))
    else:
        dx = dy * _per_channel(scale * inv_std, data_format)
    return [dx.astype(x.dtype), dscale.astype(u), doffset.astype(u), np.zeros((0,), u), np.zeros((0,), u)]


def fused_batch_norm_grad_v3(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any,
                             reserve_space_3: Any, epsilon: float = 1e-4, data_format: str = "NHWC",
                             is_training: bool = True, name: str | None = None) -> list:
    """The raw op: [x_backprop, scale_backprop, offset_backprop, reserve_space_4, reserve_space_5]."""
    attrs = {"epsilon": float(epsilon), "data_format": data_format, "is_training": bool(is_training)}
    return apply_op("FusedBatchNormGradV3",
                    [y_backprop, x, scale, reserve_space_1, reserve_space_2, reserve_space_3], attrs, name=name)


@register_gradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad(op: Any, grad_dx: Any, grad_dscale: Any, grad_doffset: Any, *unused: Any) -> list:
    """Gradients for y_backprop, x and scale (none for the saved statistics), as TensorFlow's rule
    (nn_grad.py _FusedBatchNormGradGrad) gives them by differentiating the batch-norm gradient written in ordinary
    ops; here in closed form. Per channel, with a, b, c the incoming gradients of dx, dscale, doffset,
    s = 1 / sqrt(var + eps), xh = (x - mean) * s, m(v) the channel mean and P(v) = s (v - m(v) - xh m(v xh)):

    training (mean and var are x's batch statistics, recomputed from x as TF's rule does):
        d dy = scale P(a) + b xh + c,  d scale = sum(a P(dy)),
        d x = b P(dy) - scale s (m(a xh) P(dy) + m(dy xh) P(a))
              - scale s^2 xh (m(a dy) - m(a) m(dy) - m(dy xh) m(a xh));
    inference (the given mean and var are constants):
        d dy = scale s a + b xh + c,  d x = b s dy,  d scale = sum(a s dy).
    Statistics are computed in float32 (U) even for float16 inputs, as TF's rule does.
    """
    from webflow.ops.array_ops import reshape
    from webflow.ops.math_ops import cast
    from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum
    from webflow.ops.unary_math_ops import rsqrt, square

    y_backprop, x, scale = op.inputs[:3]
    data_format = _check_format({"data_format": op.get_attr("data_format")})
    axes = list(_reduce_axes(data_format))
    shape = [1] * _RANKS[data_format]
    shape[_channel_axis(data_format)] = -1
    u = scale.dtype.base_dtype

    def channel(vector: Any) -> Any:
        return reshape(vector, shape)

    def mean(value: Any) -> Any:
        return reduce_mean(value, axes, keepdims=True)

    dy, values, a = cast(y_backprop, u), cast(x, u), cast(grad_dx, u)
    gamma, b, c = channel(scale), channel(grad_dscale), channel(grad_doffset)
    epsilon = op.get_attr("epsilon")
    if op.get_attr("is_training"):
        centered = values - mean(values)
        s = rsqrt(mean(square(centered)) + epsilon)
        xh = centered * s
        a_xh, dy_xh = mean(a * xh), mean(dy * xh)
        p_dy = s * (dy - mean(dy) - xh * dy_xh)
        p_a = s * (a - mean(a) - xh * a_xh)
        d_dy = gamma * p_a + b * xh + c
        d_x = b * p_dy - gamma * s * (a_xh * p_dy + dy_xh * p_a) - \
            gamma * s * s * xh * (mean(a * dy) - mean(a) * mean(dy) - dy_xh * a_xh)
        d_scale = reduce_sum(a * p_dy, axes)
    else:
        s = rsqrt(channel(op.inputs[4]) + epsilon)
        xh = (values - channel(op.inputs[3])) * s
        d_dy = gamma * s * a + b * xh + c
        d_x = b * s * dy
        d_scale = reduce_sum(a * s * dy, axes)
    return [cast(d_dy, y_backprop.dtype.base_dtype), cast(d_x, x.dtype.base_dtype), d_scale, None, None, None]

__all__ = ["fused_batch_norm_v3", "fused_batch_norm_grad_v3"]
