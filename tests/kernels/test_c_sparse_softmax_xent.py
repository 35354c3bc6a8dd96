"""sparse_softmax_xent.c, the float32 SparseSoftmaxCrossEntropyWithLogits shared out over threads: loss and backprop
against float64 NumPy; the same bits on any number of threads; NaN / infinite rows as NumPy's kernel gives them; a
bad label reported (int32 and int64, a huge int64 too) with nothing written; and the op running it from ROWS_MIN
float32 elements (NumPy's kernel below, and for float64)."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library
from no_numpy_run import run_without_numpy

import webflow as wf
from webflow.backends import selection
from webflow.backends.c import library as c
from webflow.backends.c import sparse_xent
from webflow.framework.errors import InvalidArgumentError
from webflow.ops import nn_ops

require_c_library()

RNG = np.random.default_rng(12)
SHAPES = [(1, 1), (3, 2), (4, 7), (5, 16), (2, 33), (64, 10), (3, 1000), (40, 1025), (7, 10000)]


def rows_xent(logits: np.ndarray, labels: np.ndarray, threads: int) -> tuple:
    loss, backprop = np.full(logits.shape[0], 99, np.float32), np.full_like(logits, 99)
    index = "i64" if labels.dtype == np.int64 else "i32"
    status = c.function(f"wf_sparse_softmax_xent_rows_f32_{index}")(
        c.address(logits), c.address(labels), c.address(loss), c.address(backprop), *logits.shape, threads)
    return status, loss, backprop


def oracle(logits: np.ndarray, labels: np.ndarray) -> tuple:
    """log(sum exp(s)) - s[label] and softmax - one_hot, s = logits - max, in float64."""
    s = logits.astype(np.float64) - logits.max(axis=1, keepdims=True)
    e = np.exp(s)
    total = e.sum(axis=1)
    rows = np.arange(len(labels))
    backprop = e / total[:, None]
    backprop[rows, labels] -= 1.0
    return np.log(total) - s[rows, labels], backprop


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", SHAPES)
def test_matches_float64_and_gives_one_threads_bits(shape, label_dtype):
    logits = (RNG.standard_normal(shape) * 6).astype(np.float32)
    labels = RNG.integers(0, shape[1], shape[0]).astype(label_dtype)
    status, loss, backprop = rows_xent(logits, labels, 1)
    expected_loss, expected_backprop = oracle(logits, labels)
    assert status == 0
    np.testing.assert_allclose(loss, expected_loss, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(backprop, expected_backprop, rtol=3e-6, atol=3e-7)
    for threads in (2, 3):
        again = rows_xent(logits, labels, threads)
        np.testing.assert_array_equal(again[1], loss)
        np.testing.assert_array_equal(again[2], backprop)


def test_rows_with_nan_and_infinities_are_numpys():
    logits = (RNG.standard_normal((5, 40)) * 8).astype(np.float32)
    logits[0, 3] = np.nan      # a NaN row
    logits[1, :] = -np.inf     # every entry -inf: NaN (-inf - -inf)
    logits[2, 4] = np.inf      # +inf: NaN (inf - inf)
    logits[3, 0] = -1000.0     # far below the maximum: exactly 0 before the one-hot
    labels = np.array([1, 2, 3, 4, 5], np.int32)
    with np.errstate(invalid="ignore"):
        status, loss, backprop = rows_xent(logits, labels, 2)
        expected_loss, expected_backprop = nn_ops.sparse_softmax_xent_kernel(logits, labels)
    assert status == 0
    np.testing.assert_array_equal(np.isnan(loss), np.isnan(expected_loss))
    np.testing.assert_array_equal(np.isnan(backprop), np.isnan(expected_backprop))
    finite = ~np.isnan(expected_backprop)
    np.testing.assert_allclose(backprop[finite], expected_backprop[finite], rtol=3e-6, atol=3e-7)
    np.testing.assert_allclose(loss[3:], expected_loss[3:], rtol=2e-6)
    assert backprop[3, 0] == 0.0


@pytest.mark.parametrize("bad, label_dtype", [(-1, np.int32), (40, np.int32), (40, np.int64), (1 << 40, np.int64)])
def test_bad_label_is_reported_without_writing(bad, label_dtype):
    logits = RNG.standard_normal((4, 40)).astype(np.float32)
    labels = np.array([0, 5, bad, 7], label_dtype)
    status, loss, backprop = rows_xent(logits, labels, 2)
    assert status == 3  # 1 + the row of the bad label
    assert np.all(loss == 99) and np.all(backprop == 99)


def test_op_runs_the_rows_kernel_from_rows_min():
    classes = 1000
    logits = (RNG.standard_normal((sparse_xent.ROWS_MIN // classes + 1, classes)) * 4).astype(np.float32)
    labels = RNG.integers(0, classes, logits.shape[0]).astype(np.int32)
    loss = wf.nn.sparse_softmax_cross_entropy_with_logits(labels=wf.constant(labels), logits=wf.constant(logits))
    _, expected_loss, _ = rows_xent(logits, labels, 1)
    if selection.automatic():
        np.testing.assert_array_equal(loss.numpy(), expected_loss)  # the C kernel's bits, whatever the threads
        small, small_labels = logits[:4], labels[:4]
        got = wf.nn.sparse_softmax_cross_entropy_with_logits(labels=wf.constant(small_labels),
                                                             logits=wf.constant(small)).numpy()
        np.testing.assert_array_equal(got, nn_ops.sparse_softmax_xent_kernel(small, small_labels)[0])
    wide = wf.nn.sparse_softmax_cross_entropy_with_logits(labels=wf.constant(labels),
                                                          logits=wf.constant(logits.astype(np.float64))).numpy()
    np.testing.assert_allclose(wide, oracle(logits, labels)[0], rtol=1e-12)
    bad = labels.copy()
    bad[5] = classes
    with pytest.raises(InvalidArgumentError, match=f"Received a label value of {classes} which is outside the valid "
                                                   f"range of \\[0, {classes}\\)"):
        wf.nn.sparse_softmax_cross_entropy_with_logits(labels=wf.constant(bad), logits=wf.constant(logits))


def test_without_numpy_the_rows_kernel_runs_on_c_arrays():
    """Pyodide has no NumPy: large float32 logits then run sparse_softmax_xent.c on webflow's own arrays."""
    program = """import json, math
import webflow as wf
from webflow.backends.c import sparse_xent
classes = 256
rows = sparse_xent.ROWS_MIN // classes
values = [[((r * 7 + c * 13) % 97) / 9.0 - 5.0 for c in range(classes)] for r in range(rows)]
labels = [(r * 31) % classes for r in range(rows)]
got = wf.nn.sparse_softmax_cross_entropy_with_logits(labels=wf.constant(labels),
                                                     logits=wf.constant(values, dtype=wf.float32)).numpy().tolist()
worst = 0.0
for row, label, loss in zip(values, labels, got):
    top = max(row)
    expected = math.log(sum(math.exp(v - top) for v in row)) - (row[label] - top)
    worst = max(worst, abs(loss - expected) / abs(expected))
print(json.dumps({"worst": worst, "rows": len(got)}))
"""
    result = run_without_numpy(program)
    assert result["rows"] == sparse_xent.ROWS_MIN // 256 and result["worst"] < 3e-6
