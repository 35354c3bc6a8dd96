"""C signatures of the reduction kernels (webflow/wasm/reduce.c), declared once for c_library.function().

    wf_reduce_<op>_<t>(x, out, ndim, shape, x_strides, axis_mask) -> int status
        op: sum mean max min prod; t: f32 f64 i32 i64. Bit d of axis_mask set = axis d is reduced;
        `out` is contiguous with the kept axes' shape; strides are in elements (see size_array).
    wf_sum_blocks_f32(x, out, partials, blocks, block_rows, columns, threads) -> int status
        x [blocks * block_rows, columns]: each block's column sums into partials [blocks, columns] (on the C
        library's threads), then those in block order into out: Sum over a float32 array's leading axes.
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import parallel
from webflow.backends.c.adapters import (
    FLOATS,
    NUMBERS,
    PARALLEL_ELEMENTS,
    Unsupported,
    c_kernel,
    check,
    contiguous,
    empty,
    flat_ints,
    fn,
    prod,
    ptr,
    suffix,
)
from webflow.backends.c.elementwise import MAX_DIMS, size_array
from webflow.backends.c.library import INT, PTR, SIZE, declare
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

REDUCTIONS = ("sum", "mean", "max", "min", "prod")


def axis_mask(axes: list | tuple, ndim: int) -> int:
    """The kernels' axis bit mask for `axes` (negative axes count from the end)."""
    mask = 0
    for axis in axes:
        mask |= 1 << (int(axis) % ndim if ndim else 0)
    return mask


for _suffix in ("f32", "f64", "i32", "i64"):
    for _name in REDUCTIONS:
        declare(f"wf_reduce_{_name}_{_suffix}", [PTR, PTR, INT, PTR, PTR, INT], INT)
declare("wf_sum_blocks_f32", [PTR, PTR, PTR, SIZE, SIZE, SIZE, SIZE], INT)
for _suffix in ("f32", "f64"):
    declare(f"wf_sum_all_{_suffix}", [PTR, SIZE, PTR, PTR, SIZE], INT)
declare("wf_sum_chunks", [SIZE], SIZE)


# --- reductions over an axis mask -------------------------------------------------------------------
def _reduce(stem: str, allowed: tuple) -> Any:
    def adapter(x: Any, axes: Any, *, keep_dims: bool) -> Any:
        c_suffix = suffix(x, allowed)
        if x.ndim > MAX_DIMS:
            raise Unsupported("rank")
        axis_list = flat_ints(axes)
        for a in axis_list:  # TF's run-time error (without NumPy no fallback kernel would raise it)
            if not -max(x.ndim, 1) <= a < max(x.ndim, 1):
                raise InvalidArgumentError(None, None, f"Invalid reduction dimension ({a} for input with "
                                                       f"{x.ndim} dimension(s)")
        reduced = {a % x.ndim for a in axis_list}
        kept = [d for i, d in enumerate(x.shape) if i not in reduced]
        x = contiguous(x)
        out = empty(kept, x.dtype)
        strides = [s // x.itemsize for s in x.strides]
        status = fn(f"wf_reduce_{stem}_{c_suffix}")(ptr(x), ptr(out), x.ndim, size_array(x.shape),
                                                    size_array(strides), axis_mask(sorted(reduced), x.ndim))
        check(status, stem)
        if keep_dims:
            out = out.reshape([1 if i in reduced else d for i, d in enumerate(x.shape)])
        return out

    adapter.__name__ = f"c_reduce_{stem}"
    adapter.__doc__ = f"wf_reduce_{stem}_<t>: y = {stem} of x over axes."
    return adapter


# --- a whole float array's Sum and Mean: one pass shared out over the C library's threads ------------------
# NumPy sums on one thread; TensorFlow shares the pass over its threads (wasm/sum_threads.c).
SUM_ALL_MIN = 1 << 16
_SUM_ALL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64)) if HAVE_NUMPY else ()


def _sum_all(x: Any, axes: Any, keep_dims: bool) -> Any:
    """The sum of every element of a float NumPy array x when `axes` name all of its axes, else None."""
    if not HAVE_NUMPY or type(x) is not np.ndarray or x.dtype not in _SUM_ALL_DTYPES or x.size < SUM_ALL_MIN:
        return None
    if {a + x.ndim if -x.ndim <= a < 0 else a for a in flat_ints(axes)} != set(range(x.ndim)):
        return None
    return _sum_all_into(contiguous(x), empty((1,) * x.ndim if keep_dims else (), x.dtype))


