"""C kernel adapters for the math ops: elementwise unary/binary, ReluGrad, reductions, MatMul, Cast.

Each adapter has its NumPy kernel's signature (ops/math_ops.py, unary_math_ops.py, binary_math_ops.py,
nn_ops.py, reduction_ops.py) and calls the C function named after the op stanza's `c_kernel=`.
The `min_size` numbers are the automatic policy (see backends/selection.py for how they were measured).
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import cast as c_cast  # noqa: F401  (the C signatures)
from webflow.backends.c import elementwise as c_elementwise  # noqa: F401  (the C signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: F401  (the C signatures)
from webflow.backends.c import parallel
from webflow.backends.c import reduce as c_reduce  # noqa: F401  (the C signatures)
from webflow.backends.c.activation_adapters import same_shapes
from webflow.backends.c.adapters import (
    FLOATS,
    NUMBERS,
    PARALLEL_ELEMENTS,
    Unsupported,
    broadcast_shapes,
    c_kernel,
    call_sliced,
    check,
    contiguous,
    empty,
    empty_like,
    flat_ints,
    fn,
    prod,
    ptr,
    suffix,
    unary_adapter,
)
from webflow.backends.c.elementwise import MAX_DIMS, size_array
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

INTEGER_UNARY = NUMBERS   # neg abs square relu also exist for i32/i64


# --- unary (contiguous): y[i] = f(x[i]) ---------------------------------------------------------------
# measured (selection.py): NumPy's loops here use AVX-512 (its exp/tanh/sigmoid too), and a ctypes call
# costs ~5 us, so only relu on large arrays runs in C automatically; the rest when forced.
neg = c_kernel(dtypes=NUMBERS)(unary_adapter("neg", NUMBERS))
absolute = c_kernel(dtypes=NUMBERS)(unary_adapter("abs", NUMBERS))
square = c_kernel(dtypes=NUMBERS)(unary_adapter("square", NUMBERS))
sqrt = c_kernel(dtypes=FLOATS)(unary_adapter("sqrt", FLOATS))
rsqrt = c_kernel(dtypes=FLOATS)(unary_adapter("rsqrt", FLOATS))
reciprocal = c_kernel(dtypes=FLOATS)(unary_adapter("reciprocal", FLOATS))
relu = c_kernel(dtypes=NUMBERS, min_size=65536)(unary_adapter("relu", NUMBERS))
exp = c_kernel(dtypes=FLOATS)(unary_adapter("exp", FLOATS))
log = c_kernel(dtypes=FLOATS)(unary_adapter("log", FLOATS))
tanh = c_kernel(dtypes=FLOATS)(unary_adapter("tanh", FLOATS))
sigmoid = c_kernel(dtypes=FLOATS)(unary_adapter("sigmoid", FLOATS))


@c_kernel(dtypes=NUMBERS, min_size=8192)
def relu_grad(gradients: Any, features: Any) -> Any:
    """wf_relu_grad_<t>: backprops = gradients where features > 0, else 0."""
    c_suffix = suffix(gradients, NUMBERS)
    if features.dtype != gradients.dtype:
        raise Unsupported("dtypes")
    same_shapes("ReluGrad", gradients, features)
    gradients, features = contiguous(gradients), contiguous(features)
    out = empty_like(gradients)
    call_sliced(f"wf_relu_grad_{c_suffix}", [gradients, features, out], out.size)
    return out


# --- binary with broadcasting: strides 0 on broadcast dimensions --------------------------------------
def broadcast_strides(array: Any, shape: tuple) -> list:
    """Element strides of a contiguous `array` read as broadcast to `shape` (0 where it is broadcast)."""
    lead = len(shape) - array.ndim
    strides = [0] * lead
    for dim, size, stride in zip(shape[lead:], array.shape, array.strides):
        strides.append(0 if size == 1 and dim != 1 else stride // array.itemsize)
    return strides


def _row_major(shape: tuple) -> list:
    """Element strides of a contiguous array of `shape`."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return strides[::-1]


def _broadcast_plan(x_shape: tuple, y_shape: tuple) -> tuple:
    """(output shape, and the C arrays of its shape and of x's and y's broadcast strides) for two shapes.

    Made once per pair of shapes (a training step repeats the same few): computing them on every call
    cost ~10 us per binary op in Pyodide."""
    key = (x_shape, y_shape)
    found = _BROADCAST_PLANS.get(key)
    if found is None:
        shape = broadcast_shapes(x_shape, y_shape)
        if len(_BROADCAST_PLANS) >= 1024:
            _BROADCAST_PLANS.clear()
        found = _BROADCAST_PLANS[key] = (shape, size_array(shape), *(
            size_array(_broadcast_element_strides(s, shape)) for s in (x_shape, y_shape)))
    return found


