"""Pure-Python kernels on CArrays for FusedBatchNormV3 and its gradient, used only where NumPy is missing.

Per-channel statistics: the channel axis is moved first (a strided-view transpose), so each channel's
values are one contiguous run; sums are taken in float64 and each result is rounded to the statistics'
dtype (float32), so the numbers agree with the NumPy kernel (ops/nn_batch_norm_ops.py) to float32
rounding. Batch-norm layers are small next to the convolutions they follow, so plain Python is enough.
"""

from __future__ import annotations

import array
import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.portable.array_kernels import transpose
from webflow.framework import dtypes

_RANKS = {"NHWC": 4, "NCHW": 4, "NDHWC": 5, "NCDHW": 5}


def _format(data_format: Any) -> str:
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def _channels_first(x: CArray, data_format: str) -> tuple:
    """(rows: one list per channel, the order that moved the channel axis first)."""
    axis = 1 if data_format.startswith("NC") else x.ndim - 1
    order = [axis] + [i for i in range(x.ndim) if i != axis]
    moved = transpose(x, c_array.from_value(order, "int32")) if axis else x
    channels = x.shape[axis]
    n = x.size // max(channels, 1)
    return [moved.data[c * n:(c + 1) * n].tolist() for c in range(channels)], order, moved.shape


def _channels_back(rows: list, order: list, moved_shape: tuple, dtype: Any) -> CArray:
    flat = [v for row in rows for v in row]
    moved = CArray(array.array(c_array.TYPECODES[dtype.name], flat), moved_shape, dtype)
    if order[0] == 0:
        return moved
    back = [0] * len(order)
    for i, p in enumerate(order):
        back[p] = i
    return transpose(moved, c_array.from_value(back, "int32"))


def _vector(values: list, dtype: Any) -> CArray:
    return CArray(array.array(c_array.TYPECODES[dtype.name], values), (len(values),), dtype)


def _f32(value: float, dtype: Any) -> float:
    """A float attr as TensorFlow's kernel sees it: float32, then the statistics' dtype."""
    return array.array("f", [value])[0] if dtype.name == "float32" else float(array.array("f", [value])[0])


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any, variance: Any, *, epsilon: float = 1e-4,
                     exponential_avg_factor: float = 1.0, data_format: str = "NHWC", is_training: bool = True) -> list:
    """y = (x - mean) / sqrt(var + eps) * scale + offset per channel; batch statistics when training."""
    data_format, u = _format(data_format), scale.dtype
    eps, factor = _f32(epsilon, u), _f32(exponential_avg_factor, u)
    rows, order, moved_shape = _channels_first(x, data_format)
    scales, offsets = scale.data.tolist(), offset.data.tolist()
    count = len(rows[0]) if rows else 0
    rounding = array.array(c_array.TYPECODES[u.name], [0.0])

    def rounded(value: float) -> float:
        rounding[0] = value
        return rounding[0]

    if is_training:
        batch_mean = [rounded(math.fsum(row) / max(count, 1)) for row in rows]
        batch_var = [rounded(math.fsum((v - m) ** 2 for v in row) / max(count, 1)) for row, m in zip(rows, batch_mean)]
        correction = count / (count - 1) if count > 1 else 1
        corrected = [rounded(v * correction) for v in batch_var]
        if factor != 1:
            running_mean = [rounded((1 - factor) * old + factor * new) for old, new in zip(mean.data, batch_mean)]
            running_var = [rounded((1 - factor) * old + factor * new) for old, new in zip(variance.data, corrected)]
        else:
            running_mean, running_var = batch_mean, corrected
        centers, saved_mean, saved_var = batch_mean, batch_mean, batch_var
    else:
        centers, saved_var = mean.data.tolist(), variance.data.tolist()
        running_mean, running_var, saved_mean = centers, saved_var, centers
    y_rows = []
    for row, m, v, s, o in zip(rows, centers, saved_var, scales, offsets):
        inv = s / math.sqrt(v + eps)
        y_rows.append([(value - m) * inv + o for value in row])
    y = _channels_back(y_rows, order, moved_shape, x.dtype)
    return [y, _vector(running_mean, u), _vector(running_var, u), _vector(saved_mean, u), _vector(saved_var, u),
            c_array.empty((0,), u)]


def fused_batch_norm_grad(y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any, reserve_space_2: Any,
                          reserve_space_3: Any, *, epsilon: float = 1e-4, data_format: str = "NHWC",
                          is_training: bool = True) -> list:
    """Training: dx = scale / sqrt(v + eps) * (dy - mean(dy) - (x - m) * mean(dy * (x - m)) / (v + eps));
    inference: dx = dy * scale / sqrt(v + eps). Both: dscale = sum(dy * (x - m)) / sqrt(v + eps), doffset = sum(dy)."""
    data_format, u = _format(data_format), scale.dtype
    eps = _f32(epsilon, u)
    dy_rows, order, moved_shape = _channels_first(y_backprop, data_format)
    x_rows, _, _ = _channels_first(x, data_format)
    dx_rows, dscale, doffset = [], [], []
    for dy, xs, s, m, v in zip(dy_rows, x_rows, scale.data, reserve_space_1.data, reserve_space_2.data):
        centered = [value - m for value in xs]
        inv_std = 1 / math.sqrt(v + eps)
        sum_dy = math.fsum(dy)
        sum_dy_centered = math.fsum(d * c for d, c in zip(dy, centered))
        doffset.append(sum_dy)
        dscale.append(sum_dy_centered * inv_std)
        if is_training:
            n = max(len(dy), 1)
            mean_dy, mean_dy_centered = sum_dy / n, sum_dy_centered / n
            dx_rows.append([s * inv_std * (d - mean_dy - c * mean_dy_centered / (v + eps))
                            for d, c in zip(dy, centered)])
        else:
            dx_rows.append([d * s * inv_std for d in dy])
    dx = _channels_back(dx_rows, order, moved_shape, x.dtype)
    return [dx, _vector(dscale, u), _vector(doffset, u), c_array.empty((0,), u), c_array.empty((0,), u)]


__all__ = ["fused_batch_norm", "fused_batch_norm_grad", "dtypes"]
