"""Pure-Python kernels on CArrays for the array ops of tutorial programs, used only where NumPy is missing.

Transpose, Tile, Slice, StridedSlice, Unpack and ArgMax read a *strided view* of their input: element
[i_0, ..., i_n] of the result is `data[offset + i_0 * strides_0 + ... + i_n * strides_n]` (strides in
elements; 0 repeats, negative walks backwards). `strided()` copies such a view into a new contiguous
CArray with the C kernel `wf_copy_strided` (wasm/cast.c), or element by element in Python when the C
library is missing. ConcatV2, Pack, Pad and StridedSliceGrad write blocks of rows into a new output.
The kernels keep their NumPy kernels' signatures; backends/selection.py installs them (shape_kernels.py
holds the shape bookkeeping ones, with the same `python_kernel` table).

    y = strided(x, shape=(3, 2), offset=0, strides=(1, 3))    # the transpose of a contiguous (2, 3) x
"""

from __future__ import annotations

import array
import math
from typing import Any

from webflow.backends.arrays import carray as c_array  # noqa: F401  (c_cast declares wf_copy_strided)
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import NumpyUnavailable
from webflow.backends.arrays.object_buffer import OBJECT_TYPECODE, new_buffer

# noqa: F401  (c_cast declares wf_copy_strided)
from webflow.backends.c import cast as c_cast  # noqa: F401  (c_cast declares wf_copy_strided)
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.c import library as c_library  # noqa: F401  (c_cast declares wf_copy_strided)
from webflow.backends.c import reduce as c_reduce
from webflow.backends.c.adapters import broadcast_shapes, check, contiguous, flat_ints, fn
from webflow.backends.c.elementwise import MAX_DIMS, size_array
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.kernel_checks import select_condition_shape
from webflow.framework.run_time_messages import arg_reduce_message, concat_message, pack_message
from webflow.framework.slicing import expand_items, index_items, sliced_shape
from webflow.framework.tensor_shape import TensorShape


# --- strided views --------------------------------------------------------------------------------
def row_strides(shape: tuple) -> list:
    """Element strides of a contiguous row-major array of `shape`."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return strides[::-1]


def positions(shape: tuple, offset: int, strides: list) -> list:
    """The buffer positions of a strided view's elements, in row-major order."""
    found = [offset]
    for dim, stride in zip(shape, strides):
        found = [p + i * stride for p in found for i in range(dim)]
    return found


def strided(x: CArray, shape: tuple, offset: int, strides: list) -> CArray:
    """A contiguous copy of the view (shape, offset, strides) of x's buffer."""
    shape = tuple(int(d) for d in shape)
    out = c_array.empty(shape, x.dtype)
    if out.size == 0:
        return out
    if len(shape) <= MAX_DIMS and x.data.typecode != OBJECT_TYPECODE and c_library.available():
        status = fn("wf_copy_strided")(x.address() + offset * x.itemsize, out.address(), x.itemsize, len(shape),
                                       size_array(shape), size_array(strides))
        check(status, "copy_strided")
        return out
    source = x.data
    out.data = new_buffer(source.typecode, [source[p] for p in positions(shape, offset, strides)])
    return out


def _write_rows(out: CArray, x: CArray, offset: int, strides: list) -> None:
    """out's view (x.shape, offset, strides), whose last stride is 1, is overwritten by x (row by row)."""
    if x.size == 0:
        return
    if not x.shape:
        out.data[offset] = x.data[0]
        return
    n = x.shape[-1]
    for row, start in enumerate(positions(x.shape[:-1], offset, strides[:-1])):
        out.data[start:start + n] = x.data[row * n:(row + 1) * n]


def _axis(value: Any, rank: int, op: str) -> int:
    axis = flat_ints(value)[0] if not isinstance(value, int) else value
    if not -rank <= axis < rank:
        raise InvalidArgumentError(None, None, f"{op}: axis {axis} is out of range for rank {rank}")
    return axis % rank


