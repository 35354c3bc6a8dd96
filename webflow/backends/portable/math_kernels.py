"""Pure-Python kernels on CArrays for the bookkeeping-sized math ops, used only where NumPy is missing.

Scans (Cumsum, Cumprod), boolean reductions (All, Any), top-k (TopKV2, InTopKV2), Unique, GatherNd,
ScatterNd, ReverseV2, sin/cos and the truncating / no-NaN divisions. These run on small tensors in the
programs people learn with (a row of logits, a vector of labels), so plain Python over `array.array`
is enough; the hot elementwise ops have C kernels (backends/c_kernels_*.py). Each kernel keeps its NumPy
kernel's signature and TensorFlow's errors; backends/selection.py installs them (the `python_kernel` table).

Axis-wise kernels move the axis last with the strided-view transpose (array_kernels.py), work on
contiguous rows, and move it back.
"""

from __future__ import annotations

import array
import builtins
import math
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.object_buffer import new_buffer
from webflow.backends.c.adapters import broadcast_shapes, flat_ints
from webflow.backends.portable.array_kernels import _broadcast_pair, _expanded, transpose
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError


def _like(x: CArray, values: list, shape: tuple | None = None, dtype: Any = None) -> CArray:
    dtype = x.dtype if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if dtype.is_integer:
        values = [int(v) for v in values]
    return CArray(new_buffer(c_array.TYPECODES[dtype.name], values), x.shape if shape is None else shape, dtype)


def _rows_last(x: CArray, axis: int) -> tuple:
    """(x with `axis` moved last, the permutation back); the rows are then contiguous."""
    if axis == x.ndim - 1:
        return x, None
    order = [i for i in range(x.ndim) if i != axis] + [axis]
    back = [0] * x.ndim
    for i, p in enumerate(order):
        back[p] = i
    return transpose(x, c_array.from_value(order, "int32")), back


def _restore(y: CArray, back: list | None) -> CArray:
    return y if back is None else transpose(y, c_array.from_value(back, "int32"))


def _row_map(x: CArray, axis: int, function: Callable) -> CArray:
    """y = function applied to every row of x along `axis` (same length, same dtype)."""
    moved, back = _rows_last(x, axis)
    n = moved.shape[-1] if moved.ndim else 1
    values: list = []
    data = moved.data
    for start in range(0, moved.size, max(n, 1)):
        values += function(data[start:start + n].tolist())
    return _restore(_like(moved, values, moved.shape), back)


# --- scans ------------------------------------------------------------------------------------------
def _scan(x: Any, axis: Any, exclusive: bool, reverse: bool, combine: Callable, identity: int) -> CArray:
    axis = flat_ints(axis)[0]
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), "
                                               f"but got {axis}")
    rounding = array.array(x.data.typecode, [0])

    def running(row: list) -> list:
        row = row[::-1] if reverse else row
        out, total = [], identity
        for v in row:
            if exclusive:
                out.append(total)
            total = combine(total, v)
            if x.dtype.is_floating:
                rounding[0] = total  # in the input's precision, as NumPy's accumulate
                total = rounding[0]
            else:
                bits = x.itemsize * 8  # integers wrap around as TensorFlow's do
                total = ((total + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))
            if not exclusive:
                out.append(total)
        return out[::-1] if reverse else out

    return _row_map(x, axis % x.ndim, running)


