"""Pure-Python kernels on CArrays for the bookkeeping ops, used only where NumPy is missing (Pyodide).

Without NumPy the C kernels run the arithmetic (backends/c_kernels_*.py); what is left are the ops that
move shapes and small integer vectors around (Shape, Reshape, Fill, BroadcastGradientArgs, ...), which
the gradient graphs are full of. Each kernel here has its NumPy kernel's signature and computes the same
thing on `c_array.CArray`s in plain Python; the few that do arithmetic on whole tensors (BiasAdd, AddN,
BiasAddGrad) call the C adapters. backends/selection.py installs them in place of the NumPy kernels.

    def shape(x, *, out_type): ...      # named in the Shape stanza: portable=shape_kernels.shape
"""

from __future__ import annotations

import array
import math
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.object_buffer import OBJECT_TYPECODE, new_buffer
from webflow.backends.c.adapters import broadcast_shapes, flat_ints
from webflow.backends.c.elementwise import add
from webflow.backends.c.reduce import sum_reduce
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.run_time_messages import bias_count_message, expand_dims_message, fill_message


def _vector(values: list, dtype: Any) -> CArray:
    return c_array.from_value(list(values), dtype) if values else c_array.empty((0,), dtype)


# --- shapes --------------------------------------------------------------------------------------------
def shape(x: Any, *, out_type: Any) -> CArray:
    """y = the dimensions of x."""
    return _vector(list(x.shape), out_type)


def size(x: Any, *, out_type: Any) -> CArray:
    """y = the number of elements of x."""
    return c_array.from_value(x.size, out_type)


def rank(x: Any) -> CArray:
    """y = the number of dimensions of x."""
    return c_array.from_value(x.ndim, "int32")


def reshape(x: Any, new_shape: Any) -> CArray:
    """y = x read with another shape (one -1 inferred)."""
    return x.reshape(flat_ints(new_shape))


def expand_dims(x: Any, axis: Any) -> CArray:
    """y = x with a 1 inserted at axis."""
    where = flat_ints(axis)[0]
    wrong_axis = expand_dims_message(x.shape, where)
    if wrong_axis is not None:
        raise InvalidArgumentError(None, None, wrong_axis)
    where = where if where >= 0 else x.ndim + 1 + where
    return x.reshape(x.shape[:where] + (1,) + x.shape[where:])


def squeeze(x: Any, *, squeeze_dims: list) -> CArray:
    """y = x without the listed axes of size 1 (all of them when none are listed)."""
    axes = {a % x.ndim for a in squeeze_dims} if squeeze_dims else {i for i, d in enumerate(x.shape) if d == 1}
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {x.shape[a]}")
    return x.reshape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


def identity(x: Any) -> Any:
    """y = x."""
    return x


def broadcast_gradient_args(s0: Any, s1: Any) -> list:
    """r0, r1 = the axes along which each shape was broadcast against the other (to sum gradients over)."""
    a, b = flat_ints(s0), flat_ints(s1)
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + a, [1] * (rank - len(b)) + b
    r0 = [i for i in range(rank) if a[i] == 1 and b[i] != 1]
    r1 = [i for i in range(rank) if b[i] == 1 and a[i] != 1]
    for i in range(rank):
        if a[i] != b[i] and 1 not in (a[i], b[i]):
            raise ValueError(f"Incompatible shapes: {flat_ints(s0)} vs. {flat_ints(s1)}")
        if a[i] == b[i] == 1:
            r0.append(i)
            r1.append(i)
    return [_vector(sorted(r0), s0.dtype), _vector(sorted(r1), s0.dtype)]


# --- filled tensors -----------------------------------------------------------------------------------
def fill(dims: Any, value: Any) -> CArray:
    """y = an array of shape dims holding value everywhere."""
    negative = fill_message(flat_ints(dims))
    if negative is not None:
        raise InvalidArgumentError(None, None, negative)
    return c_array.full(flat_ints(dims), value.item(), value.dtype)


def zeros_like(x: Any) -> CArray:
    """y = 0 with x's shape and dtype."""
    return c_array.empty(x.shape, x.dtype)


def ones_like(x: Any) -> CArray:
    """y = 1 with x's shape and dtype."""
    return c_array.full(x.shape, 1, x.dtype)


def broadcast_to(x: Any, target: Any) -> CArray:
    """y = x repeated along its broadcast axes to shape target."""
    shape = tuple(flat_ints(target))
    if broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"Unable to broadcast tensor of shape {list(x.shape)} to tensor of shape {list(shape)}")
    if x.data.typecode == OBJECT_TYPECODE:  # strings: copied element by element
        from webflow.backends.portable.array_kernels import broadcast_values  # (that module imports this one)

        return CArray(new_buffer(OBJECT_TYPECODE, broadcast_values(x, shape)), shape, x.dtype)
    return add(c_array.empty(shape, x.dtype), x)  # 0 + x, broadcast by the C kernel


