"""C signatures of the GEMM kernels (webflow/wasm/gemm.c), declared once for c_library.function().

    wf_gemm_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
        C = alpha * op(A) op(B) + beta * C, row-major; op(X) = X^T when trans_x is 1
    wf_gemm_batched_<t>(trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                        beta, c, ldc, stride_c, batch)
<t> is f32 (float) or f64 (double); pointers are passed as ints from c_library.address().

And float32 products with a thin side (webflow/wasm/gemm_thin.c), on threads of the C library (parallel.c):
    wf_gemm_thin_columns() -> n must be a multiple of it;  wf_gemm_few_rows_workspace() -> floats of `work`
    wf_gemm_few_rows_f32(m, n, k, a, b, c, work, threads) C = A B for a few rows m, on `threads` threads
    wf_gemm_outer_f32(m, n, k, a, b, c, threads)          C = A^T B, A [k, m], for a short k
    wf_gemm_few_rows_transposed_workspace(m, k) -> floats of `work` for
    wf_gemm_few_rows_transposed_f32(m, n, k, a, b, c, work, threads)  C = A B^T, B [n, k], for a few rows m
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c.adapters import (
    FLOATS,
    Unsupported,
    broadcast_shapes,
    c_kernel,
    contiguous,
    empty,
    fn,
    prod,
    ptr,
    suffix,
)
from webflow.backends.c.elementwise import broadcast_element_strides
from webflow.backends.c.gemm_strips import strips_kernel
from webflow.backends.c.library import F32, F64, INT, PTR, SIZE, VOID, declare
from webflow.framework.errors import InvalidArgumentError

for _suffix, _real in (("f32", F32), ("f64", F64)):
    declare(f"wf_gemm_{_suffix}", [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, PTR, SIZE, _real, PTR, SIZE], VOID)
    declare(
        f"wf_gemm_batched_{_suffix}",
        [INT, INT, SIZE, SIZE, SIZE, _real, PTR, SIZE, SIZE, PTR, SIZE, SIZE, _real, PTR, SIZE, SIZE, SIZE],
        VOID,
    )
declare("wf_gemm_thin_columns", [], SIZE)
declare("wf_gemm_few_rows_workspace", [], SIZE)
declare("wf_gemm_few_rows_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, PTR, SIZE], VOID)
declare("wf_gemm_outer_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, SIZE], VOID)
declare("wf_gemm_few_rows_transposed_workspace", [SIZE, SIZE], SIZE)
declare("wf_gemm_few_rows_transposed_f32", [SIZE, SIZE, SIZE, PTR, PTR, PTR, PTR, SIZE], VOID)


# --- MatMul: one GEMM call with the transposes folded into the packing ----------------------------
def _gemm_args(a_shape: Any, b_shape: Any, transpose_a: bool, transpose_b: bool) -> tuple:
    m, k = (a_shape[1], a_shape[0]) if transpose_a else a_shape[-2:]
    k_b, n = (b_shape[1], b_shape[0]) if transpose_b else b_shape[-2:]
    return m, n, k, k_b


# Float32 products with a thin side (a dense layer at a small batch: its forward, weight and input gradients; an
# LSTM step's gates) run gemm_thin.c from 2^20 multiply-adds, where it beats OpenBLAS (which, multithreaded on a
# loaded machine, can take 100x longer); figures: benchmarks/FIGURES.md, "Thin MatMuls", "Small MatMuls".
THIN_MAX = 128
THIN_MIN_MULTIPLY_ADDS = 1 << 20


def _thin_graph_product(op: Any) -> bool:
    """Plan time: whether this MatMul node's static shapes go to the thin kernels (unknown shapes: perhaps)."""
    a, b = (tensor.shape.as_list() if tensor.shape.rank == 2 else None for tensor in op.inputs)
    if a is None or b is None or None in a + b:
        return True  # the adapter decides on the values, and hands NumPy what it does not take
    transposes = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    m, n, k, k_b = _gemm_args(a, b, *transposes)
    c_suffix = "f32" if op.inputs[0].dtype.base_dtype.name == "float32" else ""
    return k == k_b and _thin_kernel(c_suffix, m, n, k, *transposes) is not None