def _broadcast_element_strides(own: tuple, shape: tuple) -> list:
    """broadcast_strides for a contiguous array of shape `own` (0 where it is broadcast)."""
    lead = len(shape) - len(own)
    return [0] * lead + [0 if size == 1 and dim != 1 else stride
                         for dim, size, stride in zip(shape[lead:], own, _row_major(own))]


_BROADCAST_PLANS: dict[tuple, tuple] = {}


def _binary(stem: str, allowed: tuple) -> Any:
    def adapter(x: Any, y: Any) -> Any:
        c_suffix = suffix(x, allowed)
        if y.dtype != x.dtype:
            raise Unsupported("mixed dtypes")
        shape, c_shape, x_strides, y_strides = _broadcast_plan(tuple(x.shape), tuple(y.shape))
        if len(shape) > MAX_DIMS:
            raise Unsupported("rank")
        out = empty(shape, x.dtype)
        if out.size:
            x, y = contiguous(x), contiguous(y)
            if out.size >= 2 * PARALLEL_ELEMENTS and shape[0] > 1 and parallel.threads() > 1:
                _binary_sliced(f"wf_{stem}_{c_suffix}", x, y, out, shape, x_strides, y_strides)
            else:
                status = fn(f"wf_{stem}_{c_suffix}")(ptr(x), ptr(y), ptr(out), len(shape), c_shape, x_strides,
                                                     y_strides)
                check(status, stem)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: z = {stem}(x, y), broadcasting."
    return adapter


