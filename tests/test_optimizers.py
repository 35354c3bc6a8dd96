"""tf.train optimizers: several steps on a small least-squares problem, checked against
(a) NumPy implementations of TensorFlow's documented update formulas and (b) real TensorFlow;
slot/variable names, train-op names, sparse (IndexedSlices) updates, gradient masking, eager use."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

X = np.array([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]], np.float32)
Y = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)
W0 = np.array([[0.5, -0.2], [0.1, 0.3]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
STEPS = 5

PROGRAM = """
X = np.array(X_LIST, np.float32); Y = np.array(Y_LIST, np.float32)
w = tf.Variable(np.array(W0_LIST, np.float32), name="w")
b = tf.Variable(np.array(B0_LIST, np.float32), name="b")
frozen = tf.Variable([7.0, 8.0], trainable=False, name="frozen")
pred = tf.matmul(tf.constant(X), w) + b + frozen * 0.0
loss = tf.reduce_mean((pred - Y) * (pred - Y))
step = tf.train.get_or_create_global_step()
opt = OPTIMIZER
train = opt.minimize(loss, global_step=step)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(STEPS_N):
        sess.run(train)
    values = sess.run({v.op.name: v for v in tf.global_variables()})
result = {"names": [v.name for v in tf.global_variables()], "values": values, "train": train.name,
          "train_type": train.type, "slots": opt.get_slot_names()}
