"""wf_gemm_f32/f64 and the batched variant against NumPy: all transposes, odd and empty sizes,
alpha/beta, leading dimensions larger than the row length, strided batches."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from c_helpers import require_c_library

# noqa: F401  (declares the signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: F401  (declares the signatures)
from webflow.backends.c import library as c

require_c_library()

RNG = np.random.default_rng(1234)
TOLERANCE = {np.float32: dict(rtol=2e-5, atol=2e-4), np.float64: dict(rtol=1e-12, atol=1e-11)}
SUFFIX = {np.float32: "f32", np.float64: "f64"}


def padded(rows: int, cols: int, extra: int, dtype: type) -> np.ndarray:
    """A rows x cols view of a rows x (cols + extra) array: leading dimension cols + extra."""
    full = RNG.standard_normal((rows, cols + extra)).astype(dtype)
    return full[:, :cols]


def base_address(view: np.ndarray) -> int:
    """Address of the first element of a possibly non-contiguous 2-D view (its base is contiguous)."""
    return view.__array_interface__["data"][0]


def run_gemm(dtype, trans_a, trans_b, m, n, k, alpha, beta, extra=(0, 0, 0)):
    a = padded(k, m, extra[0], dtype) if trans_a else padded(m, k, extra[0], dtype)
    b = padded(n, k, extra[1], dtype) if trans_b else padded(k, n, extra[1], dtype)
    c_full = RNG.standard_normal((m, n + extra[2])).astype(dtype)
    c_view = c_full[:, :n]
    expected = alpha * ((a.T if trans_a else a) @ (b.T if trans_b else b)) + beta * c_view
    untouched = c_full[:, n:].copy()
    c.function(f"wf_gemm_{SUFFIX[dtype]}")(
        trans_a, trans_b, m, n, k, alpha,
        base_address(a), a.shape[1] + extra[0], base_address(b), b.shape[1] + extra[1],
        beta, base_address(c_view), n + extra[2],
    )
    np.testing.assert_allclose(c_view, expected, **TOLERANCE[dtype])
    np.testing.assert_array_equal(c_full[:, n:], untouched)  # padding columns of C are never written


# (70, 37, 1030): more than one k-slice of every build (KC = 256 native, 512 in wasm), ragged m and n.
SIZES = [(1, 1, 1), (3, 5, 7), (4, 8, 16), (13, 17, 19), (64, 64, 64), (65, 33, 257), (130, 520, 300), (70, 37, 1030)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("trans_a, trans_b", list(itertools.product((0, 1), repeat=2)))
@pytest.mark.parametrize("m, n, k", SIZES)
def test_gemm_matches_numpy(dtype, trans_a, trans_b, m, n, k):
    run_gemm(dtype, trans_a, trans_b, m, n, k, alpha=1.0, beta=0.0)


@pytest.mark.parametrize("trans_a, trans_b", list(itertools.product((0, 1), repeat=2)))
@pytest.mark.parametrize("alpha, beta", [(0.5, 2.0), (-1.5, 1.0), (2.0, -0.25)])
def test_gemm_alpha_beta_and_leading_dimensions(trans_a, trans_b, alpha, beta):
    for m, n, k in [(7, 9, 11), (37, 70, 129), (129, 31, 5)]:
        run_gemm(np.float32, trans_a, trans_b, m, n, k, alpha, beta, extra=(3, 5, 2))
        run_gemm(np.float64, trans_a, trans_b, m, n, k, alpha, beta, extra=(1, 0, 7))


@pytest.mark.parametrize("m, n, k", [(0, 5, 3), (5, 0, 3), (0, 0, 0), (1, 7, 1), (7, 1, 9)])
def test_gemm_degenerate_sizes(m, n, k):
    for trans_a, trans_b in itertools.product((0, 1), repeat=2):
        run_gemm(np.float32, trans_a, trans_b, m, n, k, alpha=1.25, beta=0.5)


def test_gemm_k_zero_scales_c_and_beta_zero_ignores_nan():
    out = RNG.standard_normal((4, 6)).astype(np.float32)
    expected = 3.0 * out
    a = np.empty((4, 0), np.float32)
    b = np.empty((0, 6), np.float32)
    c.function("wf_gemm_f32")(0, 0, 4, 6, 0, 1.0, c.address(a), 1, c.address(b), 6, 3.0, c.address(out), 6)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    # beta = 0 overwrites C without reading it, as BLAS: NaN in C must not leak into the result
    a = RNG.standard_normal((5, 3)).astype(np.float32)
    b = RNG.standard_normal((3, 9)).astype(np.float32)
    out = np.full((5, 9), np.nan, np.float32)
    c.function("wf_gemm_f32")(0, 0, 5, 9, 3, 1.0, c.address(a), 3, c.address(b), 9, 0.0, c.address(out), 9)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("trans_a, trans_b", list(itertools.product((0, 1), repeat=2)))
def test_gemm_batched_strided(dtype, trans_a, trans_b):
    batch, m, n, k = 5, 19, 23, 29
    a = RNG.standard_normal((batch, k, m) if trans_a else (batch, m, k)).astype(dtype)
    b = RNG.standard_normal((batch, n, k) if trans_b else (batch, k, n)).astype(dtype)
    out = RNG.standard_normal((batch, m, n)).astype(dtype)
    op_a = np.swapaxes(a, 1, 2) if trans_a else a
    op_b = np.swapaxes(b, 1, 2) if trans_b else b
    expected = 0.75 * (op_a @ op_b) + 0.5 * out
    c.function(f"wf_gemm_batched_{SUFFIX[dtype]}")(
        trans_a, trans_b, m, n, k, 0.75, c.address(a), a.shape[2], a.shape[1] * a.shape[2],
        c.address(b), b.shape[2], b.shape[1] * b.shape[2], 0.5, c.address(out), n, m * n, batch,
    )
    np.testing.assert_allclose(out, expected, **TOLERANCE[dtype])


def test_gemm_batched_broadcasts_with_stride_zero():
    """stride_b = 0: one B for the whole batch (BatchMatMulV2 with a batch-1 operand)."""
    a = RNG.standard_normal((4, 6, 8)).astype(np.float32)
    b = RNG.standard_normal((8, 10)).astype(np.float32)
    out = np.empty((4, 6, 10), np.float32)
    c.function("wf_gemm_batched_f32")(0, 0, 6, 10, 8, 1.0, c.address(a), 8, 48, c.address(b), 10, 0,
                                      0.0, c.address(out), 10, 60, 4)
    np.testing.assert_allclose(out, a @ b, rtol=2e-5, atol=2e-5)


def test_gemm_on_array_array_buffers_without_numpy():
    """The kernels take plain array.array buffers (the Pyodide path has no NumPy)."""
    a = c.float_array([1, 2, 3, 4, 5, 6])  # 2 x 3
    b = c.float_array([1, 0, 0, 1, 1, 1])  # 3 x 2
    out = c.float_array(4)
    c.function("wf_gemm_f32")(0, 0, 2, 2, 3, 1.0, c.address(a), 3, c.address(b), 2, 0.0, c.address(out), 2)
    assert list(out) == [1 + 3, 2 + 3, 4 + 6, 5 + 6]
