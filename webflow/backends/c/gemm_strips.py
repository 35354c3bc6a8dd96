"""C signatures of the strip-packed float32 GEMM (webflow/wasm/gemm_strips.c), and when MatMul runs it.

    wf_gemm_strips_lanes() -> floats per vector of the build (16: the avx512 build)
    wf_gemm_strips_workspace(m) -> floats of scratch per thread
    wf_gemm_strips_f32(m, n, k, a, lda, transpose_a, b, ldb, transpose_b, bias, c, work, threads)
        C[m,n] = op(A) op(B) (+ bias[n], unless bias is NULL), C contiguous
    wf_gemm_strips_panels_size(m, k) -> floats of `panels`
    wf_gemm_strips_panels_f32(m, n, k, a, lda, transpose_a, b, ldb, transpose_b, bias, c, work, panels, threads)
        the same bits, a transposed A copied into `panels` as the strips first need it (see packs_a)

OpenBLAS takes this AMD EPYC for a Haswell and runs its AVX2 kernels (~120 GFLOP/s on one core); the strips'
64-byte register tiles reach ~150-250 on the word LM's products of any n (benchmarks/FIGURES.md, "Word LM").
So, with NumPy present and the avx512 build only (elsewhere OpenBLAS's own kernels were not measured against it),
float32 products from STRIPS_MIN_MULTIPLY_ADDS run here when gemm_thin.c's kernels do not take them.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c.adapters import empty, fn, ptr
from webflow.backends.c.library import INT, PTR, SIZE, VOID, declare

declare("wf_gemm_strips_lanes", [], SIZE)
declare("wf_gemm_strips_workspace", [SIZE], SIZE)
declare("wf_gemm_strips_f32", [SIZE, SIZE, SIZE, PTR, SIZE, INT, PTR, SIZE, INT, PTR, PTR, PTR, SIZE], VOID)
declare("wf_gemm_strips_panels_size", [SIZE, SIZE], SIZE)
declare("wf_gemm_strips_panels_f32", [SIZE, SIZE, SIZE, PTR, SIZE, INT, PTR, SIZE, INT, PTR, PTR, PTR, PTR, SIZE], VOID)

STRIPS_MIN_MULTIPLY_ADDS = 1 << 20  # below, a product takes < ~10 us either way
WIDE_LANES = 16
_lanes: list = []  # wf_gemm_strips_lanes(), read once


def wide_build() -> bool:
    """Whether the C library has 64-byte tiles (the avx512 build) and NumPy is here (CPython)."""
    if not HAVE_NUMPY:
        return False
    if not _lanes:
        _lanes.append(fn("wf_gemm_strips_lanes")())
    return _lanes[0] == WIDE_LANES


# A transposed A is read in place, a row of A^T per step of a tile, every strip of B again. With its rows a multiple
# of 4 KB apart those reads fall in a few sets of each cache (1024^2: 16 of the L2's 1024) and miss it; copied once
# into panels they are one stream per tile: 1024^2 took ~11% less CPU time, level with A.B. Not beyond 4 MB of A per
# k-block of 1024 rows: 2048^2 took a third longer (benchmarks/FIGURES.md, "GEMM strips: a transposed A in panels").
PACK_ROW_FLOATS = 1024  # A^T's rows this many floats apart (or a multiple): packed
PACK_MIN_COLUMNS = 256  # n: enough strips of B to pay for the copy
PACK_MAX_BLOCK_FLOATS = 1024 * 1024  # m x min(k, 1024): A's k-block, read by every strip


def packs_a(m: int, n: int, k: int, transpose_a: bool, lda: int) -> bool:
    """Whether the product copies its transposed A (rows lda floats apart) into panels before the strips read it."""
    return transpose_a and lda % PACK_ROW_FLOATS == 0 and n >= PACK_MIN_COLUMNS \
        and m * min(k, 1024) <= PACK_MAX_BLOCK_FLOATS


def strips_kernel(c_suffix: str, m: int, n: int, k: int, transpose_a: bool, transpose_b: bool) -> Any:
    """`run(m, n, k, a, b, out, bias=None)` (a, b and a float32 bias [n] contiguous, out [m, n]) when this product
    runs here, else None. `run.takes_bias`: the bias is added as each sum is stored (gemm.matmul_bias)."""
    if c_suffix != "f32" or m * n * k < STRIPS_MIN_MULTIPLY_ADDS or not wide_build():
        return None

    def run(m: int, n: int, k: int, a: Any, b: Any, out: Any, bias: Any = None) -> None:
        threads = parallel.threads()
        work = empty(threads * fn("wf_gemm_strips_workspace")(m), a.dtype)
        panels = None
        if packs_a(m, n, k, transpose_a, a.shape[1]):
            panels = empty(fn("wf_gemm_strips_panels_size")(m, k), a.dtype)  # the kernel fills what it reads
        fn("wf_gemm_strips_panels_f32")(m, n, k, ptr(a), a.shape[1], int(transpose_a), ptr(b), b.shape[1],
                                        int(transpose_b), None if bias is None else ptr(bias), ptr(out), ptr(work),
                                        None if panels is None else ptr(panels), threads)

    run.takes_bias = True
    return run