"""
for _token, _value in (("X_LIST", X), ("Y_LIST", Y), ("W0_LIST", W0), ("B0_LIST", B0), ("STEPS_N", STEPS)):
    PROGRAM = PROGRAM.replace(_token, repr(_value.tolist() if hasattr(_value, "tolist") else _value))

OPTIMIZERS = {
    "gd": "tf.train.GradientDescentOptimizer(0.1)",
    "momentum": "tf.train.MomentumOptimizer(0.05, momentum=0.9)",
    "nesterov": "tf.train.MomentumOptimizer(0.05, momentum=0.9, use_nesterov=True)",
    "adam": "tf.train.AdamOptimizer(0.1)",
    "rmsprop": "tf.train.RMSPropOptimizer(0.05)",
    "rmsprop_momentum": "tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5)",
    "rmsprop_centered": "tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True)",
    "adagrad": "tf.train.AdagradOptimizer(0.3)",
    "adagrad_init": "tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.5)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6)",
}


def _program(key: str) -> str:
    return PROGRAM.replace("OPTIMIZER", OPTIMIZERS[key])


# --- the NumPy oracle: TensorFlow's documented formulas ---------------------------------------------
def _grads(w: np.ndarray, b: np.ndarray) -> tuple:
    """loss = mean((X w + b - Y)^2): dloss/dpred = 2 (pred - Y) / N."""
    dpred = 2.0 * (X @ w + b - Y) / Y.size
    return X.T @ dpred, dpred.sum(0)


def _numpy_updates(key: str) -> Callable:
    """(update(t, params, grads, state) -> params, initial state) for each optimizer, float32."""
    f = np.float32
    if key == "gd":
        return lambda t, p, g, s: p - f(0.1) * g, lambda p: None
    if key in ("momentum", "nesterov"):
        def momentum(t, p, g, s):
            s[0] = f(0.9) * s[0] + g
            step = g + f(0.9) * s[0] if key == "nesterov" else s[0]
            return p - f(0.05) * step
        return momentum, lambda p: [np.zeros_like(p)]
    if key == "adam":
        def adam(t, p, g, s):
            s[0] = f(0.9) * s[0] + f(0.1) * g
            s[1] = f(0.999) * s[1] + f(0.001) * g * g
            lr = f(0.1) * np.sqrt(1 - f(0.999) ** t) / (1 - f(0.9) ** t)
            return p - lr * s[0] / (np.sqrt(s[1]) + f(1e-8))
        return adam, lambda p: [np.zeros_like(p), np.zeros_like(p)]
    if key.startswith("rmsprop"):
        decay, momentum = {"rmsprop": (0.9, 0.0), "rmsprop_momentum": (0.8, 0.5),
                           "rmsprop_centered": (0.9, 0.5)}[key]

        def rmsprop(t, p, g, s):
            s[0] = f(decay) * s[0] + f(1 - decay) * g * g
            s[2] = f(decay) * s[2] + f(1 - decay) * g
            denominator = s[0] - s[2] ** 2 if key == "rmsprop_centered" else s[0]
            s[1] = f(momentum) * s[1] + f(0.05) * g / np.sqrt(denominator + f(1e-10))
            return p - s[1]
        return rmsprop, lambda p: [np.ones_like(p), np.zeros_like(p), np.zeros_like(p)]
    if key.startswith("adagrad"):
        initial = 0.5 if key == "adagrad_init" else 0.1

        def adagrad(t, p, g, s):
            s[0] = s[0] + g * g
            return p - f(0.3) * g / np.sqrt(s[0])
        return adagrad, lambda p: [np.full_like(p, initial)]
    if key == "adadelta":
        def adadelta(t, p, g, s):
            s[0] = f(0.9) * s[0] + f(0.1) * g * g
            update = np.sqrt(s[1] + f(1e-6)) / np.sqrt(s[0] + f(1e-6)) * g
            s[1] = f(0.9) * s[1] + f(0.1) * update * update
            return p - f(1.0) * update
        return adadelta, lambda p: [np.zeros_like(p), np.zeros_like(p)]
    raise KeyError(key)


def numpy_reference(key: str) -> tuple:
    update, initial_state = _numpy_updates(key)
    w, b = W0.copy(), B0.copy()
    state_w, state_b = initial_state(w), initial_state(b)
    for t in range(1, STEPS + 1):
        gw, gb = _grads(w, b)
        w, b = update(t, w, gw.astype(np.float32), state_w), update(t, b, gb.astype(np.float32), state_b)
    return w, b


@pytest.mark.parametrize("key", list(OPTIMIZERS))
def test_matches_numpy_formula(key: str) -> None:
    mine = run_webflow(_program(key))
    w, b = numpy_reference(key)
    np.testing.assert_allclose(mine["values"]["w"], w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(mine["values"]["b"], b, rtol=2e-5, atol=1e-6)
    assert mine["values"]["frozen"] == [7.0, 8.0]          # trainable=False: untouched
    assert mine["values"]["global_step"] == STEPS          # incremented once per step


# names as real TensorFlow 2.x's tf.compat.v1 gives them (global variable order included)
EXPECTED_NAMES = {
    "gd": ([], []),
    "momentum": (["momentum"], ["w/Momentum:0", "b/Momentum:0"]),
    "adam": (["m", "v"], ["beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0", "b/Adam:0", "b/Adam_1:0"]),
    "rmsprop": (["momentum", "rms"], ["w/RMSProp:0", "w/RMSProp_1:0", "b/RMSProp:0", "b/RMSProp_1:0"]),
    "rmsprop_centered": (["mg", "momentum", "rms"], ["w/RMSProp:0", "w/RMSProp_1:0", "w/RMSProp_2:0",
                                                     "b/RMSProp:0", "b/RMSProp_1:0", "b/RMSProp_2:0"]),
    "adagrad": (["accumulator"], ["w/Adagrad:0", "b/Adagrad:0"]),
    "adadelta": (["accum", "accum_update"], ["w/Adadelta:0", "w/Adadelta_1:0", "b/Adadelta:0", "b/Adadelta_1:0"]),
}


@pytest.mark.parametrize("key", list(EXPECTED_NAMES))
def test_variable_and_op_names(key: str) -> None:
    mine = run_webflow(_program(key))
    slots, slot_vars = EXPECTED_NAMES[key]
    assert mine["slots"] == slots
    assert mine["names"] == ["w:0", "b:0", "frozen:0", "global_step:0"] + slot_vars
    optimizer_name = {"gd": "GradientDescent", "momentum": "Momentum", "adam": "Adam", "adagrad": "Adagrad",
                      "adadelta": "Adadelta"}.get(key, "RMSProp")
    assert (mine["train"], mine["train_type"]) == (optimizer_name, "AssignAdd")


def test_update_op_names_and_types() -> None:
    import webflow.compat.v1 as tf

    run_webflow(_program("rmsprop_centered"))
    graph = tf.get_default_graph()
    assert graph.get_operation_by_name("RMSProp/update_w/ApplyCenteredRMSProp").type == "ApplyCenteredRMSProp"
    assert graph.get_operation_by_name("RMSProp/update").type == "NoOp"
    assert graph.get_operation_by_name("w/RMSProp").type == "VariableV2"
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP)[0].name == "RMSProp"


# --- real TensorFlow ---------------------------------------------------------------------------------
SPARSE_PROGRAM = """
v = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="emb")
grad = tf.IndexedSlices(tf.constant([[1.0, -1.0, 0.5], [0.2, 0.3, 0.4], [2.0, 0.0, -1.0]]),
                        tf.constant([2, 0, 2]), tf.constant([4, 3]))
