"""Mean of 64k+ floats over leading axes takes Sum's folded path (ops/sum_mean_ops.py `_sum_leading_axes`) and
divides by the count: checked against a float64 NumPy oracle, eagerly and in a graph, shapes and dtypes kept."""

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf1

CASES = [((1 << 20,), None, False), ((1 << 18,), 0, True), ((4096, 32), 0, False), ((64, 32, 32, 16), [0, 1, 2], True),
         ((300, 1000), None, False)]


def oracle(x: np.ndarray, axis, keepdims: bool) -> np.ndarray:
    axes = None if axis is None else tuple(np.atleast_1d(axis))
    return np.mean(x.astype(np.float64), axis=axes, keepdims=keepdims)


@pytest.mark.parametrize("shape, axis, keepdims", CASES)
# float32: 1e-5 (the C mean, run when the native backend is forced, adds 65k floats in order: ~6e-6 relative)
@pytest.mark.parametrize("dtype, tolerance", [(np.float32, 1e-5), (np.float64, 1e-13)])
def test_big_mean_eager(shape, axis, keepdims, dtype, tolerance):
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype) + 0.5
    y = wf.reduce_mean(wf.constant(x), axis=axis, keepdims=keepdims).numpy()
    expected = oracle(x, axis, keepdims)
    assert y.dtype == dtype and y.shape == expected.shape
    np.testing.assert_allclose(y, expected, rtol=tolerance, atol=tolerance)


def test_big_mean_graph():
    x = np.random.default_rng(1).standard_normal((128, 28, 28, 8)).astype(np.float32)
    graph = tf1.Graph()
    with graph.as_default():
        fed = tf1.placeholder(tf1.float32, x.shape)
        whole, per_channel = tf1.reduce_mean(fed), tf1.reduce_mean(fed, axis=[0, 1, 2])
        with tf1.Session(graph=graph) as session:
            got_whole, got_channels = session.run([whole, per_channel], {fed: x})
    np.testing.assert_allclose(got_whole, oracle(x, None, False), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_channels, oracle(x, [0, 1, 2], False), rtol=1e-5, atol=1e-6)
    assert got_channels.shape == (8,) and got_channels.dtype == np.float32