@c_kernel(dtypes=FLOATS, min_size=1 << 10, wins=_thin_graph_product)  # A's size; a thin side decides (above)
def matmul(a: Any, b: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    """wf_gemm_<t>: C = op(A) op(B) (float32 with a thin side: wf_gemm_few_rows_f32 / wf_gemm_outer_f32)."""
    c_suffix = suffix(a)
    if b.dtype != a.dtype or a.ndim != 2 or b.ndim != 2:
        raise Unsupported("operands")
    m, n, k, k_b = _gemm_args(a.shape, b.shape, transpose_a, transpose_b)
    thin = _thin_kernel(c_suffix, m, n, k, transpose_a, transpose_b) if k == k_b else None
    if thin is None and HAVE_NUMPY and selection.automatic():
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


def matmul_bias(a: Any, b: Any, bias: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    """op(A) op(B) + bias (a vector of the columns) when gemm_strips.c runs the product: it adds the bias as it
    stores each finished sum, the float add a separate BiasAdd makes (runtime/fusion.py's _FusedMatMul); else
    Unsupported."""
    c_suffix = suffix(a)
    if b.dtype != a.dtype or bias.dtype != a.dtype or a.ndim != 2 or b.ndim != 2 or bias.ndim != 1:
        raise Unsupported("operands")
    m, n, k, k_b = _gemm_args(a.shape, b.shape, transpose_a, transpose_b)
    run = _thin_kernel(c_suffix, m, n, k, transpose_a, transpose_b) if k == k_b else None
    if not getattr(run, "takes_bias", False) or bias.shape[0] != n:
        raise Unsupported("not the strips kernel")
    a, b, bias = contiguous(a), contiguous(b), contiguous(bias)
    out = empty((m, n), a.dtype)
    run(m, n, k, a, b, out, bias)
    return out


_chosen: dict = {}  # _thin_kernel's answers by product shape: a training step asks the same ~100 times


def _thin_kernel(c_suffix: str, m: int, n: int, k: int, transpose_a: bool, transpose_b: bool) -> Any:
    """_few_rows, _outer or _few_rows_transposed when the product has a thin side they take (see THIN_MAX),
    else the strips kernel where it runs (gemm_strips.py), else None."""
    key = (c_suffix, m, n, k, transpose_a, transpose_b, THIN_MAX, THIN_MIN_MULTIPLY_ADDS)  # (limits: tests change them)
    if key not in _chosen:
        if len(_chosen) > 4096:  # (shapes that vary run after run)
            _chosen.clear()
        _chosen[key] = _choose_thin_kernel(c_suffix, m, n, k, transpose_a, transpose_b)
    return _chosen[key]


def _choose_thin_kernel(c_suffix: str, m: int, n: int, k: int, transpose_a: bool, transpose_b: bool) -> Any:
    if not HAVE_NUMPY or c_suffix != "f32" or m * n * k < THIN_MIN_MULTIPLY_ADDS:
        return None
    strips = strips_kernel(c_suffix, m, n, k, transpose_a, transpose_b)  # any shape, avx512 build only
    if transpose_a and transpose_b:  # the thin kernels take one transpose at most; NumPy's BLAS was the slower
        return strips                # (benchmarks/FIGURES.md, "GEMM strips: a transposed A in panels")
    if transpose_b and m <= THIN_MAX and strips is not None:
        return _few_rows_transposed  # takes any n; faster than the strips' transposing copy at a few rows
    if n % fn("wf_gemm_thin_columns")():
        return strips
    if transpose_a:
        return _outer if k <= THIN_MAX else strips
    if transpose_b:
        return _few_rows_transposed if m <= THIN_MAX else strips
    return _few_rows if m <= THIN_MAX else strips


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
    strides = broadcast_element_strides(own, batch) if batch else []
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