# --- permuting and repeating ----------------------------------------------------------------------
def transpose(x: Any, perm: Any) -> CArray:
    """y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_{n-1}] (dim k of y is dim perm[k] of x)."""
    perm, strides = flat_ints(perm), row_strides(x.shape)
    return strided(x, tuple(x.shape[p] for p in perm), 0, [strides[p] for p in perm])


def invert_permutation(perm: Any) -> CArray:
    """y[perm[i]] = i."""
    order = flat_ints(perm)
    inverse = [0] * len(order)
    for i, p in enumerate(order):
        inverse[p] = i
    return CArray(array.array(perm.data.typecode, inverse), perm.shape, perm.dtype)


def tile(x: Any, multiples: Any) -> CArray:
    """y = x repeated multiples[i] times along each axis i (a view with stride 0 on each repeat axis)."""
    multiples = flat_ints(multiples)
    if len(multiples) != x.ndim:
        raise ValueError(f"Expected multiples argument to be a vector of length {x.ndim} but got length "
                         f"{len(multiples)}")
    shape, strides = [], []
    for m, d, s in zip(multiples, x.shape, row_strides(x.shape)):
        shape += [m, d]
        strides += [0, s]
    return strided(x, tuple(shape), 0, strides).reshape([m * d for m, d in zip(multiples, x.shape)])


# --- slicing --------------------------------------------------------------------------------------
def slice_(x: Any, begin: Any, size: Any) -> CArray:
    """y = x[begin_i : begin_i + size_i] along every axis i (size -1: to the end)."""
    begin, size = flat_ints(begin), flat_ints(size)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {x.ndim}, "
                         f"but got shapes {[len(begin)]} and {[len(size)]} instead.")
    shape = []
    for i, (b, s, d) in enumerate(zip(begin, size, x.shape)):
        end = d if s == -1 else b + s
        if not 0 <= b <= d:  # TensorFlow's two checks, in its words
            raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if not b <= end <= d:
            raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        shape.append(end - b)
    strides = row_strides(x.shape)
    return strided(x, tuple(shape), sum(b * s for b, s in zip(begin, strides)), strides)


def _strided_slice_view(shape: tuple, begin: Any, end: Any, strides: Any, masks: dict) -> tuple:
    """(view shape, offset, view strides) of x[begin:end:strides] on a contiguous array of `shape`."""
    items = index_items(begin, end, strides, masks)
    sliced_shape(TensorShape(shape), items)  # TensorFlow's error for an out-of-bounds integer index
    steps = row_strides(shape)
    out_shape, out_strides, offset = [], [], 0
    for item, dim in expand_items(items, len(shape)):
        if item is None:
            out_shape.append(1)
            out_strides.append(0)
        elif isinstance(item, int):
            offset += (item % shape[dim]) * steps[dim]
        else:
            start, stop, step = item.indices(shape[dim])
            out_shape.append(len(range(start, stop, step)))
            out_strides.append(steps[dim] * step)
            offset += start * steps[dim] if out_shape[-1] else 0
    return tuple(out_shape), offset, out_strides


def strided_slice(x: Any, begin: Any, end: Any, strides: Any, **masks: Any) -> CArray:
    """y = x[begin_0:end_0:strides_0, ...], each entry read through the five masks."""
    return strided(x, *_strided_slice_view(x.shape, begin, end, strides, masks))


def strided_slice_grad(x_shape: Any, begin: Any, end: Any, strides: Any, dy: Any, **masks: Any) -> CArray:
    """dx = zeros(shape); dx[begin:end:strides] = dy (the masks read as in StridedSlice)."""
    dx = c_array.empty(flat_ints(x_shape), dy.dtype)
    shape, offset, steps = _strided_slice_view(dx.shape, begin, end, strides, masks)
    for position, value in zip(positions(shape, offset, steps), dy.data):
        dx.data[position] = value
    return dx


