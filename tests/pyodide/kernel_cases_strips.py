"""Kernel cases for the word LM's kernels in the wasm module: gemm_strips.c (narrow last strips, B read in place or
copied, transposed) and sparse_softmax_xent.c (int32 and int64 labels, a bad label), against float64 NumPy."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from kernel_cases_dense import Case

# m, n, k: B in place (few tile rows) and copied (many), last strips narrow / partial (k blocks: the native tests)
STRIPS_SIZES = [(3, 5, 7), (20, 36, 300), (57, 48, 300), (30, 200, 520), (60, 16, 17), (7, 40, 33)]


def strips_case(transpose_a: int, transpose_b: int) -> Case:
    case, rng = Case(), np.random.default_rng(260 + 2 * transpose_a + transpose_b)
    for m, n, k in STRIPS_SIZES:
        a = rng.standard_normal((k, m) if transpose_a else (m, k)).astype(np.float32)
        b = rng.standard_normal((n, k) if transpose_b else (k, n)).astype(np.float32)
        bias = rng.standard_normal(n).astype(np.float32)
        out = case.job.output(np.full((m, n), np.nan, np.float32))
        work = case.job.input(np.full((1024 + m) * 32, np.nan, np.float32))  # wf_gemm_strips_workspace(m), K_BLOCK 1024
        case.job.call("wf_gemm_strips_f32", m, n, k, case.job.input(a), a.shape[1], transpose_a, case.job.input(b),
                      b.shape[1], transpose_b, case.job.input(bias), out, work, 1)
        expected = (a.T if transpose_a else a).astype(np.float64) @ (b.T if transpose_b else b).astype(np.float64)

        def check(results: list, outputs: dict, out=out, expected=expected + bias, k=k) -> None:
            np.testing.assert_allclose(outputs[out], expected, rtol=1e-5, atol=1e-5 * np.sqrt(k))
        case.check(check)
    return case


def sparse_xent_case(label_dtype: type) -> Case:
    case, rng = Case(), np.random.default_rng(27)
    suffix = "i64" if label_dtype == np.int64 else "i32"
    for rows, classes in [(1, 1), (5, 16), (3, 1000), (7, 33)]:
        logits = (rng.standard_normal((rows, classes)) * 5).astype(np.float32)
        labels = rng.integers(0, classes, rows).astype(label_dtype)
        loss = case.job.output(np.full(rows, np.nan, np.float32))
        backprop = case.job.output(np.full((rows, classes), np.nan, np.float32))
        case.job.call(f"wf_sparse_softmax_xent_rows_f32_{suffix}", case.job.input(logits), case.job.input(labels),
                      loss, backprop, rows, classes, 1)
        case.expect_status(len(case.job.calls) - 1, 0)
        s = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
        e = np.exp(s)
        expected_backprop = e / e.sum(axis=1, keepdims=True)
        expected_backprop[np.arange(rows), labels] -= 1
        expected_loss = np.log(e.sum(axis=1)) - s[np.arange(rows), labels]

        def check(results: list, outputs: dict, loss=loss, backprop=backprop, el=expected_loss,
                  eb=expected_backprop) -> None:
            np.testing.assert_allclose(outputs[loss], el, rtol=2e-6, atol=2e-6)
            np.testing.assert_allclose(outputs[backprop], eb, rtol=3e-6, atol=3e-7)
        case.check(check)
    bad = np.array([0, 4, -1], label_dtype)
    untouched = case.job.output(np.full(3, 7.0, np.float32))
    case.job.call(f"wf_sparse_softmax_xent_rows_f32_{suffix}", case.job.input(np.zeros((3, 4), np.float32)),
                  case.job.input(bad), untouched, case.job.output(np.zeros((3, 4), np.float32)), 3, 4, 1)
    case.expect_status(len(case.job.calls) - 1, 2)  # 1 + the row of the first bad label (4 >= 4 classes)
    case.check(lambda results, outputs: np.testing.assert_array_equal(outputs[untouched], np.full(3, 7.0)))
    return case


def strips_cases() -> dict[str, Callable[[], Case]]:
    """Name -> builder."""
    cases: dict[str, Callable[[], Case]] = {}
    for transpose_a, transpose_b in [(0, 0), (1, 0), (0, 1)]:
        cases[f"gemm-strips-{'T' if transpose_a else 'N'}{'T' if transpose_b else 'N'}"] = (
            lambda a=transpose_a, b=transpose_b: strips_case(a, b))
    for label_dtype in (np.int32, np.int64):
        cases[f"sparse-xent-rows-{label_dtype.__name__}"] = lambda d=label_dtype: sparse_xent_case(d)
    return cases
