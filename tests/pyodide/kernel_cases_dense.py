"""Kernel jobs for GEMM, convolution and pooling, with their NumPy checks (run native or in Pyodide).

Each builder returns a `Case`: a kernel_jobs.Job plus the checks to run on its results. The shapes and
the NumPy references are those of tests/kernels/test_c_gemm.py, test_c_conv.py and test_c_pool.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from kernel_jobs import Job
from test_c_conv import CASES as CONV_CASES
from test_c_conv import padded_input, reference_conv, reference_filter_grad, reference_input_grad, window_slice
from test_c_gemm import SIZES as GEMM_SIZES
from test_c_gemm import TOLERANCE as GEMM_TOLERANCE
from test_c_pool import CASES as POOL_CASES
from test_c_pool import reference as pool_reference

from webflow.backends.c.conv import conv2d_shape

SUFFIX = {np.float32: "f32", np.float64: "f64"}


class Case:
    """A job and the checks `check(results, outputs)` to apply after it ran (results: one per call)."""

    def __init__(self) -> None:
        self.job = Job()
        self.checks: list[Callable] = []

    def check(self, function: Callable) -> None:
        self.checks.append(function)

    def expect_status(self, call_index: int, status: int = 0) -> None:
        def check(results: list, outputs: dict) -> None:
            assert results[call_index] == status, (self.job.calls[call_index][0], results[call_index], status)
        self.checks.append(check)

    def verify(self, results: list, outputs: dict) -> None:
        for check in self.checks:
            check(results, outputs)


# ------------------------------------------------------------------------------------------------ GEMM
def _gemm(case: Case, rng, dtype, trans_a, trans_b, m, n, k, alpha, beta, extra=(0, 0, 0)) -> None:
    """C = alpha op(A) op(B) + beta C on row-major buffers with leading dimensions row + extra."""
    a_rows, a_cols = (k, m) if trans_a else (m, k)
    b_rows, b_cols = (n, k) if trans_b else (k, n)
    a = rng.standard_normal((a_rows, a_cols + extra[0])).astype(dtype)
    b = rng.standard_normal((b_rows, b_cols + extra[1])).astype(dtype)
    c_full = rng.standard_normal((m, n + extra[2])).astype(dtype)
    op_a, op_b = a[:, :a_cols], b[:, :b_cols]
    expected = alpha * ((op_a.T if trans_a else op_a) @ (op_b.T if trans_b else op_b)) + beta * c_full[:, :n]
    out = case.job.output(c_full)
    case.job.call(f"wf_gemm_{SUFFIX[dtype]}", trans_a, trans_b, m, n, k, alpha, case.job.input(a), a.shape[1],
                  case.job.input(b), b.shape[1], beta, out, c_full.shape[1])

    def check(results, outputs, expected=expected, untouched=c_full[:, n:].copy()):
        np.testing.assert_allclose(outputs[out][:, :n], expected, **GEMM_TOLERANCE[dtype])
        np.testing.assert_array_equal(outputs[out][:, n:], untouched)     # padding columns never written
    case.check(check)


def gemm_case(dtype: type, trans_a: int, trans_b: int) -> Case:
    """All sizes of test_c_gemm (odd, 1, >1 block), alpha/beta with leading dims, and degenerate sizes."""
    case, rng = Case(), np.random.default_rng(1234 + 2 * trans_a + trans_b)
    for m, n, k in GEMM_SIZES:
        _gemm(case, rng, dtype, trans_a, trans_b, m, n, k, 1.0, 0.0)
    for (alpha, beta), (m, n, k) in itertools.product([(0.5, 2.0), (-1.5, 1.0), (2.0, -0.25)],
                                                      [(7, 9, 11), (37, 70, 129), (129, 31, 5)]):
        _gemm(case, rng, dtype, trans_a, trans_b, m, n, k, alpha, beta, extra=(3, 5, 2))
    for m, n, k in [(0, 5, 3), (5, 0, 3), (0, 0, 0), (1, 7, 1), (7, 1, 9), (4, 6, 0)]:
        _gemm(case, rng, dtype, trans_a, trans_b, m, n, k, 1.25, 0.5)
    return case


def gemm_beta_zero_ignores_nan_case() -> Case:
    """beta = 0 overwrites C without reading it (BLAS): NaN in C must not leak into the product."""
    case, rng = Case(), np.random.default_rng(5)
    a, b = rng.standard_normal((5, 3)).astype(np.float32), rng.standard_normal((3, 9)).astype(np.float32)
    out = case.job.output(np.full((5, 9), np.nan, np.float32))
    case.job.call("wf_gemm_f32", 0, 0, 5, 9, 3, 1.0, case.job.input(a), 3, case.job.input(b), 9, 0.0, out, 9)
    case.check(lambda results, outputs: np.testing.assert_allclose(outputs[out], a @ b, rtol=1e-5, atol=1e-5))
    return case


def gemm_batched_case(dtype: type, trans_a: int, trans_b: int) -> Case:
    """Strided batches, and stride 0 for B (one B broadcast over the batch, as BatchMatMulV2)."""
    case, rng = Case(), np.random.default_rng(77 + 2 * trans_a + trans_b)
    for batch, m, n, k, stride_b_zero in [(5, 19, 23, 29, False), (3, 1, 7, 5, False), (4, 6, 10, 8, True)]:
        a = rng.standard_normal((batch, k, m) if trans_a else (batch, m, k)).astype(dtype)
        b_shape = (n, k) if trans_b else (k, n)
        b = rng.standard_normal(b_shape if stride_b_zero else (batch, *b_shape)).astype(dtype)
        c0 = rng.standard_normal((batch, m, n)).astype(dtype)
        op_a = np.swapaxes(a, 1, 2) if trans_a else a
        op_b = np.swapaxes(b, -1, -2) if trans_b else b
        expected = 0.75 * (op_a @ op_b) + 0.5 * c0
        out = case.job.output(c0)
        case.job.call(f"wf_gemm_batched_{SUFFIX[dtype]}", trans_a, trans_b, m, n, k, 0.75, case.job.input(a),
                      a.shape[2], a.shape[1] * a.shape[2], case.job.input(b), b.shape[-1],
                      0 if stride_b_zero else b.shape[1] * b.shape[2], 0.5, out, n, m * n, batch)
        case.check(lambda results, outputs, out=out, expected=expected: np.testing.assert_allclose(
            outputs[out], expected, **GEMM_TOLERANCE[dtype]))
    return case


# ------------------------------------------------------------------------------------------ convolution
def _workspace_floats(s) -> int:
    """wf_conv2d_workspace_f32's formula (the job also asks the kernel and compares)."""
    k = s.filter_height * s.filter_width * s.in_channels
    m = s.batch * s.out_height * s.out_width
    return 1 if k == 0 or m == 0 else min(m, max(128, 262144 // k)) * k


def conv_case(entry: tuple, seed: int, work_rows: int | None = None) -> Case:
    """Forward and both backprops for one geometry (a row of test_c_conv.CASES) against its references;
    `work_rows`: a workspace of only that many rows of col (the GEMMs then run chunk by chunk)."""
    input_shape, window, out_channels, strides, dilations, padding = entry
    s = conv2d_shape(input_shape, window, out_channels, strides, dilations, padding)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(input_shape).astype(np.float32)
    f = rng.standard_normal((*window, input_shape[3], out_channels)).astype(np.float32)
    dy = rng.standard_normal((s.batch, s.out_height, s.out_width, s.out_channels)).astype(np.float32)
    floats = _workspace_floats(s) if work_rows is None else work_rows * window[0] * window[1] * input_shape[3]
    case = Case()
    job = case.job
    geometry, work = job.conv(s), job.input(np.zeros(max(floats, 1), np.float32))
    out, dx, df = (job.output(np.full(shape, np.nan, np.float32)) for shape in (dy.shape, x.shape, f.shape))
    xs, fs, dys = job.input(x), job.input(f), job.input(dy)
    job.call("wf_conv2d_workspace_f32", geometry)
    job.call("wf_conv2d_f32", geometry, xs, fs, out, work, floats)
    job.call("wf_conv2d_backprop_input_f32", geometry, fs, dys, dx, work, floats)
    job.call("wf_conv2d_backprop_filter_f32", geometry, xs, dys, df, work, floats)
    case.check(lambda results, outputs: _assert_equal(results, [_workspace_floats(s), 0, 0, 0]))
    tolerance = dict(rtol=1e-4, atol=1e-4)

    def check(results, outputs):
        np.testing.assert_allclose(outputs[out], reference_conv(x, f, s), **tolerance)
        np.testing.assert_allclose(outputs[dx], reference_input_grad(f, dy, s), **tolerance)
        np.testing.assert_allclose(outputs[df], reference_filter_grad(x, dy, s), **tolerance)
    case.check(check)
    return case


def _assert_equal(got: object, expected: object) -> None:
    assert got == expected, (got, expected)


def im2col_case() -> Case:
    """im2col rows are the windows the reference reads; col2im is its adjoint: <im2col(x), y> = <x, col2im(y)>."""
    s = conv2d_shape((2, 6, 7, 3), (3, 2), 1, (2, 1), (1, 2), "SAME")
    m, k = s.batch * s.out_height * s.out_width, 3 * 2 * 3
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 6, 7, 3)).astype(np.float32)
    y = rng.standard_normal((m, k)).astype(np.float32)
    case = Case()
    col, back = case.job.output(np.zeros((m, k), np.float32)), case.job.output(np.full(x.shape, np.nan, np.float32))
    case.job.call("wf_im2col_f32", case.job.conv(s), case.job.input(x), col)
    case.job.call("wf_col2im_f32", case.job.conv(s), case.job.input(y), back)

    def check(results, outputs):
        xp = padded_input(x, s)
        for kh, kw in itertools.product(range(3), range(2)):
            rows, cols = window_slice(s, kh, kw)
            tap = (kh * 2 + kw) * 3
            np.testing.assert_array_equal(outputs[col][:, tap:tap + 3], xp[:, rows, cols, :].reshape(m, 3))
        np.testing.assert_allclose(np.vdot(outputs[col], y), np.vdot(x, outputs[back]), rtol=1e-4)
    case.check(check)
    return case