def unpack(x: Any, *, num: int, axis: int) -> list:
    """y_i = x[..., i, ...] along axis."""
    axis = _axis(axis, x.ndim, "Unpack")
    steps = row_strides(x.shape)
    shape, rest = x.shape[:axis] + x.shape[axis + 1:], steps[:axis] + steps[axis + 1:]
    return [strided(x, shape, i * steps[axis], rest) for i in range(num)]


# --- joining and padding --------------------------------------------------------------------------
def _concat(parts: list, axis: int) -> CArray:
    first = parts[0]
    shape = first.shape[:axis] + (sum(p.shape[axis] for p in parts),) + first.shape[axis + 1:]
    out = c_array.empty(shape, first.dtype)
    outer = math.prod(first.shape[:axis])
    inner = math.prod(first.shape[axis + 1:])
    data, position = out.data, 0
    for block in range(outer):
        for part in parts:
            length = part.shape[axis] * inner
            data[position:position + length] = part.data[block * length:(block + 1) * length]
            position += length
    return out


def concat(*args: Any, N: int) -> CArray:  # noqa: N803 - TensorFlow's attr name
    """y = x_1, ..., x_N joined along axis."""
    parts = [contiguous(a) for a in args[:-1]]
    axis = _axis(args[-1], parts[0].ndim, "ConcatV2")
    mismatch = concat_message([p.shape for p in parts], axis)
    if mismatch is not None:
        raise InvalidArgumentError(None, None, mismatch)
    return _concat(parts, axis)


def pack(*values: Any, N: int, axis: int) -> CArray:  # noqa: N803 - TensorFlow's attr name
    """y = the N equally-shaped x_i stacked along a new axis."""
    parts = [contiguous(v) for v in values]
    mismatch = pack_message([p.shape for p in parts])
    if mismatch is not None:
        raise InvalidArgumentError(None, None, mismatch)
    axis = _axis(axis, parts[0].ndim + 1, "Pack")
    return _concat([p.reshape(p.shape[:axis] + (1,) + p.shape[axis:]) for p in parts], axis)


def _padded(x: Any, paddings: Any, value: Any) -> CArray:
    pairs = flat_ints(paddings)
    before, after = pairs[0::2], pairs[1::2]
    if len(before) != x.ndim or min(pairs, default=0) < 0:
        raise InvalidArgumentError(None, None, f"The first dimension of paddings must be the rank of inputs"
                                               f"[{len(before)},2] {list(x.shape)}")
    shape = tuple(d + b + a for d, b, a in zip(x.shape, before, after))
    out = c_array.full(shape, value, x.dtype)
    steps = row_strides(shape)
    _write_rows(out, x, sum(b * s for b, s in zip(before, steps)), steps)
    return out


def pad(x: Any, paddings: Any) -> CArray:
    """y = x with paddings[i] = (before, after) zeros added on each side of axis i."""
    return _padded(x, paddings, 0)


def pad_v2(x: Any, paddings: Any, value: Any) -> CArray:
    """y = x with paddings[i] = (before, after) copies of constant_values added around axis i."""
    return _padded(x, paddings, value.item())


# --- sequences and arg-reductions -----------------------------------------------------------------
def range_(start: Any, limit: Any, delta: Any) -> CArray:
    """y = start, start + delta, ... (excluding limit)."""
    first, stop, step = start.item(), limit.item(), delta.item()
    if step == 0:
        raise InvalidArgumentError(None, None, f"Requires delta != 0: {step:g}")
    count = max(0, math.ceil((stop - first) / step))
    values = [first + i * step for i in range(count)]
    return CArray(array.array(start.data.typecode, values), (count,), start.dtype)


