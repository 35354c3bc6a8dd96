"""`wf.init_scope` and TF2's rule on variables made inside a `wf.function`, against real TensorFlow 2.21.

The same program text runs under webflow (`tf` = webflow) and under TensorFlow (`tf` = tensorflow, tf_keras as
tf.keras): a custom training loop whose optimizer makes its slots inside the first traced step (the TF2 idiom of
the public notebooks), variables made lazily on a first trace (the initial value lifted out of the function),
the ValueErrors of a variable made on a later trace, and what init_scope changes (eager inside a trace, name
scope kept, control dependencies cleared, tapes paused).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow as wf

# Shared by both runs: the data and initial weights are literals, so both libraries start identically.
_RNG = np.random.RandomState(7)
DATA = {"X": _RNG.randn(16, 3).astype(np.float32).round(4).tolist(),
        "Y": _RNG.randn(16, 2).astype(np.float32).round(4).tolist(),
        "W0": (_RNG.randn(3, 2) * 0.5).astype(np.float32).round(4).tolist(),
        "B0": [0.1, -0.2]}

CUSTOM_LOOP = """
X, Y = tf.constant(DATA["X"]), tf.constant(DATA["Y"])
w, b = tf.Variable(DATA["W0"]), tf.Variable(DATA["B0"])
opt = tf.optimizers.Adam(0.05)

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b]))
    return loss

losses = [float(train_step(X, Y).numpy()) for _ in range(10)]
result = {"losses": losses, "w": w.numpy().tolist(), "b": b.numpy().tolist(),
          "iterations": int(opt.iterations.numpy()), "tracing_count": train_step.experimental_get_tracing_count()}
"""

# A Keras model built by its first call, inside the traced step (weights made by that trace), trained with RMSprop.
KERAS_LOOP = """
keras = tf.keras
keras.backend.clear_session()
model = keras.Sequential([keras.layers.Dense(4, activation="tanh", kernel_initializer=keras.initializers.Constant(0.3)),
                          keras.layers.Dense(2, kernel_initializer=keras.initializers.Constant(-0.2))])
opt = keras.optimizers.RMSprop(0.01, momentum=0.5)
X, Y = tf.constant(DATA["X"]), tf.constant(DATA["Y"])

@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss

losses = [float(train_step(X, Y).numpy()) for _ in range(10)]
result = {"losses": losses, "weights": [v.tolist() for v in model.get_weights()],
          "iterations": int(opt.iterations.numpy())}
