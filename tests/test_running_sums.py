"""runtime/running_sums.py: an AddN of private terms summed as the terms are made, against the same graph run with
fusion off (bit for bit), its plan, the cases it must leave alone, and the numerical gradient."""

from __future__ import annotations

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.runtime import fusion

RNG = np.random.default_rng(2611)


pytestmark = pytest.mark.usefixtures("graph_mode")  # every test in TF1 graph mode (tests/conftest.py)


def _unrolled(steps: int = 6, dtype: type = np.float32) -> tuple:
    """A weight used at every step of a tiny unrolled RNN: its gradient is one AddN of `steps` MatMul products."""
    graph = tf.Graph()
    with graph.as_default():
        w = tf.Variable(RNG.standard_normal((8, 16)).astype(dtype) * 0.3, name="w")
        h = tf.constant(RNG.standard_normal((4, 8)).astype(dtype))
        loss = 0.0
        for _ in range(steps):
            x = tf.constant(RNG.standard_normal((4, 8)).astype(dtype))
            h = tf.tanh(tf.matmul(x + h, w))[:, :8]
            loss = loss + tf.reduce_sum(h * h)
        grad = tf.gradients(loss, [w])[0]
    return graph, w, loss, grad


def _run(graph: tf.Graph, fetches: list, w: object = None, w_value: np.ndarray | None = None) -> tuple:
    with graph.as_default(), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if w_value is not None:
            w.load(w_value, sess)
        values = sess.run(fetches)
        plan = max(sess._plans.values(), key=lambda p: len(p.steps))
    return values, plan


def test_the_gradient_sum_is_streamed_and_has_the_unfused_bits(monkeypatch):
    graph, w, loss, grad = _unrolled()
    add_n = grad.op if grad.op.type == "AddN" else grad.op.inputs[0].op
    assert add_n.type == "AddN" and len(add_n.inputs) == 6
    (fused_loss, fused_grad), plan = _run(graph, [loss, grad])
    running = [step for step in plan.steps if step.op is add_n]
    assert len(running) == 5 and all(step.parts for step in running)  # x1 + x2, then one add per term
    monkeypatch.setattr(fusion, "ENABLED", False)
    (loss_value, grad_value), plan = _run(graph, [loss, grad])
    assert [step.op for step in plan.steps].count(add_n) == 1
    np.testing.assert_array_equal(fused_grad, grad_value)
    assert fused_loss == loss_value


def test_a_fetched_term_or_terms_made_out_of_order_are_left_as_one_add_n():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(RNG.standard_normal((3, 5)).astype(np.float32))
        terms = [tf.matmul(x, tf.constant(RNG.standard_normal((5, 5)).astype(np.float32))) for _ in range(4)]
        in_order, reversed_order = tf.add_n(terms), tf.add_n(terms[::-1])
    term_values = _run(graph, terms)[0]
    for total, fetched in ((in_order, [terms[1]]), (reversed_order, [])):
        values, plan = _run(graph, [total, *fetched])
        assert [step.op for step in plan.steps].count(total.op) == 1
        np.testing.assert_allclose(values[0], np.sum(term_values, axis=0), rtol=1e-5, atol=1e-5)


def test_the_streamed_gradient_matches_the_numerical_gradient():
    graph, w, loss, grad = _unrolled(steps=5, dtype=np.float64)
    (w_value, analytic), _ = _run(graph, [w, grad])
    numeric = np.zeros_like(w_value)
    epsilon = 1e-6
    for index in np.ndindex(*w_value.shape):
        shifted = w_value.copy()
        shifted[index] += epsilon
        above = _run(graph, [loss], w, shifted)[0][0]
        shifted[index] -= 2 * epsilon
        below = _run(graph, [loss], w, shifted)[0][0]
        numeric[index] = (above - below) / (2 * epsilon)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)