def _arg_reduce(x: Any, dimension: Any, output_type: Any, pick: Any) -> CArray:
    wrong_axis = arg_reduce_message(x.shape, flat_ints(dimension)[0])
    if wrong_axis is not None:
        raise InvalidArgumentError(None, None, wrong_axis)
    axis = _axis(dimension, x.ndim, "ArgMax")
    if x.shape[axis] == 0:
        raise InvalidArgumentError(None, None, f"Reduction axis {flat_ints(dimension)[0]} is empty in shape "
                                               f"{list(x.shape)}")
    order = [i for i in range(x.ndim) if i != axis] + [axis]
    moved = transpose(x, order) if axis != x.ndim - 1 else x
    n, data = x.shape[axis], moved.data
    found = [pick(data[start:start + n]) for start in range(0, moved.size, n)]
    return c_array.from_value(found, output_type).reshape(x.shape[:axis] + x.shape[axis + 1:])


def _first_nan(row: Any) -> int | None:
    for i, v in enumerate(row):
        if v != v:
            return i
    return None


def _without_nan(row: Any, fill: float) -> Any:
    """TensorFlow's arg reductions never pick a NaN (they compare with >, < only): NaN counts as `fill`."""
    if row.typecode not in "fd" or _first_nan(row) is None:
        return row
    return [fill if v != v else v for v in row]


def _argmax(row: Any) -> int:
    """The index of the largest value, the first on ties (NaN skipped, as in TensorFlow; all NaN: 0)."""
    row = _without_nan(row, -math.inf)
    return row.index(max(row))


def _argmin(row: Any) -> int:
    row = _without_nan(row, math.inf)
    return row.index(min(row))


def arg_max(x: Any, dimension: Any, *, output_type: Any) -> CArray:
    """y = index of the largest x along `dimension` (the first one on ties)."""
    return _arg_reduce(x, dimension, output_type, _argmax)


def arg_min(x: Any, dimension: Any, *, output_type: Any) -> CArray:
    """y = index of the smallest x along `dimension` (the first one on ties)."""
    return _arg_reduce(x, dimension, output_type, _argmin)


def shape_n(*values: Any, N: int, out_type: Any) -> list:  # noqa: N803 - TensorFlow's attr name
    """y_i = the shape of x_i."""
    return [c_array.from_value(list(v.shape), out_type) if v.shape else c_array.empty((0,), out_type)
            for v in values]


# --- small elementwise ops (bookkeeping sizes: plain Python is enough) -----------------------------
def _broadcast_pair(x: Any, y: Any) -> tuple:
    shape = broadcast_shapes(x.shape, y.shape)
    return shape, _expanded(x, shape), _expanded(y, shape)


def _expanded(x: Any, shape: tuple) -> list:
    """x's values broadcast to `shape`, as a flat list (a stride-0 view on each broadcast axis)."""
    if x.shape == shape:
        return x.data.tolist()
    lead = len(shape) - x.ndim
    steps = [0] * lead + [0 if d == 1 else s for d, s in zip(x.shape, row_strides(x.shape))]
    return [x.data[p] for p in positions(shape, 0, steps)]


broadcast_values = _expanded  # (shape_kernels' BroadcastTo of strings)


def _pow(a: Any, b: Any) -> Any:
    try:
        return math.pow(a, b)
    except ValueError:  # a negative base to a fractional power, or zero to a negative one
        if a == 0 and b < 0:   # C's pow: ±inf (the zero's sign for an odd integer power)
            odd = float(b).is_integer() and int(b) % 2 == 1
            return math.copysign(math.inf, a) if odd else math.inf
        return math.nan
    except OverflowError:
        return math.inf if a > 0 or float(b).is_integer() and int(b) % 2 == 0 else -math.inf


def pow_(x: Any, y: Any) -> CArray:
    """z = x^y."""
    shape, xs, ys = _broadcast_pair(x, y)
    if x.dtype.is_integer:
        if any(b < 0 for b in ys):
            raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
        bits = x.itemsize * 8  # wrap around as TensorFlow's integer arithmetic does
        values = [((a ** b + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)) for a, b in zip(xs, ys)]
    else:
        values = [_pow(a, b) for a, b in zip(xs, ys)]
    return CArray(array.array(x.data.typecode, values), shape, x.dtype)


