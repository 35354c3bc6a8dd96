"""Softmax's big-input path (ops/nn_ops.py, SOFTMAX_IN_PLACE_MIN: exp and division written over one array)
against a float64 NumPy oracle, eagerly and in a graph; the input is left unchanged."""

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.ops import nn_ops


def oracle(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("dtype, tolerance", [(np.float32, 1e-6), (np.float64, 1e-12)])
def test_big_softmax_eager_matches_oracle(dtype, tolerance):
    x = np.random.default_rng(0).standard_normal((300, 1000)).astype(dtype) * 5
    assert x.size >= nn_ops.SOFTMAX_IN_PLACE_MIN
    before = x.copy()
    y = wf.nn.softmax(wf.constant(x)).numpy()
    assert y.dtype == dtype and y.shape == x.shape
    np.testing.assert_allclose(y, oracle(x), rtol=tolerance * 10, atol=tolerance)
    np.testing.assert_array_equal(x, before)


def test_big_softmax_graph_matches_small_path():
    x = np.random.default_rng(1).standard_normal((2, 512, 512)).astype(np.float32)
    graph = tf1.Graph()
    with graph.as_default():
        fed = tf1.placeholder(tf1.float32, [2, 512, 512])
        out = tf1.nn.softmax(fed)
        with tf1.Session(graph=graph) as session:
            big = session.run(out, {fed: x})
    np.testing.assert_allclose(big, oracle(x), rtol=1e-5, atol=1e-6)
    small = np.concatenate([wf.nn.softmax(wf.constant(x[:, i:i + 8])).numpy() for i in range(0, 512, 8)], axis=1)
    np.testing.assert_allclose(big, small, rtol=1e-6, atol=1e-7)
