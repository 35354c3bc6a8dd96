"""`tf.custom_gradient` (graph and eager), and `gradient_override_map` holding after its block, as TensorFlow.

Hand-derived values: log(1 + e^x) has derivative sigmoid(x) = 1 - 1 / (1 + e^x), and second derivative
sigmoid(x)(1 - sigmoid(x)); at x = 100 the naive formula overflows (its gradient is nan) where the stated one gives
1. The TF1 programs are also run in real TensorFlow (WEBFLOW_TF_PYTHON) and must give the same numbers.
"""

from __future__ import annotations

import math

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow as wf
import webflow.compat.v1 as tf

TF_PROGRAMS = {
    # an override registered under a new name, used after the block that set it
    "override_after_block": """
@tf.RegisterGradient("TimesHundred_{tag}")
def _times_hundred(op, dy):
    return dy * 100.0
x = tf.constant(3.0)
with tf.get_default_graph().gradient_override_map({{"Square": "TimesHundred_{tag}"}}):
    y = tf.square(x)
z = tf.square(x)  # built after the block: its own gradient
with tf.Session() as sess:
    result = sess.run(tf.gradients(y, x) + tf.gradients(z, x))
""",
    # straight-through: Sign's gradient replaced by Identity's
    "straight_through": """
x = tf.constant([-2.0, 0.5, 3.0])
with tf.get_default_graph().gradient_override_map({"Sign": "Identity"}):
    y = tf.sign(x)
with tf.Session() as sess:
    result = sess.run(tf.gradients(tf.reduce_sum(y * [1.0, 2.0, 3.0]), x))
""",
    "log1pexp": """
@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)
    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return tf.log(1 + e), grad
x = tf.constant([0.0, 2.0, 100.0])
y = log1pexp(x)
with tf.Session() as sess:
    result = sess.run([y, tf.gradients(tf.reduce_sum(y), x)[0]]) + [y.op.type]
""",
    "two_arguments_two_results": """
@tf.custom_gradient
def pair(a, b):
    def grad(d_sum, d_product):
        return tf.clip_by_value(d_sum + d_product * b, -1.0, 1.0), d_sum * 0.0 + 7.0
    return (a + b, a * b), grad
a, b = tf.constant([1.0, 2.0]), tf.constant([0.5, -3.0])
s, p = pair(a, b)
with tf.Session() as sess:
    result = sess.run(tf.gradients(tf.reduce_sum(s) + 2.0 * tf.reduce_sum(p), [a, b]))
""",
}


def _program(key: str) -> str:
    return TF_PROGRAMS[key].replace("{tag}", "wf").replace("{{", "{").replace("}}", "}")


def test_override_holds_after_its_block() -> None:
    assert run_webflow(_program("override_after_block")) == [100.0, 6.0]  # d(x²)/dx = 6 where not overridden


def test_straight_through_estimator() -> None:
    assert run_webflow(_program("straight_through")) == [[1.0, 2.0, 3.0]]


def test_custom_gradient_in_a_graph() -> None:
    values, grads, op_type = run_webflow(_program("log1pexp"))
    assert op_type == "IdentityN"
    assert values[:2] == pytest.approx([math.log(2.0), math.log(1 + math.exp(2.0))], rel=1e-6)
    assert values[2] == math.inf  # the forward pass still overflows in float32 ...
    assert grads == pytest.approx([0.5, 1 - 1 / (1 + math.exp(2.0)), 1.0], rel=1e-6)  # ... the gradient does not


def test_several_arguments_and_results() -> None:
    # d/da: 1 + 2b clipped to [-1, 1] -> [1, -1]; d/db: 7 whatever the upstream
    assert run_webflow(_program("two_arguments_two_results")) == [[1.0, -1.0], [7.0, 7.0]]


def test_graph_mode_refuses_keyword_arguments() -> None:
    @tf.custom_gradient
    def f(x, scale=2.0):
        return x * scale, lambda dy: dy * scale

    with tf.Graph().as_default(), pytest.raises(ValueError, match="keywords arguments only when eager"):
        f(tf.constant(1.0), scale=3.0)


def test_wrong_number_of_gradients() -> None:
    @wf.custom_gradient
    def f(x):
        return x * x, lambda dy: (dy, dy)

    x = wf.constant(3.0)
    with wf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError, match="expected to return 1 gradients, but returned 2 instead"):
        tape.gradient(y, x)


@wf.custom_gradient
def _log1pexp(x):
    e = wf.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return wf.math.log(1 + e), grad


def test_eager_first_and_second_order() -> None:
    x = wf.constant(2.0)
    with wf.GradientTape() as outer:
        outer.watch(x)
        with wf.GradientTape() as inner:
            inner.watch(x)
            y = _log1pexp(x)
        first = inner.gradient(y, x)
    second = outer.gradient(first, x)
    sigmoid = 1 / (1 + math.exp(-2.0))
    assert float(first) == pytest.approx(sigmoid, rel=1e-6)
    assert float(second) == pytest.approx(sigmoid * (1 - sigmoid), rel=1e-5)
    big = wf.constant(100.0)
    with wf.GradientTape() as tape:
        tape.watch(big)
        y = _log1pexp(big)
    assert float(tape.gradient(y, big)) == 1.0


def test_eager_variables_keyword() -> None:
    v = wf.Variable(2.0)

    @wf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert [w.name for w in variables] == [v.name]
            return dy * v, [dy * x * 10.0]
        return x * v, grad

    x = wf.constant(3.0)
    with wf.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x)
    dx, dv = tape.gradient(y, [x, v])
    assert (float(dx), float(dv)) == (2.0, 30.0)


def test_in_a_function_with_a_tape() -> None:
    @wf.function
    def step(x):
        with wf.GradientTape() as tape:
            tape.watch(x)
            y = _log1pexp(x)
        return tape.gradient(y, x)

    assert float(step(wf.constant(100.0))) == 1.0


def test_through_a_function_call() -> None:
    """The function's gradient graph copies its ops: the IdentityN keeps its rule there."""
    @wf.function
    def twice(x):
        return _log1pexp(x) * 2.0

    x = wf.constant([100.0, 0.0])
    with wf.GradientTape() as tape:
        tape.watch(x)
        y = twice(x)
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 1.0]


def _flat(value) -> list:
    return [x for v in value for x in _flat(v)] if isinstance(value, list) else [value]


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_the_same_numbers_as_tensorflow() -> None:
    programs = {key: source.replace("{tag}", "tf").replace("{{", "{").replace("}}", "}")
                for key, source in TF_PROGRAMS.items()}
    theirs = run_tensorflow(programs)
    for key in TF_PROGRAMS:  # override_after_block registers a name once per process: its result from above
        ours = [100.0, 6.0] if key == "override_after_block" else run_webflow(_program(key))
        numbers = [x for x in _flat(ours) if not isinstance(x, str)]
        assert numbers == pytest.approx([x for x in _flat(theirs[key]) if not isinstance(x, str)], rel=1e-6), key
        assert [x for x in _flat(ours) if isinstance(x, str)] == [x for x in _flat(theirs[key]) if isinstance(x, str)]