def _logical(function: Any) -> Any:
    def kernel(x: Any, y: Any) -> CArray:
        shape, xs, ys = _broadcast_pair(x, y)
        return CArray(array.array("B", [function(a, b) for a, b in zip(xs, ys)]), shape, x.dtype)

    return kernel


logical_and = _logical(lambda a, b: 1 if a and b else 0)
logical_or = _logical(lambda a, b: 1 if a or b else 0)


def _equality(function: Any, if_incompatible: int) -> Any:
    def kernel(x: Any, y: Any, *, incompatible_shape_error: bool = True) -> CArray:
        try:
            shape, xs, ys = _broadcast_pair(x, y)
        except ValueError:
            if incompatible_shape_error:
                raise InvalidArgumentError(None, None, f"Incompatible shapes: {list(x.shape)} vs. "
                                                       f"{list(y.shape)}") from None
            return CArray(array.array("B", [if_incompatible]), (), dtypes.bool)
        return CArray(array.array("B", [function(a, b) for a, b in zip(xs, ys)]), shape, dtypes.bool)

    return kernel


def select_v2(cond: Any, t: Any, e: Any) -> CArray:
    """out = t where cond else e, all three broadcasting (any dtype: the C kernel copies numbers only)."""
    try:
        shape = broadcast_shapes(cond.shape, t.shape, e.shape)
    except ValueError:
        dims = [f"[{','.join(map(str, a.shape))}]" for a in (cond, t, e)]
        raise InvalidArgumentError(None, None, f"condition {dims[0]}, then {dims[1]}, and else {dims[2]} must be "
                                               f"broadcastable") from None
    picks = zip(_expanded(cond, shape), _expanded(t, shape), _expanded(e, shape))
    return CArray(new_buffer(t.data.typecode, [a if c else b for c, a, b in picks]), shape, t.dtype)


def select(cond: Any, t: Any, e: Any) -> CArray:
    """out = t where cond else e; a vector cond picks whole rows (first dimension) of t or e."""
    return select_v2(cond.reshape(select_condition_shape(cond.shape, t.shape, e.shape)), t, e)


def add_strings(x: Any, y: Any) -> CArray:
    """z = x + y for strings: each pair concatenated, broadcasting (numbers are the C kernel's)."""
    if x.data.typecode != OBJECT_TYPECODE:
        raise NumpyUnavailable("op AddV2 has no kernel without NumPy for these inputs: only strings and the C kernels")
    shape, xs, ys = _broadcast_pair(x, y)
    return CArray(new_buffer(OBJECT_TYPECODE, [a + b for a, b in zip(xs, ys)]), shape, x.dtype)


# any dtype, strings included (the C kernels take numbers only)
equal = _equality(lambda a, b: 1 if a == b else 0, 0)
not_equal = _equality(lambda a, b: 1 if a != b else 0, 1)


def l2_loss(t: Any) -> CArray:
    """y = sum(t^2) / 2 (the C square and sum kernels)."""
    squares = c_elementwise.square(t)
    total = c_reduce.sum_reduce(squares.reshape(-1), c_array.from_value([0], "int32"), keep_dims=False)
    return c_array.from_value(total.item() / 2, t.dtype)


def log1p(x: Any) -> CArray:
    """y = log(1 + x)."""
    values = [math.log1p(v) if v > -1 else (-math.inf if v == -1 else math.nan) for v in x.data]
    return CArray(array.array(x.data.typecode, values), x.shape, x.dtype)


def logical_not(x: Any) -> CArray:
    """y = not x."""
    return CArray(array.array("B", [0 if v else 1 for v in x.data]), x.shape, x.dtype)


__all__ = ["strided", "positions", "row_strides"]
