"""Stories for cond, case and while_loop: TF1 names, lazy branches, shape invariants, and gradients
checked against hand-derived values and central differences (graph mode), and against eager mode."""

from __future__ import annotations

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf
import webflow.ops.logic_ops  # noqa: F401  (comparison operators: x < 100)
from webflow.framework.errors import FailedPreconditionError


def _graph_mode() -> None:
    tf.disable_v2_behavior()


def _numerical_grad(session, output, x, feed: dict, value: float, eps: float = 1e-3) -> float:
    plus = session.run(output, {**feed, x: value + eps})
    minus = session.run(output, {**feed, x: value - eps})
    return (plus - minus) / (2 * eps)


# --- cond --------------------------------------------------------------------------------------------------
def test_cond_names_values_and_gradient_on_a_placeholder_switch():
    _graph_mode()
    x = tf.placeholder(tf.float64, [])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: x * x, lambda: 3.0 * x)
    assert y.name == "cond/Merge:0"
    (dy,) = tf.gradients(y, x)
    with tf.Session() as session:
        for switch, value in [(True, 5.0), (False, 5.0), (True, -2.0)]:
            got, grad = session.run([y, dy], {x: value, p: switch})
            assert got == (value * value if switch else 3 * value)
            assert grad == pytest.approx(2 * value if switch else 3.0)
            assert grad == pytest.approx(_numerical_grad(session, y, x, {p: switch}, value), rel=1e-6)


def test_cond_multiple_outputs_are_named_like_tf1_merges():
    _graph_mode()
    x = tf.constant(2.0)
    first = tf.cond(tf.constant(True), lambda: x * 2.0, lambda: x)
    pair = tf.cond(tf.constant(False), lambda: (x * 2.0, x), lambda: (x * 3.0, x + 1.0))
    assert first.name == "cond/Merge:0"
    assert [t.name for t in pair] == ["cond_1/Merge:0", "cond_1/Merge_1:0"]
    with tf.Session() as session:
        assert session.run(list(pair)) == [6.0, 3.0]


def test_cond_runs_only_the_taken_branch():
    _graph_mode()
    p = tf.placeholder(tf.bool, [])
    counter = tf.Variable(0.0)
    y = tf.cond(p, lambda: tf.constant(-1.0), lambda: tf.assign_add(counter, 1.0))
    with tf.Session() as session:
        session.run(counter.initializer)
        assert session.run(y, {p: True}) == -1.0
        assert session.run(counter) == 0.0  # the assign inside the other branch did not run
        assert session.run(y, {p: False}) == 1.0
        assert session.run(y, {p: False}) == 2.0


def test_cond_branch_mismatches_raise_tf_errors():
    _graph_mode()
    x = tf.constant([1.0])
    p = tf.placeholder(tf.bool)
    with pytest.raises(ValueError, match="same nested structure"):
        tf.cond(p, lambda: x, lambda: (x, x))
    with pytest.raises(ValueError, match="Received float32 from 'true_fn' and int32 from 'false_fn'"):
        tf.cond(p, lambda: x, lambda: tf.constant(1))
    with pytest.raises(TypeError, match="Python bool"):
        tf.cond(True, lambda: x, lambda: x)


def test_cond_gradient_reaches_captured_weights():
    _graph_mode()
    w = tf.Variable(np.array([1.0, -2.0]))
    x = tf.placeholder(tf.float64, [2])
    p = tf.placeholder(tf.bool, [])
    y = tf.reduce_sum(tf.cond(p, lambda: w * x * x, lambda: w + x))
    dw, dx = tf.gradients(y, [w, x])
    value = np.array([3.0, 0.5])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        gw, gx = session.run([dw, dx], {x: value, p: True})
        np.testing.assert_allclose(gw, value * value)
        np.testing.assert_allclose(gx, 2 * np.array([1.0, -2.0]) * value)
        gw, gx = session.run([dw, dx], {x: value, p: False})
        np.testing.assert_allclose(gw, [1.0, 1.0])
        np.testing.assert_allclose(gx, [1.0, 1.0])


def test_nested_cond_in_graph():
    _graph_mode()
    x = tf.placeholder(tf.float64, [])
    y = tf.cond(x > 0.0, lambda: tf.cond(x > 10.0, lambda: x * x * x, lambda: x * x), lambda: -x)
    (dy,) = tf.gradients(y, x)
    with tf.Session() as session:
        for value, expected, slope in [(20.0, 8000.0, 1200.0), (3.0, 9.0, 6.0), (-1.0, 1.0, -1.0)]:
            assert session.run([y, dy], {x: value}) == [pytest.approx(expected), pytest.approx(slope)]