def _sum_all_into(x: Any, out: Any) -> Any:
    """out (one element) = the sum of every element of contiguous float x, by wf_sum_all_<t> on the threads."""
    partials = empty((fn("wf_sum_chunks")(x.size),), x.dtype)
    check(fn(f"wf_sum_all_{suffix(x)}")(ptr(x), x.size, ptr(partials), ptr(out), parallel.threads()), "sum_all")
    return out


def whole_sum_f32(x: Any) -> float:
    """The float32 sum of a contiguous float32 array (NumPy's or a CArray), by wf_sum_all_f32."""
    return float(_sum_all_into(x, empty((), dtypes.float32)).item())


_mean_any_axes = _reduce("mean", FLOATS)


# Mean stays float-only: the C integer mean truncates, the NumPy kernel floors (negative sums differ).
@c_kernel(dtypes=FLOATS, min_size=SUM_ALL_MIN)
def reduce_mean(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """wf_sum_all_<t> (a whole array) or wf_reduce_mean_<t>: y = mean of x over axes."""
    total = _sum_all(x, axes, keep_dims)
    if total is not None:
        return np.divide(total, x.dtype.type(x.size), out=total)
    if HAVE_NUMPY and selection.automatic():
        raise Unsupported("NumPy's mean")
    return _mean_any_axes(x, axes, keep_dims=keep_dims)


reduce_max = c_kernel(dtypes=NUMBERS)(_reduce("max", NUMBERS))
reduce_min = c_kernel(dtypes=NUMBERS)(_reduce("min", NUMBERS))
reduce_prod = c_kernel(dtypes=NUMBERS)(_reduce("prod", NUMBERS))
_sum_any_axes = _reduce("sum", NUMBERS)


# Sum over the leading axes into a short row (a bias gradient: [batch, h, w, channels] -> [channels]) runs in C
# from 64k elements: NumPy adds such short rows one by one in a slow loop (benchmarks/FIGURES.md, "Column Sums").
MAX_SUMMED_COLUMNS = 128


@c_kernel(dtypes=NUMBERS, min_size=1 << 16)
def sum_reduce(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """wf_sum_blocks_f32 (float32) or wf_reduce_sum_<t>: y = sum of x over its leading axes (a column sum);
    wf_sum_all_<t>: a whole float array."""
    total = _sum_all(x, axes, keep_dims)
    if total is not None:
        return total
    leading = _leading_axes(x, axes)
    if leading is None or not x.size or prod(x.shape[leading:]) > MAX_SUMMED_COLUMNS:
        if HAVE_NUMPY and selection.automatic():
            raise Unsupported("NumPy's sum")
        return _sum_any_axes(x, axes, keep_dims=keep_dims)
    kept = x.shape[leading:]
    summed = sum_blocks(x, leading) if x.dtype == np.float32 else _sum_in_slices(x, leading)
    return summed.reshape((1,) * leading * keep_dims + kept)


def sum_blocks(x: Any, leading: int) -> Any:
    """x summed over its first `leading` axes: each index of the first axis on its own (an image of a bias
    gradient), then those sums in order, on the C library's threads (wasm/reduce.c). The fused MaxPoolGrad
    (pool.max_pool_grad with sums) adds the same floats in the same order."""
    x = contiguous(x)
    columns = prod(x.shape[leading:])
    out, partials = empty((columns,), dtypes.float32), empty((x.shape[0], columns), dtypes.float32)
    check(fn("wf_sum_blocks_f32")(ptr(x), ptr(out), ptr(partials), x.shape[0], prod(x.shape[1:leading]), columns,
                                  parallel.threads()), "sum_blocks")
    return out


def _sum_in_slices(x: Any, leading: int) -> Any:
    """Other dtypes: a slice of rows per thread of Python's pool, the slices' sums added in order."""
    rows = contiguous(x).reshape(-1, prod(x.shape[leading:]))

    def run(start: int, stop: int) -> Any:
        return _sum_any_axes(rows[start:stop], (0,), keep_dims=False)

    # One slice per thread, not more: memory-bound, 2 threads sum no faster than one, but the C loop adds
    # row after row, and 2 partial sums keep the rounding error near NumPy's.
    slices = parallel.threads() if x.size >= PARALLEL_ELEMENTS else 1
    parts = parallel.split(rows.shape[0], run, min_part=-(-rows.shape[0] // slices))
    for part in parts[1:]:
        np.add(parts[0], part, out=parts[0])
    return parts[0]


def _leading_axes(x: Any, axes: Any) -> int | None:
    """r when `axes` are exactly the first r < rank axes of a NumPy array x (a column sum), else None."""
    if not HAVE_NUMPY or type(x) is not np.ndarray:
        return None
    reduced = {a + x.ndim if -x.ndim <= a < 0 else a for a in flat_ints(axes)}
    leading = len(reduced)
    return leading if 0 < leading < x.ndim and reduced == set(range(leading)) else None