opt = OPTIMIZER
train = opt.apply_gradients([(grad, v)])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    values = sess.run({x.op.name: x for x in tf.global_variables()})
result = {"values": values, "names": [x.name for x in tf.global_variables()]}
"""

MASK_PROGRAM = """
w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
loss = tf.reduce_sum(w * w * tf.constant([[1.0, 2.0], [3.0, 4.0]]))
opt = tf.train.MomentumOptimizer(0.1, 0.5)
grads_and_vars = opt.compute_gradients(loss)
masked = [(g * tf.constant([[1.0, 0.0], [0.0, 1.0]]), v) for g, v in grads_and_vars]
train = opt.apply_gradients(masked, name="masked_step")
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    result = {"w": sess.run(w), "train": train.name, "pairs": len(grads_and_vars)}
"""

SPARSE_OPTIMIZERS = ["gd", "momentum", "adam", "rmsprop_centered", "adagrad", "adadelta"]


def _tf_programs() -> dict:
    programs = {key: _program(key) for key in OPTIMIZERS}
    programs.update({"sparse_" + key: SPARSE_PROGRAM.replace("OPTIMIZER", OPTIMIZERS[key])
                     for key in SPARSE_OPTIMIZERS})
    programs["mask"] = MASK_PROGRAM
    return programs


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow(_tf_programs())


@pytest.mark.parametrize("key", list(OPTIMIZERS) + ["sparse_" + k for k in SPARSE_OPTIMIZERS] + ["mask"])
def test_matches_tensorflow(key: str, tensorflow_results: dict) -> None:
    theirs = tensorflow_results[key]
    mine = run_webflow(_tf_programs()[key])
    assert set(mine) == set(theirs)
    for field, expected in theirs.items():
        if field == "values":
            assert sorted(mine[field]) == sorted(expected)
            for name in expected:
                np.testing.assert_allclose(mine[field][name], expected[name], rtol=1e-5, atol=1e-6, err_msg=name)
        elif isinstance(expected, list) and expected and isinstance(expected[0], (list, float)):
            np.testing.assert_allclose(mine[field], expected, rtol=1e-5, atol=1e-6)
        else:
            assert mine[field] == expected, field


def test_sparse_momentum_touches_only_given_rows() -> None:
    """SparseApplyMomentum: repeated indices are summed first, untouched rows keep var and accumulator."""
    mine = run_webflow(SPARSE_PROGRAM.replace("OPTIMIZER", OPTIMIZERS["momentum"]))
    var = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    accum = np.zeros_like(var)
    g = np.zeros_like(var)
    g[2] = [3.0, -1.0, -0.5]
    g[0] = [0.2, 0.3, 0.4]
    for _ in range(3):
        for row in (0, 2):
            accum[row] = 0.9 * accum[row] + g[row]
            var[row] -= 0.05 * accum[row]
    np.testing.assert_allclose(mine["values"]["emb"], var, rtol=1e-6)
    np.testing.assert_allclose(mine["values"]["emb/Momentum"], accum, rtol=1e-6)


def test_masked_gradients_numpy() -> None:
    mine = run_webflow(MASK_PROGRAM)
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    scale = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    mask = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    accum = np.zeros_like(w)
    for _ in range(3):
        accum = 0.5 * accum + 2 * w * scale * mask
        w = w - 0.1 * accum
    np.testing.assert_allclose(mine["w"], w, rtol=1e-6)
    assert mine["train"] == "masked_step" and mine["pairs"] == 1


# --- errors and eager use ----------------------------------------------------------------------------
def test_compute_gradients_keeps_none_and_minimize_raises_without_gradients() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    a = tf.Variable(1.0, name="a")
    unused = tf.Variable(2.0, name="unused")
    opt = tf.train.GradientDescentOptimizer(0.1)
    pairs = opt.compute_gradients(a * 3.0)
    assert [v for _, v in pairs] == [a, unused] and pairs[1][0] is None
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(a * 3.0, var_list=[unused])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(tf.constant(3))


def test_eager_resource_variables_adam() -> None:
    import webflow as wf
    import webflow.compat.v1 as tf

    w = wf.Variable(W0, name="w")
    b = wf.Variable(B0, name="b")
    opt = tf.train.AdamOptimizer(0.1)

    def loss():
        pred = wf.matmul(wf.constant(X), w) + b
        return wf.reduce_mean((pred - Y) * (pred - Y))

    for _ in range(STEPS):
        opt.minimize(loss, var_list=[w, b])
    expected_w, expected_b = numpy_reference("adam")
    np.testing.assert_allclose(w.numpy(), expected_w, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), expected_b, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(opt._get_beta_accumulators()[0].numpy(), np.float32(0.9) ** (STEPS + 1), rtol=1e-6)


def test_apply_op_needs_a_variable_reference() -> None:
    import webflow.compat.v1 as tf
    from webflow.ops.training_ops import apply_gradient_descent

    tf.disable_v2_behavior()
    with pytest.raises(TypeError, match="mutable tensor"):
        apply_gradient_descent(tf.constant([1.0]), 0.1, tf.constant([1.0]))
    v = tf.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match="var and grad"):
        apply_gradient_descent(v, 0.1, tf.constant([1.0, 2.0, 3.0]))