def cumsum(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> CArray:
    """y_i = x_0 + ... + x_i along axis (exclusive: up to x_{i-1}; reverse: from the end)."""
    return _scan(x, axis, exclusive, reverse, lambda a, b: a + b, 0)


def cumprod(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> CArray:
    """y_i = x_0 * ... * x_i along axis (exclusive: up to x_{i-1}; reverse: from the end)."""
    return _scan(x, axis, exclusive, reverse, lambda a, b: a * b, 1)


# --- boolean reductions -----------------------------------------------------------------------------
def _bool_reduce(x: Any, axes: Any, keep_dims: bool, function: Callable) -> CArray:
    axis_list = flat_ints(axes)
    for a in axis_list:
        if not -x.ndim <= a < max(x.ndim, 1):
            raise InvalidArgumentError(None, None, f"Invalid reduction dimension ({a} for input with {x.ndim} "
                                                   f"dimension(s)")
    reduced = sorted({a % x.ndim for a in axis_list}) if x.ndim else []
    kept = [i for i in range(x.ndim) if i not in reduced]
    moved = transpose(x, c_array.from_value(kept + reduced, "int32")) if x.ndim else x
    n = math.prod(x.shape[i] for i in reduced)
    values = [1 if function(moved.data[s:s + n]) else 0 for s in range(0, math.prod(x.shape[i] for i in kept) * n or
                                                                         (0 if n == 0 else 0), max(n, 1))]
    count = math.prod(x.shape[i] for i in kept)
    if n == 0:
        values = [1 if function([]) else 0] * count
    shape = tuple(1 if i in reduced else d for i, d in enumerate(x.shape)) if keep_dims else \
        tuple(x.shape[i] for i in kept)
    return CArray(array.array("B", values), shape, dtypes.bool)


def all_(x: Any, axes: Any, *, keep_dims: bool) -> CArray:
    """y = AND of x over axes (True for an empty reduction)."""
    return _bool_reduce(x, axes, keep_dims, all)


def any_(x: Any, axes: Any, *, keep_dims: bool) -> CArray:
    """y = OR of x over axes (False for an empty reduction)."""
    return _bool_reduce(x, axes, keep_dims, any)


# --- top-k ------------------------------------------------------------------------------------------
def top_k(values: Any, k: Any, *, sorted: bool = True, index_type: Any = dtypes.int32) -> list:  # noqa: A002
    """The k largest entries of the last axis, in descending order (ties: lower index first), and their indices."""
    k = flat_ints(k)[0]
    if k < 0:
        raise InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    columns = values.shape[-1]
    if columns < k:
        raise InvalidArgumentError(None, None, f"input must have at least k columns. Had {columns}, needed {k}")
    picked_values, picked_indices = [], []
    for start in range(0, values.size, max(columns, 1)):
        row = values.data[start:start + columns]
        # descending, NaN above everything (NumPy's sort puts it last), ties: lower index first
        order = builtins.sorted(range(columns), key=lambda i: (0, 0, i) if row[i] != row[i] else (1, -row[i], i))
        picked_indices += order[:k]
        picked_values += [row[i] for i in order[:k]]
    shape = values.shape[:-1] + (k,)
    return [_like(values, picked_values, shape), _like(values, picked_indices, shape, index_type)]


def in_top_k(predictions: Any, targets: Any, k: Any) -> CArray:
    """out_i = predictions[i, targets_i] is finite and fewer than k entries of row i are greater than it."""
    classes, k = predictions.shape[1], flat_ints(k)[0]
    out = []
    for i, target in enumerate(flat_ints(targets)):
        row = predictions.data[i * classes:(i + 1) * classes]
        if not 0 <= target < classes or not math.isfinite(row[target]):
            out.append(0)
            continue
        out.append(1 if sum(1 for v in row if v > row[target]) < k else 0)
    return CArray(array.array("B", out), (len(out),), dtypes.bool)


# --- Unique, GatherNd, ScatterNd, ReverseV2 ---------------------------------------------------------
def unique(x: Any, *, out_idx: Any) -> list:
    """y = the distinct values of x in order of first appearance; idx[i] = position of x[i] in y."""
    positions: dict = {}
    index = []
    for v in x.data:
        index.append(positions.setdefault(v, len(positions)))
    values = list(positions)
    return [_like(x, values, (len(values),)), _like(x, index, x.shape, out_idx)]


def _nd_offsets(indices: Any, shape: tuple, op_type: str) -> tuple:
    """(flat row offsets of each index tuple, the size of the slice each one names)."""
    depth = indices.shape[-1]
    inner = math.prod(shape[depth:])
    flat = flat_ints(indices)
    offsets = []
    for row in range(len(flat) // depth if depth else math.prod(indices.shape[:-1])):
        position = flat[row * depth:(row + 1) * depth]
        if any(not 0 <= p < d for p, d in zip(position, shape)):
            where = ",".join(str(i) for i in _unravel(row, indices.shape[:-1])) if indices.ndim > 1 else ""
            raise IndexError(f"indices[{where}] = [{', '.join(str(p) for p in position)}] does not index into "
                             f"param shape [{','.join(str(d) for d in shape)}]")
        offset = 0
        for p, d in zip(position, shape):
            offset = offset * d + p
        offsets.append(offset * inner)
    return offsets, inner


def _unravel(flat_index: int, shape: tuple) -> list:
    position = []
    for dim in reversed(shape):
        position.append(flat_index % dim)
        flat_index //= dim
    return position[::-1]


def gather(params: Any, indices: Any, axis: Any, *, batch_dims: int = 0) -> CArray:
    """y[a..., i..., b...] = params[a..., indices[i...], b...] (indices along `axis`), any dtype."""
    axis = flat_ints(axis)[0]
    if not -params.ndim <= axis < params.ndim:
        raise InvalidArgumentError(None, None, f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} "
                                               f"but is rank {params.ndim}")
    axis %= params.ndim
    size, inner = params.shape[axis], math.prod(params.shape[axis + 1:])
    picks = flat_ints(indices)
    for row, i in enumerate(picks):
        if not 0 <= i < size:
            where = ",".join(str(p) for p in _unravel(row, indices.shape))
            raise IndexError(f"indices[{where}] = {i} is not in [0, {size})")
    data = new_buffer(params.data.typecode)
    for block in range(math.prod(params.shape[:axis])):
        base = block * size * inner
        for i in picks:
            data.extend(params.data[base + i * inner:base + (i + 1) * inner])
    return CArray(data, params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)


def gather_nd(params: Any, indices: Any) -> CArray:
    """y[i...] = params[indices[i..., 0], ..., indices[i..., K-1], ...]."""
    offsets, inner = _nd_offsets(indices, params.shape, "GatherNd")
    data = new_buffer(params.data.typecode)
    for offset in offsets:
        data.extend(params.data[offset:offset + inner])
    return CArray(data, indices.shape[:-1] + params.shape[indices.shape[-1]:], params.dtype)


def scatter_nd(indices: Any, updates: Any, shape: Any) -> CArray:
    """y = zeros(shape); y[indices[i..., :]] += updates[i...]."""
    shape = tuple(flat_ints(shape))
    offsets, inner = _nd_offsets(indices, shape, "ScatterNd")
    out = c_array.empty(shape, updates.dtype)
    for row, offset in enumerate(offsets):
        for j in range(inner):
            out.data[offset + j] += updates.data[row * inner + j]
    return out


def reverse(x: Any, axis: Any) -> CArray:
    """y = x with the order of elements reversed along each axis in `axis`."""
    from webflow.backends.portable.array_kernels import row_strides, strided

    flipped = {a % x.ndim for a in flat_ints(axis)}
    steps = row_strides(x.shape)
    offset = sum((x.shape[a] - 1) * steps[a] for a in flipped if x.shape[a])
    return strided(x, x.shape, offset, [-s if a in flipped else s for a, s in enumerate(steps)])


# --- elementwise math of bookkeeping size ------------------------------------------------------------
def _float_unary(function: Callable) -> Callable:
    def kernel(x: Any) -> CArray:
        return _like(x, [function(v) if math.isfinite(v) else math.nan if v == v and v != 0 else v
                         for v in x.data])

    kernel.__doc__ = function.__doc__
    return kernel


def _sin(v: float) -> float:
    """y = sin x."""
    return math.sin(v)


def _cos(v: float) -> float:
    """y = cos x."""
    return math.cos(v)


sin = _float_unary(_sin)
cos = _float_unary(_cos)


def _integer_divisor_check(x: Any, y: Any) -> None:
    if y.dtype.is_integer and math.prod(broadcast_shapes(x.shape, y.shape)) and 0 in y.data:
        raise InvalidArgumentError(None, None, "Integer division by zero")


def _divide(x: Any, y: Any, function: Callable) -> CArray:
    shape, xs, ys = _broadcast_pair(x, y)
    return _like(x, [function(a, b) for a, b in zip(xs, ys)], shape)


def _float_divide(a: float, b: float) -> float:
    if b:
        return a / b
    return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)


def truncate_div(x: Any, y: Any) -> CArray:
    """z = trunc(x / y) (rounds toward zero: -7 / 2 = -3)."""
    _integer_divisor_check(x, y)
    if x.dtype.is_integer:
        return _divide(x, y, lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1))
    return _divide(x, y, lambda a, b: float(math.trunc(q)) if math.isfinite(q := _float_divide(a, b)) else q)


def truncate_mod(x: Any, y: Any) -> CArray:
    """z = x - trunc(x / y) * y (takes the sign of x, as C's %)."""
    _integer_divisor_check(x, y)
    if x.dtype.is_integer:
        return _divide(x, y, lambda a, b: a - (abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)) * b)
    return _divide(x, y, lambda a, b: math.fmod(a, b) if b and math.isfinite(a) else math.nan)


def div_no_nan(x: Any, y: Any) -> CArray:
    """z = x / y, and 0 where y == 0."""
    rounding = array.array(x.data.typecode, [0])

    def divide(a: float, b: float) -> float:
        if b == 0:
            return 0.0
        rounding[0] = a / b
        return rounding[0]

    return _divide(x, y, divide)


__all__ = ["cumsum", "cumprod", "all_", "any_", "top_k", "in_top_k", "unique", "gather_nd", "scatter_nd", "reverse",
           "_expanded"]
