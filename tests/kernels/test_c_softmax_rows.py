"""softmax_rows.c, the float32 Softmax and LogSoftmax shared out over threads: against float64 NumPy; the same bits
on any number of threads; NaN, -inf and +inf rows as NumPy's kernels give them; and tf.nn.softmax /
tf.nn.log_softmax running them from ROWS_MIN float32 elements (NumPy below, and for float64)."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library
from no_numpy_run import run_without_numpy

import webflow as wf
from webflow.backends import selection
from webflow.backends.c import library as c
from webflow.backends.c import softmax as c_softmax
from webflow.ops import nn_ops

require_c_library()

RNG = np.random.default_rng(11)
SHAPES = [(1, 1), (3, 1), (4, 7), (5, 16), (2, 33), (64, 10), (3, 1000), (40, 1025), (1024, 64), (2, 20000)]


def _rows(kernel: str, x: np.ndarray, threads: int) -> np.ndarray:
    out = np.full_like(x, 99)
    classes = x.shape[-1]
    c.function(kernel)(c.address(x), c.address(out), x.size // classes, classes, threads)
    return out


def rows_softmax(x: np.ndarray, threads: int) -> np.ndarray:
    return _rows("wf_softmax_rows_f32", x, threads)


def rows_log_softmax(x: np.ndarray, threads: int) -> np.ndarray:
    return _rows("wf_log_softmax_rows_f32", x, threads)


def log_oracle(x: np.ndarray) -> np.ndarray:
    """(x - max) - log(sum exp(x - max)), in float64."""
    shifted = x.astype(np.float64) - x.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def oracle(x: np.ndarray) -> np.ndarray:
    """exp(x - max) / sum, in float64 (NaN rows where NumPy's float32 kernel gives NaN)."""
    wide = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(wide - wide.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


# (kernel, float64 oracle, rtol, atol)
KINDS = {"softmax": (rows_softmax, oracle, 3e-6, 1e-8), "log_softmax": (rows_log_softmax, log_oracle, 1e-6, 1e-6)}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("shape", SHAPES)
def test_matches_float64_and_gives_one_threads_bits(shape, kind):
    kernel, expected, rtol, atol = KINDS[kind]
    x = (RNG.standard_normal(shape) * 8).astype(np.float32)
    one = kernel(x, 1)
    np.testing.assert_allclose(one, expected(x), rtol=rtol, atol=atol)
    for threads in (2, 3):
        np.testing.assert_array_equal(kernel(x, threads), one)


def test_log_softmax_rows_with_nan_and_infinities_are_numpys():
    x = (RNG.standard_normal((5, 40)) * 8).astype(np.float32)
    x[0, 3] = np.nan       # a NaN row
    x[1, :] = -np.inf      # every entry -inf: NaN (-inf - -inf)
    x[2, 4] = np.inf       # +inf: NaN
    x[3, 0] = -1000.0      # far below the maximum: about -1000 - log(sum), finite
    with np.errstate(invalid="ignore"):
        got, expected = rows_log_softmax(x, 2), nn_ops.log_softmax_kernel(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-6, atol=1e-6)


def test_rows_with_nan_and_infinities_are_numpys():
    x = (RNG.standard_normal((6, 40)) * 8).astype(np.float32)
    x[0, 3] = np.nan       # a NaN row
    x[1, :] = -np.inf      # every entry -inf: NaN (-inf - -inf)
    x[2, 4] = np.inf       # +inf: NaN (inf - inf)
    x[3, 0] = -1000.0      # far below the maximum: exactly 0
    x[4, 5] = 1000.0       # far above the others: exactly 1 and 0s
    with np.errstate(invalid="ignore"):  # (inf - inf in NumPy's kernel: the NaN row under test)
        got, expected = rows_softmax(x, 2), nn_ops.softmax_kernel(x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_allclose(got[finite], expected[finite], rtol=3e-6, atol=1e-8)
    assert got[3, 0] == 0.0 and got[4, 5] == 1.0 and np.all(got[4, np.arange(40) != 5] == 0.0)


def test_tf_softmax_runs_the_rows_kernel_from_rows_min():
    x = (RNG.standard_normal((c_softmax.ROWS_MIN // 128, 128)) * 4).astype(np.float32)
    got = wf.nn.softmax(wf.constant(x)).numpy()
    np.testing.assert_array_equal(got, rows_softmax(x, 1))    # the C kernel's bits, whatever the threads
    np.testing.assert_allclose(wf.nn.softmax(wf.constant(x.astype(np.float64))).numpy(), oracle(x), rtol=1e-12)
    if selection.automatic():  # below ROWS_MIN NumPy's kernel runs (a forced C backend, as under ASan, runs C)
        small = x[:4]
        np.testing.assert_array_equal(wf.nn.softmax(wf.constant(small)).numpy(), nn_ops.softmax_kernel(small))


def test_tf_log_softmax_runs_the_rows_kernel_from_rows_min():
    x = (RNG.standard_normal((c_softmax.ROWS_MIN // 128, 128)) * 4).astype(np.float32)
    got = wf.nn.log_softmax(wf.constant(x)).numpy()
    np.testing.assert_array_equal(got, rows_log_softmax(x, 1))    # the C kernel's bits, whatever the threads
    np.testing.assert_allclose(wf.nn.log_softmax(wf.constant(x.astype(np.float64))).numpy(), log_oracle(x),
                               rtol=1e-12, atol=1e-12)
    if selection.automatic():  # below ROWS_MIN NumPy's kernel runs
        small = x[:4]
        np.testing.assert_array_equal(wf.nn.log_softmax(wf.constant(small)).numpy(), nn_ops.log_softmax_kernel(small))


def test_without_numpy_the_rows_kernel_runs_on_c_arrays():
    """Pyodide has no NumPy: a large float32 softmax then runs softmax_rows.c on webflow's own arrays."""
    program = """import json, math
import webflow as wf
from webflow.backends.c import softmax as c_softmax
classes = 256
rows = c_softmax.ROWS_MIN // classes
values = [[((r * 7 + c * 13) % 97) / 9.0 - 5.0 for c in range(classes)] for r in range(rows)]
got = wf.nn.softmax(wf.constant(values, dtype=wf.float32)).numpy().tolist()
worst = 0.0
for row, out in zip(values, got):
    top = max(row)
    total = sum(math.exp(v - top) for v in row)
    worst = max(worst, max(abs(o - math.exp(v - top) / total) / (math.exp(v - top) / total) for v, o in zip(row, out)))
print(json.dumps({"worst": worst, "rows": len(got)}))
"""
    result = run_without_numpy(program)
    assert result["rows"] == c_softmax.ROWS_MIN // 256 and result["worst"] < 3e-6