def _binary_sliced(name: str, x: Any, y: Any, out: Any, shape: tuple, x_strides: Any, y_strides: Any) -> None:
    """A big broadcasting binary op cut along its first dimension into slices on parallel threads."""
    function, rows, row = fn(name), shape[0], prod(shape[1:])
    x_row, y_row = x_strides[0] * x.itemsize, y_strides[0] * y.itemsize  # 0 where that input is broadcast
    x_at, y_at, out_at = ptr(x), ptr(y), ptr(out)

    def run(start: int, stop: int) -> int:
        part = size_array((stop - start,) + tuple(shape[1:]))
        return function(x_at + start * x_row, y_at + start * y_row, out_at + start * row * out.itemsize,
                        len(shape), part, x_strides, y_strides)

    for status in parallel.split(rows, run, min_part=max(1, PARALLEL_ELEMENTS // max(row, 1))):
        check(status, name)


# measured: NumPy's add/mul loops equal the C ones on contiguous data and a ctypes call with 7 arguments
# costs ~3 us more than a ufunc call, so plain arithmetic runs in C only when forced; except big AddV2s
# (a conv layer's bias add), which the C kernel splits over threads: [50,28,28,32] + [32] 0.71 -> 0.51 ms,
# [128,28,28,32] + [32] 1.69 -> 1.18 ms (2 threads, one core busy with another job).
add = c_kernel(dtypes=NUMBERS, min_size=2 * PARALLEL_ELEMENTS)(_binary("add", NUMBERS))
sub = c_kernel(dtypes=NUMBERS)(_binary("sub", NUMBERS))
mul = c_kernel(dtypes=NUMBERS)(_binary("mul", NUMBERS))
maximum = c_kernel(dtypes=NUMBERS)(_binary("maximum", NUMBERS))
minimum = c_kernel(dtypes=NUMBERS)(_binary("minimum", NUMBERS))
squared_difference = c_kernel(dtypes=NUMBERS)(_binary("squared_difference", NUMBERS))
div = c_kernel(dtypes=FLOATS)(_binary("div", FLOATS))


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
                                                    size_array(strides), c_reduce.axis_mask(sorted(reduced), x.ndim))
        check(status, stem)
        if keep_dims:
            out = out.reshape([1 if i in reduced else d for i, d in enumerate(x.shape)])
        return out

    adapter.__name__ = f"c_reduce_{stem}"
    adapter.__doc__ = f"wf_reduce_{stem}_<t>: y = {stem} of x over axes."
    return adapter


# Mean stays float-only: the C integer mean truncates, the NumPy kernel floors (negative sums differ).
reduce_mean = c_kernel(dtypes=FLOATS)(_reduce("mean", FLOATS))
reduce_max = c_kernel(dtypes=NUMBERS)(_reduce("max", NUMBERS))
reduce_min = c_kernel(dtypes=NUMBERS)(_reduce("min", NUMBERS))
reduce_prod = c_kernel(dtypes=NUMBERS)(_reduce("prod", NUMBERS))
_sum_any_axes = _reduce("sum", NUMBERS)


# Sum over the leading axes into a short row (a bias gradient: [batch, h, w, channels] -> [channels]) runs
# in C from 64k elements: NumPy adds such short rows one by one in a slow loop. One thread, float32, ms:
# [50,28,28,32] 0.92 -> 0.31, [128,28,28,32] 2.57 -> 0.76, [128,14,14,64] 0.68 -> 0.37; [4096,16] 0.107 ->
# 0.045 (2-vCPU Xeon). NumPy keeps long rows ([1024,64] a tie, [256,256] 0.016 -> 0.025) and every other Sum
# (a whole-array Sum of 100k: 23 -> 39 us) unless the backend is forced.
MAX_SUMMED_COLUMNS = 128


@c_kernel(dtypes=NUMBERS, min_size=1 << 16)
def sum_reduce(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """wf_sum_blocks_f32 (float32) or wf_reduce_sum_<t>: y = sum of x over its leading axes (a column sum)."""
    leading = _leading_axes(x, axes)
    if leading is None or not x.size or prod(x.shape[leading:]) > MAX_SUMMED_COLUMNS:
        if HAVE_NUMPY and _automatic():
            raise Unsupported("NumPy's sum")
        return _sum_any_axes(x, axes, keep_dims=keep_dims)
    kept = x.shape[leading:]
    summed = sum_blocks(x, leading) if x.dtype == np.float32 else _sum_in_slices(x, leading)
    return summed.reshape((1,) * leading * keep_dims + kept)


def sum_blocks(x: Any, leading: int) -> Any:
    """x summed over its first `leading` axes: each index of the first axis on its own (an image of a bias
    gradient), then those sums in order, on the C library's threads (wasm/reduce.c). The fused MaxPoolGrad
    (c_kernels_nn.max_pool_grad with sums) adds the same floats in the same order."""
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


def _automatic() -> bool:
    """Whether each op picks its backend (rather than every op being forced to C)."""
    return selection.STATE.forced is None


def _leading_axes(x: Any, axes: Any) -> int | None:
    """r when `axes` are exactly the first r < rank axes of a NumPy array x (a column sum), else None."""
    if not HAVE_NUMPY or type(x) is not np.ndarray:
        return None
    reduced = {a + x.ndim if -x.ndim <= a < 0 else a for a in flat_ints(axes)}
    leading = len(reduced)
    return leading if 0 < leading < x.ndim and reduced == set(range(leading)) else None


# --- MatMul: one GEMM call with the transposes folded into the packing ----------------------------
def _gemm_args(a_shape: Any, b_shape: Any, transpose_a: bool, transpose_b: bool) -> tuple:
    m, k = (a_shape[1], a_shape[0]) if transpose_a else a_shape[-2:]
    k_b, n = (b_shape[1], b_shape[0]) if transpose_b else b_shape[-2:]
    return m, n, k, k_b


# Float32 products with a thin side run gemm_thin.c's kernels, natively from 2^22 multiply-adds: a few rows
# times a wide matrix (a dense layer's forward at a small batch), a short sum of outer products (its weight
# gradient) and a few rows times a transposed matrix (its input gradient, dy W^T). Every other MatMul runs
# NumPy's BLAS unless the backend is forced to C (then wf_gemm). The Deep MNIST CNN's fc1 at batch 50,
# OpenBLAS -> C, ms: min / median of 100 interleaved calls on one thread, 50x3136 @ 3136x1024 3.04/3.31 ->
# 2.50/2.85, 3136x50 @ 50x1024 2.56/2.78 -> 2.39/2.55; in the training step on 2 threads (the min over 20
# traced steps, both in one process, alternating) forward 2.09 -> 1.62, weight gradient 1.73 -> 1.38. The
# input gradient, 50x1024 @ (3136x1024)^T, min of 100 interleaved calls: one thread 4.08 -> 2.74, two
# 2.74-2.81 -> 1.75-1.80; whole training steps switching between the two every 4 steps in one process,
# median 29.5 -> 28.5, 32.0 -> 29.2 and 31.4 -> 30.4 (three processes, a noisy VM). At batch 128, blocks of
# 10 calls on 2 threads, OpenBLAS -> C, min / median: forward 3.57-3.63/5.1-5.2 -> 3.42-3.51/4.5-4.8, input
# gradient 3.70-3.77/5.4 -> 3.03-3.06/3.7, weight gradient 3.06-3.13/4.15-4.28 -> 3.57-3.69/4.34-4.52: the
# weight gradient alone is slower, but with all three in C, OpenBLAS's own thread (woken by each of its
# products, beside webflow's two) went from 16.8 ms of CPU per step to 0.2, and the process from 130 ms of CPU
# per step to 111 (steps of 71 and 61 ms, one process each). Whole steps at batch 128, THIN_MAX switched
# between 64 and 128 every 8 steps (the first 4 not timed), median 69.6 -> 68.6, 69.0 -> 67.4, 69.3 -> 68.0 ms.
# Without NumPy (Pyodide) wf_gemm keeps every product: measured natively only.
THIN_MAX = 128
THIN_MIN_MULTIPLY_ADDS = 1 << 22


def _thin_graph_product(op: Any) -> bool:
    """Plan time: whether this MatMul node's static shapes go to the thin kernels (unknown shapes: perhaps)."""
    a, b = (tensor.shape.as_list() if tensor.shape.rank == 2 else None for tensor in op.inputs)
    if a is None or b is None or None in a + b:
        return True  # the adapter decides on the values, and hands NumPy what it does not take
    transposes = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    m, n, k, k_b = _gemm_args(a, b, *transposes)
    c_suffix = "f32" if op.inputs[0].dtype.base_dtype.name == "float32" else ""
    return k == k_b and _thin_kernel(c_suffix, m, n, k, *transposes) is not None


@c_kernel(dtypes=FLOATS, min_size=1 << 14, wins=_thin_graph_product)
def matmul(a: Any, b: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    """wf_gemm_<t>: C = op(A) op(B) (float32 with a thin side: wf_gemm_few_rows_f32 / wf_gemm_outer_f32)."""
    c_suffix = suffix(a)
    if b.dtype != a.dtype or a.ndim != 2 or b.ndim != 2:
        raise Unsupported("operands")
    m, n, k, k_b = _gemm_args(a.shape, b.shape, transpose_a, transpose_b)
    thin = _thin_kernel(c_suffix, m, n, k, transpose_a, transpose_b) if k == k_b else None
    if thin is None and HAVE_NUMPY and _automatic():
        raise Unsupported("NumPy's BLAS")
    if k != k_b:  # TF's run-time message; raised here because without NumPy (Pyodide) no fallback would say it
        raise ValueError(f"Matrix size-incompatible: In[0]: [{a.shape[0]},{a.shape[1]}], "
                         f"In[1]: [{b.shape[0]},{b.shape[1]}]")
    a, b = contiguous(a), contiguous(b)
    out = empty((m, n), a.dtype)
    if thin is not None:
        thin(m, n, k, a, b, out)
        return out
    fn(f"wf_gemm_{c_suffix}")(int(transpose_a), int(transpose_b), m, n, k, 1.0, ptr(a), a.shape[1],
                              ptr(b), b.shape[1], 0.0, ptr(out), n)
    return out


def _thin_kernel(c_suffix: str, m: int, n: int, k: int, transpose_a: bool, transpose_b: bool) -> Any:
    """_few_rows, _outer or _few_rows_transposed when the product has a thin side they take (see THIN_MAX),
    else None."""
    if not HAVE_NUMPY or c_suffix != "f32" or (transpose_a and transpose_b) or m * n * k < THIN_MIN_MULTIPLY_ADDS \
            or n % fn("wf_gemm_thin_columns")():
        return None
    if transpose_a:
        return _outer if k <= THIN_MAX else None
    if transpose_b:
        return _few_rows_transposed if m <= THIN_MAX else None
    return _few_rows if m <= THIN_MAX else None


def _few_rows(m: int, n: int, k: int, a: Any, b: Any, out: Any) -> None:
    threads = parallel.threads()
    work = empty(threads * fn("wf_gemm_few_rows_workspace")(), a.dtype)  # one workspace per thread
    fn("wf_gemm_few_rows_f32")(m, n, k, ptr(a), ptr(b), ptr(out), ptr(work), threads)


def _outer(m: int, n: int, k: int, a: Any, b: Any, out: Any) -> None:
    fn("wf_gemm_outer_f32")(m, n, k, ptr(a), ptr(b), ptr(out), parallel.threads())


def _few_rows_transposed(m: int, n: int, k: int, a: Any, b: Any, out: Any) -> None:
    work = empty(fn("wf_gemm_few_rows_transposed_workspace")(m, k), a.dtype)  # A^T, packed
    fn("wf_gemm_few_rows_transposed_f32")(m, n, k, ptr(a), ptr(b), ptr(out), ptr(work), parallel.threads())


def _dims(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _batch_offsets(batch: tuple, own: tuple) -> list:
    """For each entry of the broadcast `batch` (row-major), the index of the matrix it reads in a batch `own`."""
    own = (1,) * (len(batch) - len(own)) + tuple(own)
    strides = _broadcast_element_strides(own, batch) if batch else []
    offsets = [0]
    for dim, stride in zip(batch, strides):
        offsets = [o + i * stride for o in offsets for i in range(dim)]
    return offsets


@c_kernel(dtypes=FLOATS)
def batch_matmul(x: Any, y: Any, *, adj_x: bool, adj_y: bool) -> Any:
    """wf_gemm_batched_<t>: C[i] = op(A[i]) op(B[i]); a batch of one is shared (stride 0).

    Other batch broadcasting ([2,1] with [1,3]) runs one wf_gemm per output matrix. Bad shapes raise
    TensorFlow's run-time errors here: without NumPy (Pyodide) no fallback kernel would say them."""
    c_suffix = suffix(x)
    if y.dtype != x.dtype or x.ndim < 2 or y.ndim < 2:
        raise Unsupported("operands")
    batch_x, batch_y = tuple(x.shape[:-2]), tuple(y.shape[:-2])
    try:
        batch = broadcast_shapes(batch_x, batch_y)
    except ValueError:
        raise InvalidArgumentError(None, None, f"In[0] and In[1] must have compatible batch dimensions: "
                                               f"{_dims(x.shape)} vs. {_dims(y.shape)}") from None
    m, k = (x.shape[-1], x.shape[-2]) if adj_x else x.shape[-2:]
    k_b, n = (y.shape[-1], y.shape[-2]) if adj_y else y.shape[-2:]
    if k != k_b:
        raise InvalidArgumentError(None, None, f"Matrix size-incompatible: In[0]: {_dims(x.shape)}, "
                                               f"In[1]: {_dims(y.shape)}")
    count_x, count_y, count = int(prod(batch_x)), int(prod(batch_y)), int(prod(batch))
    x, y = contiguous(x), contiguous(y)
    out = empty(batch + (m, n), x.dtype)
    if not out.size:
        return out
    if count_x in (1, count) and count_y in (1, count) and (count_x == 1 or batch_x == batch) \
            and (count_y == 1 or batch_y == batch):
        fn(f"wf_gemm_batched_{c_suffix}")(
            int(adj_x), int(adj_y), m, n, k, 1.0, ptr(x), x.shape[-1], 0 if count_x == 1 else m * k,
            ptr(y), y.shape[-1], 0 if count_y == 1 else k * n, 0.0, ptr(out), n, m * n, count)
        return out
    gemm, size = fn(f"wf_gemm_{c_suffix}"), x.itemsize
    base_x, base_y, base_out = ptr(x), ptr(y), ptr(out)
    for i, (a, b) in enumerate(zip(_batch_offsets(batch, batch_x), _batch_offsets(batch, batch_y))):
        gemm(int(adj_x), int(adj_y), m, n, k, 1.0, base_x + a * m * k * size, x.shape[-1],
             base_y + b * k * n * size, y.shape[-1], 0.0, base_out + i * m * n * size, n)
    return out


# --- Cast -------------------------------------------------------------------------------------------
@c_kernel(dtypes=tuple(c_cast.CAST_TYPES))
def cast(x: Any, *, SrcT: Any, DstT: Any, Truncate: bool = False) -> Any:  # noqa: N803 - TF's attr names
    """wf_cast: y = x converted to DstT (TensorFlow's float -> int rules)."""
    source, target = x.dtype.name, DstT.base_dtype.name
    if source not in c_cast.CAST_TYPES or target not in c_cast.CAST_TYPES:
        raise Unsupported("dtype")
    x = contiguous(x)
    out = empty(x.shape, DstT.base_dtype)
    check(fn("wf_cast")(ptr(x), c_cast.CAST_TYPES[source], ptr(out), c_cast.CAST_TYPES[target], x.size), "cast")
    return out
