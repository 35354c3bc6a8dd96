"""gemm_thin.c (wf_gemm_few_rows_f32, wf_gemm_outer_f32, wf_gemm_few_rows_transposed_f32) against float64
NumPy products, directly and through the MatMul adapter's policy (backends/c/gemm.py): ragged tiles,
k across blocks, threads."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

# noqa: F401  (declares the signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: F401  (declares the signatures)
from webflow.backends.c import library as c

require_c_library()

RNG = np.random.default_rng(77)


def columns(multiple: int) -> int:
    return multiple * c.function("wf_gemm_thin_columns")()


def assert_float32_product(got: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    """got ~ a @ b, measured against the float64 product: within 4 sqrt(k) float32 roundings of the terms' size
    (a sum's rounding error grows like sqrt(k) for random terms; one missing term is ~sqrt(k) times larger)."""
    exact = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)  # the terms' size, per element
    k = a.shape[1]
    assert got.shape == exact.shape and got.dtype == np.float32
    assert np.all(np.abs(got - exact) <= 4 * np.sqrt(k) * np.finfo(np.float32).eps * scale)


def few_rows(a: np.ndarray, b: np.ndarray, threads: int = 1) -> np.ndarray:
    m, k = a.shape
    out = np.full((m, b.shape[1]), np.nan, np.float32)
    work = np.empty(threads * c.function("wf_gemm_few_rows_workspace")(), np.float32)
    c.function("wf_gemm_few_rows_f32")(m, b.shape[1], k, c.address(a), c.address(b), c.address(out),
                                        c.address(work), threads)
    return out


def outer(a: np.ndarray, b: np.ndarray, threads: int = 1) -> np.ndarray:
    k, m = a.shape
    out = np.full((m, b.shape[1]), np.nan, np.float32)
    c.function("wf_gemm_outer_f32")(m, b.shape[1], k, c.address(a), c.address(b), c.address(out), threads)
    return out


def few_rows_transposed(a: np.ndarray, b: np.ndarray, threads: int = 1) -> np.ndarray:
    """a @ b.T, b given as [n, k]."""
    (m, k), n = a.shape, b.shape[0]
    out = np.full((m, n), np.nan, np.float32)
    work = np.full(c.function("wf_gemm_few_rows_transposed_workspace")(m, k), np.nan, np.float32)
    c.function("wf_gemm_few_rows_transposed_f32")(m, n, k, c.address(a), c.address(b), c.address(out),
                                                   c.address(work), threads)
    return out


# rows: one, a tile and one more, uneven tiles (29, 50), the most the policy sends; k: across the
# 256-row blocks of B (255, 256, 257, 600), and fc1's 3136
@pytest.mark.parametrize("m, n_vectors, k", [(1, 1, 1), (13, 1, 255), (14, 2, 256), (15, 1, 257), (29, 3, 600),
                                              (50, 2, 3136), (128, 1, 40)])
def test_few_rows_matches_the_float64_product(m, n_vectors, k):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, columns(n_vectors))).astype(np.float32)
    assert_float32_product(few_rows(a, b), a, b)


@pytest.mark.parametrize("m, n_vectors, k", [(1, 1, 1), (6, 1, 50), (7, 2, 64), (8, 1, 3), (100, 2, 50),
                                              (3136, 1, 50), (30, 1, 128)])
def test_outer_matches_the_float64_product(m, n_vectors, k):
    a = RNG.standard_normal((k, m)).astype(np.float32)
    b = RNG.standard_normal((k, columns(n_vectors))).astype(np.float32)
    assert_float32_product(outer(a, b), a.T, b)


# rows of A: one, part of a vector, whole vectors, beyond one tile's vectors (65, 128: two passes);
# rows of B (columns of C): fewer than a tile (plain sums), one tile, a last tile that overlaps, fc1's 3136
@pytest.mark.parametrize("m, n, k", [(1, 1, 1), (3, 5, 7), (16, 7, 300), (17, 13, 64), (50, 3136, 100),
                                     (65, 64, 33), (128, 30, 1024)])
