"""The fast paths of the Deep MNIST CNN step (benchmarks/cnn_throughput.py) against independent references:
convolutions and MaxPoolGrad split over threads (backends/c/parallel.py), blocked im2col, the folded bias-gradient
Sum, and run targets that are always run (TensorFlow's grappler keeps fetch nodes)."""

from __future__ import annotations

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.c import parallel
from webflow.backends.numpy import conv as conv_kernels
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.sum_mean_ops import sum_kernel

SAME = ((1, 1), (1, 1), "SAME", ((0, 0), (0, 0)))


def _conv_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Direct float64 loops over the kernel offsets (SAME, stride 1): no im2col, no GEMM."""
    kh, kw = w.shape[:2]
    top, left = (kh - 1) // 2, (kw - 1) // 2
    padded = np.pad(x.astype(np.float64), ((0, 0), (top, kh - 1 - top), (left, kw - 1 - left), (0, 0)))
    n, h, width, _ = x.shape
    y = np.zeros((n, h, width, w.shape[3]))
    for p in range(kh):
        for q in range(kw):
            y += padded[:, p:p + h, q:q + width, :] @ w[p, q].astype(np.float64)
    return y


@pytest.fixture(params=[1, 2], ids=["one-thread", "two-threads"])
def threads(request: pytest.FixtureRequest) -> int:
    before = parallel.threads()
    parallel.set_threads(request.param)
    yield request.param
    parallel.set_threads(before)


@pytest.mark.parametrize("batch", [1, 9, 50])
@pytest.mark.parametrize("depth", [1, 32], ids=["channel-major", "chunked"])
def test_conv_paths_match_direct_loops(threads: int, batch: int, depth: int) -> None:
    rng = np.random.default_rng(batch)
    x = rng.standard_normal((batch, 14, 14, depth)).astype(np.float32)
    w = rng.standard_normal((5, 5, depth, 64)).astype(np.float32)
    dy = rng.standard_normal((batch, 14, 14, 64)).astype(np.float32)
    y = conv_kernels.conv2d(x, w, *SAME)
    np.testing.assert_allclose(y, _conv_reference(x, w), rtol=1e-4, atol=1e-3)
    # gradients: <conv(x, w), dy> is linear in x and in w, so its gradients are checked by finite sums
    dw = conv_kernels.conv2d_backprop_filter(x, w.shape, dy, *SAME)
    dw_ref = np.einsum("nhwk,nhwpqc->pqck", dy.astype(np.float64),
                       conv_kernels._windows(np.pad(x.astype(np.float64), ((0, 0), (2, 2), (2, 2), (0, 0))),
                                             (5, 5), (14, 14), (1, 1), (1, 1)))
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=1e-2)
    with tf.Graph().as_default():
        xv, wv = tf.constant(x), tf.constant(w)
        dx = tf.gradients(tf.nn.conv2d(xv, wv, [1, 1, 1, 1], "SAME"), xv, grad_ys=tf.constant(dy))[0]
        with tf.Session() as sess:
            dx_value = sess.run(dx)
    flipped = w[::-1, ::-1].transpose(0, 1, 3, 2)   # dx = dy convolved with the flipped, transposed filter
    np.testing.assert_allclose(dx_value, _conv_reference(dy, flipped), rtol=1e-4, atol=1e-3)


def test_max_pool_grad_split_matches_numpy(threads: int) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((40, 28, 28, 32)).astype(np.float32)
    x[:, 0, 1] = x[:, 0, 0]   # ties: the first maximum gets the gradient
    with tf.Graph().as_default():
        xv = tf.constant(x)
        y = tf.nn.max_pool(xv, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        g = rng.standard_normal((40, 14, 14, 32)).astype(np.float32)
        dx = tf.gradients(y, xv, grad_ys=tf.constant(g))[0]
        with tf.Session() as sess:
            value = sess.run(dx)
    windows = x.reshape(40, 14, 2, 14, 2, 32).transpose(0, 1, 3, 5, 2, 4).reshape(40, 14, 14, 32, 4)
    first = windows.argmax(axis=-1)   # argmax takes the first of equal maxima, as TensorFlow's kernel
    expected = np.zeros_like(windows)
    np.put_along_axis(expected, first[..., None], g[..., None], axis=-1)
    expected = expected.reshape(40, 14, 14, 32, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(x.shape)
    np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("count", [5, 3 * (1 << 17) + 5])
def test_sliced_elementwise_kernels_match_numpy(threads: int, count: int) -> None:
    """Relu, ReluGrad and Sigmoid cut into slices on threads (adapters.call_sliced) vs NumPy's formulas."""
    from webflow.backends.c import library as c_library  # noqa: F401  (registers the adapters)

    if not c_library.available():
        pytest.skip("no C kernels here")
    rng = np.random.default_rng(count)
    x, g = rng.standard_normal(count).astype(np.float32), rng.standard_normal(count).astype(np.float32)
    x[::7] = 0.0   # ReluGrad passes nothing where the feature is exactly 0
    np.testing.assert_array_equal(c_elementwise.relu(x), np.maximum(x, 0))
    np.testing.assert_array_equal(c_elementwise.relu_grad(g, x), np.where(x > 0, g, 0))
    np.testing.assert_allclose(c_elementwise.sigmoid(x), 1 / (1 + np.exp(-x.astype(np.float64))), rtol=1e-6)


@pytest.mark.parametrize("x_shape, y_shape", [((600, 500), (500,)), ((600, 500), (600, 1)), ((600, 500), (600, 500)),
                                              ((1, 600, 500), (7, 1, 1)), ((3, 5), (5,))])
def test_sliced_broadcasting_add_matches_numpy(threads: int, x_shape: tuple, y_shape: tuple) -> None:
    """AddV2 cut along its first output dimension into slices on threads, with either side broadcast."""
    from webflow.backends.c import library as c_library

    if not c_library.available():
        pytest.skip("no C kernels here")
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.int32):
        x = (rng.standard_normal(x_shape) * 100).astype(dtype)
        y = (rng.standard_normal(y_shape) * 100).astype(dtype)
        np.testing.assert_array_equal(c_elementwise.add(x, y), x + y)
        np.testing.assert_array_equal(c_elementwise.add(y, x), y + x)


@pytest.mark.parametrize("shape, axes", [((50, 28, 28, 32), (0, 1, 2)), ((64, 32, 16), (0, 1)), ((4096, 8), (0,))])
def test_folded_sum_matches_float64(shape: tuple, axes: tuple) -> None:
    x = np.random.default_rng(1).random(shape, dtype=np.float32)
    for keep in (False, True):
        got = sum_kernel(x, np.array(axes), keep_dims=keep)
        want = x.astype(np.float64).sum(axis=axes, keepdims=keep)
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5)


def test_run_target_always_runs_but_control_only_ops_are_pruned() -> None:
    # TensorFlow 2.x: sess.run(matmul.op) of mismatched shapes raises; a group over it in a graph large
    # enough for grappler does not (the MatMul is only reached through a control edge)
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, None)
        c = a
        for _ in range(6):
            c = c + 1.0
        bad = tf.matmul(a, a)
        group = tf.group(bad, c)
        with tf.Session() as sess:
            sess.run(group, {a: [[1.0, 2.0]]})
            with pytest.raises(InvalidArgumentError):
                sess.run(bad.op, {a: [[1.0, 2.0]]})
