"""Softmax, log-softmax, their gradients and the cross-entropy C kernels (webflow/wasm/softmax.c) against
webflow's NumPy kernels (webflow/ops/nn_ops.py) and float64 NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import library as c
from webflow.backends.c import softmax as c_softmax  # noqa: F401  (declares the signatures)
from webflow.ops import nn_ops

require_c_library()

RNG = np.random.default_rng(5)
SUFFIX = {np.float32: "f32", np.float64: "f64"}
TOLERANCE = {np.float32: dict(rtol=3e-6, atol=3e-6), np.float64: dict(rtol=1e-13, atol=1e-13)}
SHAPES = [(0, 5), (1, 1), (3, 1), (4, 7), (5, 8), (2, 33), (64, 10), (3, 1000)]


def logits_for(shape: tuple, dtype: type, scale: float = 5.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(dtype)


def run_rowwise(name: str, *arrays: np.ndarray) -> np.ndarray:
    rows, classes = arrays[0].shape
    out = np.full_like(arrays[0], 99)
    c.function(f"wf_{name}_{SUFFIX[arrays[0].dtype.type]}")(*[c.address(a) for a in arrays], c.address(out),
                                                             rows, classes)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_and_log_softmax(dtype, shape):
    x = logits_for(shape, dtype)
    np.testing.assert_allclose(run_rowwise("softmax", x), nn_ops.softmax_kernel(x), **TOLERANCE[dtype])
    np.testing.assert_allclose(run_rowwise("log_softmax", x), nn_ops.log_softmax_kernel(x), **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_logits_stay_finite_and_exact_limits(dtype):
    """exp(1000) overflows, but softmax is shifted by the row maximum: no inf, no NaN."""
    x = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 0.0], [50.0, 50.0, 50.0], [1e30, -1e30, 0.0]], dtype)
    probabilities = run_rowwise("softmax", x)
    with np.errstate(invalid="ignore", over="ignore"):
        expected = nn_ops.softmax_kernel(x)
    np.testing.assert_allclose(probabilities, expected, **TOLERANCE[dtype])
    assert np.isfinite(probabilities).all()
    log_probabilities = run_rowwise("log_softmax", x)
    np.testing.assert_allclose(log_probabilities, nn_ops.log_softmax_kernel(x), **TOLERANCE[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_gradients(dtype):
    x, g = logits_for((6, 13), dtype), logits_for((6, 13), dtype, 1.0)
    y = nn_ops.softmax_kernel(x)
    expected = (g - np.sum(g * y, axis=-1, keepdims=True)) * y
    np.testing.assert_allclose(run_rowwise("softmax_grad", g, y), expected, **TOLERANCE[dtype])
    log_y = nn_ops.log_softmax_kernel(x)
    expected = g - np.sum(g, axis=-1, keepdims=True) * np.exp(log_y)
    np.testing.assert_allclose(run_rowwise("log_softmax_grad", g, log_y), expected, **TOLERANCE[dtype])


def softmax_xent(logits: np.ndarray, labels: np.ndarray) -> tuple:
    rows, classes = logits.shape
    loss, backprop = np.full(rows, 99, logits.dtype), np.full_like(logits, 99)
    labels_row_stride = 0 if labels.shape[0] == 1 and rows != 1 else classes
    c.function(f"wf_softmax_xent_{SUFFIX[logits.dtype.type]}")(
        c.address(logits), c.address(labels), labels_row_stride, c.address(loss), c.address(backprop), rows, classes)
    return loss, backprop


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_cross_entropy_loss_and_backprop(dtype, shape):
    logits = logits_for(shape, dtype)
    labels = RNG.random(shape).astype(dtype)
    labels /= np.maximum(labels.sum(axis=-1, keepdims=True), 1e-3)
    loss, backprop = softmax_xent(logits, labels)
    expected_loss, expected_backprop = nn_ops.softmax_xent_kernel(logits, labels)
    tolerance = dict(TOLERANCE[dtype], atol=TOLERANCE[dtype]["atol"] * max(shape[1], 1) * 5)
    np.testing.assert_allclose(loss, expected_loss, **tolerance)
    np.testing.assert_allclose(backprop, expected_backprop, **TOLERANCE[dtype])


def test_softmax_cross_entropy_broadcasts_one_labels_row():
    logits = logits_for((5, 4), np.float32)
    labels = np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)
    loss, backprop = softmax_xent(logits, labels)
    expected_loss, expected_backprop = nn_ops.softmax_xent_kernel(logits, labels)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(backprop, expected_backprop, rtol=1e-5, atol=1e-6)


def sparse_xent(logits: np.ndarray, labels: np.ndarray) -> tuple:
    rows, classes = logits.shape
    loss, backprop = np.full(rows, 99, logits.dtype), np.full_like(logits, 99)
    index = "i32" if labels.dtype == np.int32 else "i64"
    status = c.function(f"wf_sparse_xent_{SUFFIX[logits.dtype.type]}_{index}")(
        c.address(logits), c.address(labels), c.address(loss), c.address(backprop), rows, classes)
    return status, loss, backprop


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("shape", [s for s in SHAPES if s[1] > 0])
def test_sparse_cross_entropy(dtype, label_dtype, shape):
    logits = logits_for(shape, dtype, scale=30.0)   # large logits: a shifted log-sum-exp is required
    labels = RNG.integers(0, shape[1], shape[0]).astype(label_dtype)
    status, loss, backprop = sparse_xent(logits, labels)
    assert status == 0
    expected_loss, expected_backprop = nn_ops.sparse_softmax_xent_kernel(logits, labels)
    np.testing.assert_allclose(loss, expected_loss, **dict(TOLERANCE[dtype], atol=TOLERANCE[dtype]["atol"] * 30))
    np.testing.assert_allclose(backprop, expected_backprop, **TOLERANCE[dtype])


@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
def test_sparse_cross_entropy_reports_bad_labels_without_writing(label_dtype):
    logits = logits_for((4, 3), np.float32)
    for bad_row, bad_value in [(2, 3), (0, -1), (3, 1 << 20)]:
        labels = np.array([0, 1, 2, 1], label_dtype)
        labels[bad_row] = bad_value
        status, loss, backprop = sparse_xent(logits, labels)
        assert status == bad_row + 1
        assert (loss == 99).all() and (backprop == 99).all()