def test_few_rows_transposed_matches_the_float64_product(m, n, k):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k)).astype(np.float32)
    assert_float32_product(few_rows_transposed(a, b), a, b.T)


@pytest.mark.parametrize("threads", [2, 3, 4])
def test_threads_share_every_unit_once(threads):
    """On several threads every column (few rows) or row (outer) is written once, the same bits as on one."""
    a = RNG.standard_normal((50, 300)).astype(np.float32)
    b = RNG.standard_normal((300, columns(16))).astype(np.float32)
    np.testing.assert_array_equal(few_rows(a, b, threads), few_rows(a, b))
    tall = RNG.standard_normal((50, 500)).astype(np.float32)
    np.testing.assert_array_equal(outer(tall, b[:50], threads), outer(tall, b[:50]))
    rows_of_b = b.T.copy()  # [n, 300]: A B^T
    np.testing.assert_array_equal(few_rows_transposed(a, rows_of_b, threads), few_rows_transposed(a, rows_of_b))


# --- the MatMul adapter: which products go to these kernels, and the same answer on 1 or 2 threads --------
# fc1 of the Deep MNIST CNN at batch 50: its forward x W, weight gradient x^T dy, input gradient dy W^T
@pytest.mark.parametrize("a_shape, b_shape, transpose_a, transpose_b", [
    ((50, 3136), (3136, 1024), False, False), ((50, 3136), (50, 1024), True, False),
    ((50, 1024), (3136, 1024), False, True)])
def test_matmul_adapter_is_thread_count_independent(automatic_backend, a_shape, b_shape, transpose_a, transpose_b):
    from webflow.backends.c import parallel
    from webflow.backends.c.gemm import matmul

    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)
    previous = parallel.threads()
    try:
        results = []
        for threads in (1, 2):
            parallel.set_threads(threads)
            results.append(matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b))
    finally:
        parallel.set_threads(previous)
    assert_float32_product(results[0], a.T if transpose_a else a, b.T if transpose_b else b)
    np.testing.assert_array_equal(results[0], results[1])


def test_matmul_adapter_leaves_other_products_to_numpy(automatic_backend):
    from webflow.backends import selection
    from webflow.backends.c.adapters import Unsupported
    from webflow.backends.c.gemm import THIN_MAX, matmul
    from webflow.backends.c.gemm_strips import wide_build

    wide = columns(4)
    not_thin = [  # (a, b, transpose_a, transpose_b): in the avx512 build gemm_strips.c takes these
        (np.ones((THIN_MAX + 1, 4096), np.float32), np.ones((4096, wide), np.float32), False, False),  # many rows
        (np.ones((THIN_MAX + 1, 4096), np.float32), np.ones((THIN_MAX + 1, wide), np.float32), True, False),
        (np.ones((THIN_MAX + 1, 4096), np.float32), np.ones((wide, 4096), np.float32), False, True),  # B^T
        (np.ones((50, 4096), np.float32), np.ones((4096, wide + 1), np.float32), False, False),       # ragged n
        (np.ones((4096, 50), np.float32), np.ones((wide, 4096), np.float32), True, True),             # both
    ]
    refused = [
        (np.ones((50, 4096), np.float64), np.ones((4096, wide), np.float64), False, False),           # float64
        (np.ones((2, 64), np.float32), np.ones((64, wide), np.float32), False, False),                # small
    ] + ([] if wide_build() else not_thin)
    for a, b, transpose_a, transpose_b in refused:
        with pytest.raises(Unsupported):
            matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)
    a, b = not_thin[0][:2]
    selection.set_backend("native")  # forced: wf_gemm runs what the thin kernels do not take
    got = matmul(a, b, transpose_a=False, transpose_b=False)
    np.testing.assert_array_equal(got, np.full((THIN_MAX + 1, wide), 4096, np.float32))
