"""Stories for wf.function: tracing once per signature, live variables, side effects, gradients == eager."""

from __future__ import annotations

import numpy as np
import pytest

import webflow as wf
import webflow.ops.logic_ops  # noqa: F401  (comparison operators)


def test_traces_once_per_signature_and_matches_eager():
    traces = []

    def affine(x, scale=2.0):
        traces.append(x.shape)  # a Python side effect: runs only while tracing
        return x * scale + 1.0

    f = wf.function(affine)
    a, b = wf.constant([1.0, 2.0]), wf.constant([3.0, -4.0])
    np.testing.assert_allclose(f(a).numpy(), affine(a).numpy())
    np.testing.assert_allclose(f(b).numpy(), affine(b).numpy())
    assert f.experimental_get_tracing_count() == 1  # same shape and dtype: no retrace
    f(wf.constant([1.0, 2.0, 3.0]))                 # new shape
    f(wf.constant([1.0, 2.0], dtype=wf.float64))    # new dtype
    f(a, scale=3.0)                                 # new Python value
    f(a, scale=3.0)
    assert f.experimental_get_tracing_count() == 4
    assert len(traces) == 4 + 2  # the two direct eager calls above also ran the Python body
    assert f.python_function is affine


def test_input_signature_traces_once_for_any_compatible_shape():
    @wf.function(input_signature=[wf.TensorSpec([None], wf.float32)])
    def total(x):
        return wf.reduce_sum(x)

    assert float(total(wf.constant([1.0, 2.0]))) == 3.0
    assert float(total(wf.constant([1.0, 2.0, 3.0]))) == 6.0
    assert total.experimental_get_tracing_count() == 1
    concrete = total.get_concrete_function()
    assert concrete.graph.inputs[0].shape.as_list() == [None]
    with pytest.raises(TypeError):
        total(wf.constant([[1.0]]))


def test_variables_are_read_live_and_assignments_update_them():
    v = wf.Variable(2.0)

    @wf.function
    def scale(x):
        return x * v

    @wf.function
    def bump(x):
        v.assign_add(x)
        return v * 10.0

    assert float(scale(wf.constant(3.0))) == 6.0
    v.assign(5.0)
    assert float(scale(wf.constant(3.0))) == 15.0  # not the value seen at trace time
    assert float(bump(wf.constant(1.0))) == 60.0    # the read after the assign sees the new value
    assert float(v.numpy()) == 6.0
    assert scale.experimental_get_tracing_count() == 1


def test_gradient_through_a_function_equals_eager_gradient():
    w = wf.Variable(np.array([0.5, -1.0]))
    x = wf.constant(np.array([2.0, 3.0]))

    def loss(x):
        return wf.reduce_sum(w * x * x + x)

    f = wf.function(loss)
    grads = []
    for call in (loss, f):
        with wf.GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        grads.append([g.numpy() for g in tape.gradient(y, [x, w])])
    np.testing.assert_allclose(grads[1][0], grads[0][0])
    np.testing.assert_allclose(grads[1][1], grads[0][1])
    np.testing.assert_allclose(grads[1][0], 2 * np.array([0.5, -1.0]) * [2.0, 3.0] + 1)  # by hand
    np.testing.assert_allclose(grads[1][1], [4.0, 9.0])


def test_control_flow_inside_a_function_matches_eager_with_gradients():
    def doubled_until_100(x):
        return wf.while_loop(lambda v: v < 100.0, lambda v: v * 2.0, [x])[0]

    def switch(x, p):
        return wf.cond(p, lambda: x * x, lambda: 3.0 * x)

    for python_function, extra in [(doubled_until_100, ()), (switch, (wf.constant(True),)),
                                   (switch, (wf.constant(False),))]:
        traced = wf.function(python_function)
        results = []
        for call in (python_function, traced):
            x = wf.constant(5.0)
            with wf.GradientTape() as tape:
                tape.watch(x)
                y = call(x, *extra)
            results.append((float(y), float(tape.gradient(y, x))))
        assert results[0] == results[1]
    assert results[1] == (15.0, 3.0)


def test_while_in_function_differentiates_a_variable_read_in_the_body():
    w = wf.Variable(1.5)

    @wf.function
    def power(x):
        return wf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * w), [wf.constant(0), x])[1]

    with wf.GradientTape() as tape:
        y = power(wf.constant(2.0))
    assert float(y) == pytest.approx(2.0 * 1.5 ** 3)
    assert float(tape.gradient(y, w)) == pytest.approx(2.0 * 3 * 1.5 ** 2)


def test_nested_functions_and_python_outputs():
    @wf.function
    def inner(x):
        return x + 1.0

    @wf.function
    def outer(x):
        return {"value": inner(x) * 2.0, "note": "hello"}

    result = outer(wf.constant(1.0))
    assert result["note"] == "hello" and float(result["value"]) == 4.0


def test_a_gradient_tape_inside_a_traced_function_trains_its_captured_variables() -> None:
    """The TF2 training step: GradientTape + assign_sub inside wf.function. The tape records the function's graph
    while it is traced; d/dv sum((x v)^2) = 2 x^T (x v), by hand, step after step (the variable really changes)."""
    x = np.array([[3.0, 4.0], [1.0, -2.0]], np.float32)
    v = wf.Variable([[1.0], [2.0]])
    unwatched = wf.Variable([[5.0]], trainable=False)

    @wf.function
    def step(inputs):
        with wf.GradientTape() as tape:
            loss = wf.reduce_sum(wf.matmul(inputs, v) ** 2) * unwatched
        grad, none = tape.gradient(loss, [v, unwatched])
        v.assign_sub(0.001 * grad)
        return grad, none is None

    expected_v = np.array([[1.0], [2.0]], np.float32)
    for _ in range(3):
        grad, unwatched_has_none = step(wf.constant(x))
        expected_grad = 5.0 * 2.0 * x.T @ (x @ expected_v)
        np.testing.assert_allclose(grad.numpy(), expected_grad, rtol=1e-6)
        expected_v = expected_v - 0.001 * expected_grad
        np.testing.assert_allclose(v.numpy(), expected_v, rtol=1e-6)
        assert bool(unwatched_has_none)  # not trainable: not watched, as TensorFlow