def test_eager_cond_is_python_and_differentiable():
    x = wf.constant(5.0)
    for pred, expected_grad in [(True, 10.0), (False, 3.0)]:
        with wf.GradientTape() as tape:
            tape.watch(x)
            y = wf.cond(wf.constant(pred), lambda: x * x, lambda: 3.0 * x)
        assert float(tape.gradient(y, x)) == expected_grad


# --- case ------------------------------------------------------------------------------------------------------
def test_case_picks_the_first_true_pred_else_default():
    _graph_mode()
    x = tf.placeholder(tf.int32, [])
    result = tf.case([(x < 0, lambda: tf.constant(-1)), (x < 10, lambda: tf.constant(1))],
                     default=lambda: tf.constant(100))
    assert result.name == "case/cond/Merge:0"
    with tf.Session() as session:
        assert [session.run(result, {x: v}) for v in (-5, 5, 50)] == [-1, 1, 100]


def test_case_eager():
    x = wf.constant(7)
    assert int(wf.case([(x < 0, lambda: wf.constant(-1))], default=lambda: wf.constant(2))) == 2


# --- while_loop --------------------------------------------------------------------------------------------------
def test_while_doubling_gradient_is_two_to_the_number_of_iterations():
    _graph_mode()
    x = tf.placeholder(tf.float64, [])
    y = tf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [x])
    assert y.name == "while/Exit:0"
    (dy,) = tf.gradients(y, x)
    with tf.Session() as session:
        for start in (3.0, 0.7, 99.0, 150.0):
            iterations = 0
            while start * 2 ** iterations < 100:
                iterations += 1
            value, grad = session.run([y, dy], {x: start})
            assert value == start * 2 ** iterations
            assert grad == 2.0 ** iterations


def test_while_gradient_for_loop_vars_and_captured_variable():
    _graph_mode()
    w = tf.Variable(1.5, dtype=tf.float64)
    x = tf.placeholder(tf.float64, [])
    i, a = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w + x), [tf.constant(0), x])
    assert [i.name, a.name] == ["while/Exit:0", "while/Exit_1:0"]
    dx, dw = tf.gradients(a, [x, w])
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        # a3 = x w^3 + x w^2 + x w + x
        got = session.run([a, dx, dw], {x: 2.0})
        assert got[0] == pytest.approx(2.0 * (1.5 ** 3 + 1.5 ** 2 + 1.5 + 1))
        assert got[1] == pytest.approx(1.5 ** 3 + 1.5 ** 2 + 1.5 + 1)
        assert got[2] == pytest.approx(2.0 * (3 * 1.5 ** 2 + 2 * 1.5 + 1))
        assert got[1] == pytest.approx(_numerical_grad(session, a, x, {}, 2.0), rel=1e-6)


def test_while_shape_invariants():
    _graph_mode()
    start = tf.constant([1.0])
    with pytest.raises(ValueError, match=r"enters the loop with shape \(1,\), but has shape \(2,\) after one "
                                         "iteration. To allow the shape to vary"):
        tf.while_loop(lambda v: tf.size(v) < 4, lambda v: tf.concat([v, v], 0), [start])
    grown = tf.while_loop(lambda v: tf.size(v) < 4, lambda v: tf.concat([v, v], 0), [start],
                          shape_invariants=[tf.TensorShape([None])])
    assert grown.shape.as_list() == [None]
    with tf.Session() as session:
        np.testing.assert_array_equal(session.run(grown), [1.0] * 4)


def test_while_maximum_iterations():
    _graph_mode()
    x = tf.placeholder(tf.float32, [])
    out = tf.while_loop(lambda v: v < 1000.0, lambda v: v * 2.0, [x], maximum_iterations=3)
    with tf.Session() as session:
        assert session.run(out, {x: 1.0}) == 8.0
        assert session.run(out, {x: 600.0}) == 1200.0


def test_eager_while_loop_tf2_structure_and_gradient():
    x = wf.constant(3.0)
    with wf.GradientTape() as tape:
        tape.watch(x)
        (y,) = wf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [x])
    assert float(y) == 192.0 and float(tape.gradient(y, x)) == 64.0
    assert wf.while_loop(lambda i: i < 5, lambda i: i + 1, [0], maximum_iterations=2) == [2]


# --- initialized_value -------------------------------------------------------------------------------------------
def test_initialized_value_uses_the_initial_value_until_initialized():
    _graph_mode()
    v = tf.Variable(3.0)
    doubled = tf.Variable(v.initialized_value() * 2.0)
    with tf.Session() as session:
        session.run(doubled.initializer)  # v itself is still uninitialized: its initial value is used
        assert session.run(doubled) == 6.0
        with pytest.raises(FailedPreconditionError):
            session.run(v.value())
        session.run(v.initializer)
        session.run(tf.assign(v, 10.0))
        session.run(doubled.initializer)
        assert session.run(doubled) == 20.0