"""

# A tf.Module making its variable on first use, inside a traced __call__; the initial value is a tensor of the trace.
LAZY_MODULE = """
class Scale(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = None

    @tf.function
    def __call__(self, x):
        if self.v is None:
            self.v = tf.Variable(tf.ones([2]) * 3.0 + tf.constant(DATA["B0"]))
        return x * self.v

m = Scale()
first = m(tf.constant([1.0, 2.0])).numpy().tolist()
again = m(tf.constant([[1.0, 1.0]])).numpy().tolist()          # a new signature: a later trace, no new variable
result = {"first": first, "again": again, "value": m.v.numpy().tolist(),
          "tracing_count": m.__call__.experimental_get_tracing_count()}
"""

ERRORS = """
def message(call):
    try:
        call()
    except ValueError as error:
        return str(error)
    return None

@tf.function
def always_new(x):
    return x * tf.Variable(1.0)

state = {}
@tf.function
def later(x):
    if x.shape.rank == 1:
        state["v"] = tf.Variable(1.0)
    return x

later(tf.constant(1.0))
result = {"singleton": message(lambda: always_new(tf.constant(1.0))),
          "non_first": message(lambda: later(tf.constant([1.0])))}
"""

INIT_SCOPE = """
w = tf.Variable(3.0)
seen = {}

@tf.function
def f(x):
    seen["eager_in_trace"] = tf.executing_eagerly()
    with tf.name_scope("outer"):
        with tf.init_scope():
            seen["eager_in_scope"] = tf.executing_eagerly()
            seen["value"] = float((w * 2.0).numpy())
    return x + 1.0

f(tf.constant(1.0))
with tf.GradientTape(persistent=True) as tape:
    with tf.init_scope():
        hidden = w * w
    shown = w * 1.0
result = {**seen, "paused_gradient": tape.gradient(hidden, w) is None,
          "recorded_gradient": float(tape.gradient(shown, w).numpy())}
"""

# TF1's optimizer in a TF2 function: its slots and beta powers are made in init_scope on the first trace too.
V1_OPTIMIZER_LOOP = CUSTOM_LOOP.replace("tf.optimizers.Adam(0.05)", "tf.compat.v1.train.AdamOptimizer(0.05)").replace(
    '"iterations": int(opt.iterations.numpy()), ', "")

PROGRAMS = {"custom_loop": CUSTOM_LOOP, "v1_optimizer_loop": V1_OPTIMIZER_LOOP, "keras_loop": KERAS_LOOP,
            "lazy_module": LAZY_MODULE, "errors": ERRORS, "init_scope": INIT_SCOPE}


def _run_webflow(source: str) -> dict:
    import webflow.compat.v1  # noqa: F401 - makes `wf.compat.v1` reachable as an attribute, as in TensorFlow
    scope = {"tf": wf, "DATA": DATA}
    exec(source, scope)
    return scope["result"]


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    driver = f"import json\nimport tensorflow as tf\nDATA = json.loads({json.dumps(DATA)!r})\nout = {{}}\n"
    for key, source in PROGRAMS.items():
        driver += f"scope = {{'tf': tf, 'DATA': DATA}}\nexec({source!r}, scope)\nout[{key!r}] = scope['result']\n"
    driver += "result = out\n"
    return run_oracle(driver)


def test_custom_training_loop_with_adam_in_a_function_matches_tensorflow(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(CUSTOM_LOOP), tensorflow_results["custom_loop"]
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
    np.testing.assert_allclose(ours["w"], theirs["w"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours["b"], theirs["b"], rtol=1e-5, atol=1e-6)
    assert ours["iterations"] == theirs["iterations"] == 10
    assert ours["tracing_count"] == theirs["tracing_count"] == 2   # the first trace made the slots: traced again


def test_a_tf1_optimizer_in_a_function_matches_tensorflow(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(V1_OPTIMIZER_LOOP), tensorflow_results["v1_optimizer_loop"]
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
    np.testing.assert_allclose(ours["w"], theirs["w"], rtol=1e-5, atol=1e-6)
    assert ours["tracing_count"] == theirs["tracing_count"] == 2


def test_keras_model_built_inside_the_first_trace_matches_tensorflow(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(KERAS_LOOP), tensorflow_results["keras_loop"]
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
    for mine, reference in zip(ours["weights"], theirs["weights"], strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6)
    assert ours["iterations"] == theirs["iterations"] == 10


def test_a_variable_made_lazily_in_a_first_trace_is_lifted_out(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(LAZY_MODULE), tensorflow_results["lazy_module"]
    assert ours == theirs
    assert ours["value"] == pytest.approx([3.1, 2.8])


def test_variables_made_on_a_later_trace_raise_tensorflows_value_errors(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(ERRORS), tensorflow_results["errors"]
    assert ours["singleton"].startswith("tf.function only supports singleton tf.Variables created on the first call")
    assert ours["singleton"] in theirs["singleton"]     # TensorFlow adds the "in user code" frame around it
    assert ours["non_first"] == theirs["non_first"] == \
        "Creating variables on a non-first call to a function decorated with tf.function."


def test_init_scope_leaves_the_trace_and_pauses_tapes(tensorflow_results: dict) -> None:
    ours, theirs = _run_webflow(INIT_SCOPE), tensorflow_results["init_scope"]
    assert ours == theirs
    assert ours["eager_in_trace"] is False and ours["eager_in_scope"] is True and ours["paused_gradient"] is True


def test_init_scope_keeps_the_name_scope_of_the_trace() -> None:
    from webflow.framework import scopes
    seen = []

    @wf.function
    def f(x: wf.Tensor) -> wf.Tensor:
        with wf.name_scope("outer"), wf.init_scope():
            seen.append(scopes.get_name_scope())
        return x

    f(wf.constant(1.0))
    assert seen == ["outer"]


def test_init_scope_in_a_tf1_graph_clears_control_dependencies_and_lifts_out_of_a_cond_branch() -> None:
    import webflow.compat.v1 as tf
    graph = tf.Graph()
    with graph.as_default():
        first = tf.constant(1.0, name="first")
        with tf.control_dependencies([first]), tf.name_scope("block"):
            with tf.init_scope():
                lifted = tf.constant(2.0, name="lifted")
            kept = tf.constant(3.0, name="kept")
        assert lifted.op.control_inputs == [] and kept.op.control_inputs == [first.op]
        assert lifted.op.name == "block/lifted"

        made = []

        def branch() -> tf.Tensor:
            with tf.init_scope():
                made.append(tf.constant(4.0, name="outside"))
            return tf.constant(5.0)

        tf.cond(tf.constant(True), branch, branch)
        assert all(tensor.graph is graph for tensor in made)