def one_hot(indices: Any, depth: Any, on_value: Any, off_value: Any, *, axis: int, dtype: Any) -> CArray:
    """y[..., j] = on_value where indices[...] == j, else off_value (the new axis last; moved for axis != -1)."""
    depth, on, off = int(depth), on_value.item(), off_value.item()
    if depth < 0:  # TensorFlow's kernel refuses, in these words
        raise ValueError(f"depth must be non-negative, got: {depth}")
    flat = [on if j == i else off for i in flat_ints(indices) for j in range(depth)]
    y = CArray(array.array(c_array.TYPECODES[on_value.dtype.name], flat), indices.shape + (depth,), on_value.dtype)
    if axis in (-1, indices.ndim):
        return y
    from webflow.backends.portable.array_kernels import transpose  # (that module imports this one)

    rank = indices.ndim  # the new axis, last in y, moves to position `axis`
    return transpose(y, list(range(axis)) + [rank] + list(range(axis, rank)))


# --- arithmetic that the C kernels do -----------------------------------------------------------------
def add_n(*values: Any, N: int) -> Any:  # noqa: N803 - TensorFlow's attr name
    """y = x_1 + ... + x_N."""
    total = values[0]
    for value in values[1:]:
        total = add(total, value)
    return total


def _channel_axis(data_format: str, rank: int) -> int:
    """The channel axis: 1 for NC.. formats (rank > 2), else the last."""
    return 1 if data_format.startswith("NC") and rank > 2 else rank - 1


def bias_add(value: Any, bias: Any, *, data_format: str = "NHWC") -> Any:
    """y = value + bias along the channel axis (the last one, or axis 1 for NC.. formats)."""
    channel = _channel_axis(data_format, value.ndim)
    if bias.shape[0] != value.shape[channel]:
        raise InvalidArgumentError(None, None, bias_count_message(bias.shape, value.shape))
    shape = [1] * value.ndim
    shape[channel] = bias.shape[0]  # a [C, 1, 1] bias broadcasts along axis 1 of an NCHW value
    return add(value, bias.reshape(shape[channel:]))


def bias_add_grad(out_backprop: Any, *, data_format: str = "NHWC") -> Any:
    """db = sum of the gradient over every axis but the channel axis."""
    channel = _channel_axis(data_format, out_backprop.ndim)
    axes = _vector([i for i in range(out_backprop.ndim) if i != channel], "int32")
    return sum_reduce(out_backprop, axes, keep_dims=False)


def _int_binary(function: Callable) -> Callable:
    def kernel(x: Any, y: Any) -> CArray:
        shape = broadcast_shapes(x.shape, y.shape)
        xs, ys = _broadcast_values(x, shape), _broadcast_values(y, shape)
        if x.data.typecode in "fd":   # IEEE division (x/0 is ±inf or NaN), rounded to x's float type first
            divide = _f32_quotient if x.data.typecode == "f" else _quotient
            values = [function(a, b, divide) for a, b in zip(xs, ys)]
        elif 0 in ys:
            raise InvalidArgumentError(None, None, "Integer division by zero")   # as the NumPy kernel and TF
        else:
            values = [function(a, b) for a, b in zip(xs, ys)]
        return CArray(array.array(x.data.typecode, values), shape, x.dtype)

    kernel.__doc__ = function.__doc__
    return kernel


def _broadcast_values(x: Any, shape: tuple) -> list:
    if x.shape == shape:
        return x.data.tolist()
    if x.size == 1:
        return [x.data[0]] * math.prod(shape)
    return add(c_array.empty(shape, x.dtype), x).data.tolist()


def _quotient(a: float, b: float) -> float:
    """a / b as IEEE (C) divides: ±inf or NaN for b == 0 where Python raises."""
    if b:
        return a / b
    if a != a or a == 0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _f32_quotient(a: float, b: float) -> float:
    return array.array("f", [_quotient(a, b)])[0]


def _floor_mod(a: Any, b: Any, divide: Callable | None = None) -> Any:
    """z = x mod y with the sign of y (Python's %; floats as TensorFlow: fmod, moved to y's sign, NaN for y = 0)."""
    if divide is None:
        return a % b
    if not b or a != a or b != b or math.isinf(a):
        return math.nan
    if math.isinf(b):   # fmod(a, ±inf) = a, moved to inf's sign
        return a if a == 0 or (a < 0) == (b < 0) else b
    r = math.fmod(a, b)
    return r + b if r and (b < 0) != (r < 0) else r


def _floor_div(a: Any, b: Any, divide: Callable | None = None) -> Any:
    """z = floor(x / y) (floats: the quotient rounded to x's type, then floored; ±inf and NaN kept)."""
    if divide is None:
        return a // b
    q = divide(a, b)
    return float(math.floor(q)) if math.isfinite(q) else q


floor_mod = _int_binary(_floor_mod)
floor_div = _int_binary(_floor_div)


def split_v(x: Any, sizes: Any, axis: Any, *, num_split: int) -> list:
    """y_i = consecutive slices of x along axis with the given sizes (one -1 takes the rest)."""
    axis = flat_ints(axis)[0] % x.ndim
    sizes = flat_ints(sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = x.shape[axis] - sum(s for s in sizes if s != -1)
    outer, inner = math.prod(x.shape[:axis]), math.prod(x.shape[axis + 1:])
    parts, start = [], 0
    for length in sizes:
        data = new_buffer(x.data.typecode)
        for block in range(outer):
            base = (block * x.shape[axis] + start) * inner
            data.extend(x.data[base:base + length * inner])
        parts.append(CArray(data, x.shape[:axis] + (length,) + x.shape[axis + 1:], x.dtype))
        start += length
    return parts