def conv_errors_case() -> Case:
    """A workspace too small for one row of col is reported (-2); a zero stride is a bad argument (-1)."""
    case = Case()
    small = conv2d_shape((1, 5, 5, 3), (3, 3), 2, padding="SAME")
    bad = conv2d_shape((1, 5, 5, 2), (3, 3), 2)
    bad.stride_height = 0
    scratch = case.job.input(np.zeros(100, np.float32))
    case.job.call("wf_conv2d_f32", case.job.conv(small), scratch, scratch, case.job.output(np.zeros(50, np.float32)),
                  scratch, 26)
    case.job.call("wf_conv2d_f32", case.job.conv(bad), scratch, scratch, scratch, scratch, 100)
    case.job.call("wf_max_pool_f32", case.job.conv(conv2d_shape((1, 4, 4, 1), (0, 2), 1)), scratch, scratch)
    case.check(lambda results, outputs: _assert_equal(results, [-2, -1, -1]))
    return case


# -------------------------------------------------------------------------------------------- pooling
def pool_case(index: int | None = None, x: np.ndarray | None = None, ksize=(3, 3), strides=(2, 2),
              padding: str = "SAME") -> Case:
    """Max/avg pooling forward and backward (TF semantics) for test_c_pool's case `index`, or for `x`."""
    rng = np.random.default_rng(900 + (index or 0))
    if index is not None:
        input_shape, ksize, strides, padding = POOL_CASES[index]
        x = rng.standard_normal(input_shape).astype(np.float32)
    s = conv2d_shape(x.shape, ksize, x.shape[3], strides, (1, 1), padding)
    out_shape = (x.shape[0], s.out_height, s.out_width, x.shape[3])
    dy = rng.standard_normal(out_shape).astype(np.float32)
    case = Case()
    job, geometry = case.job, case.job.conv(s)
    xs, dys = job.input(x), job.input(dy)
    max_out, avg_out = (job.output(np.full(out_shape, np.nan, np.float32)) for _ in range(2))
    max_grad, avg_grad = (job.output(np.full(x.shape, np.nan, np.float32)) for _ in range(2))
    job.call("wf_max_pool_f32", geometry, xs, max_out)
    job.call("wf_avg_pool_f32", geometry, xs, avg_out)
    job.call("wf_max_pool_grad_f32", geometry, xs, dys, max_grad)
    job.call("wf_avg_pool_grad_f32", geometry, dys, avg_grad)
    case.check(lambda results, outputs: _assert_equal(results, [0, 0, 0, 0]))

    def check(results, outputs):
        expected = pool_reference(x, dy, s)
        np.testing.assert_array_equal(outputs[max_out], expected[0].astype(np.float32))
        np.testing.assert_allclose(outputs[avg_out], expected[1], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(outputs[max_grad], expected[2], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(outputs[avg_grad], expected[3], rtol=1e-5, atol=1e-6)
    case.check(check)
    return case


def dense_cases() -> dict[str, Callable[[], Case]]:
    """Name -> builder, for every GEMM / conv / pool case."""
    cases: dict[str, Callable[[], Case]] = {}
    for dtype, trans_a, trans_b in itertools.product((np.float32, np.float64), (0, 1), (0, 1)):
        tag = f"{SUFFIX[dtype]}-{'T' if trans_a else 'N'}{'T' if trans_b else 'N'}"
        cases[f"gemm-{tag}"] = lambda d=dtype, a=trans_a, b=trans_b: gemm_case(d, a, b)
        cases[f"gemm-batched-{tag}"] = lambda d=dtype, a=trans_a, b=trans_b: gemm_batched_case(d, a, b)
    cases["gemm-beta-zero-nan"] = gemm_beta_zero_ignores_nan_case
    for index in range(len(CONV_CASES)):
        cases[f"conv-{index}"] = lambda i=index: conv_case(CONV_CASES[i], seed=700 + i)
    chunked = ((2, 9, 7, 3), (3, 3), 4, (1, 2), (1, 1), "SAME")
    for rows in (1, 3, 50):
        cases[f"conv-chunked-{rows}-rows"] = lambda r=rows: conv_case(chunked, seed=r, work_rows=r)
    for index, (shape, window, channels) in enumerate([((0, 5, 5, 3), (3, 3), 4), ((2, 5, 5, 0), (3, 3), 4),
                                                       ((2, 5, 5, 3), (3, 3), 0), ((2, 0, 5, 3), (1, 1), 2)]):
        entry = (shape, window, channels, (1, 1), (1, 1), "SAME")
        cases[f"conv-empty-{index}"] = lambda e=entry, i=index: conv_case(e, seed=i)
    cases["im2col-col2im"] = im2col_case
    cases["conv-pool-errors"] = conv_errors_case
    for index in range(len(POOL_CASES)):
        cases[f"pool-{index}"] = lambda i=index: pool_case(i)
    ties = np.random.default_rng(3).integers(0, 3, size=(2, 8, 7, 6)).astype(np.float32)
    for padding in ("SAME", "VALID"):
        cases[f"pool-ties-{padding}"] = lambda p=padding: pool_case(x=ties, padding=p)
        cases[f"pool-all-equal-{padding}"] = lambda p=padding: pool_case(x=np.zeros((1, 4, 4, 5), np.float32),
                                                                         ksize=(2, 2), strides=(1, 1), padding=p)
    negative = -1.0 - np.random.default_rng(4).random((1, 5, 5, 4)).astype(np.float32)
    cases["pool-negative-same"] = lambda: pool_case(x=negative)
    for shape in [(0, 4, 4, 3), (2, 4, 4, 0), (2, 0, 4, 3)]:
        cases[f"pool-empty-{'x'.join(map(str, shape))}"] = lambda s=shape: pool_case(
            x=np.zeros(s, np.float32), ksize=(2, 2), strides=(2, 2))
    return cases

