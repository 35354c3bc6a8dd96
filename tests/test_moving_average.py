"""tf.train.ExponentialMovingAverage against hand-derived averages, names and collections; and TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

PROGRAM = """
w = tf.Variable([1.0, 2.0], name="w")
c = tf.Variable(5.0, name="c")
step = tf.Variable(0, name="n", trainable=False)
ema = tf.train.ExponentialMovingAverage(0.9, num_updates=NUM_UPDATES)
with tf.control_dependencies([tf.assign_add(w, [1.0, -1.0]), tf.assign_add(step, 1)]):
    average_op = ema.apply([w, c])
history = []
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(4):
        sess.run(average_op)
        history.append(sess.run([ema.average(w), ema.average(c)]))
result = {"history": [[h[0], [float(h[1])]] for h in history], "names": [v.name for v in tf.global_variables()],
          "average_name": ema.average_name(w), "moving": [v.name for v in tf.moving_average_variables()],
          "op": average_op.name, "shadow_trainable": ema.average(w) in tf.trainable_variables()}
"""


def _program(num_updates: str) -> str:
    return PROGRAM.replace("NUM_UPDATES", num_updates)


def _expected(decays: list) -> list:
    w, shadow_w, shadow_c = np.array([1.0, 2.0]), np.array([1.0, 2.0]), 5.0
    history = []
    for decay in decays:
        w = w + [1.0, -1.0]
        shadow_w = shadow_w - (1 - decay) * (shadow_w - w)
        shadow_c = shadow_c - (1 - decay) * (shadow_c - 5.0)
        history.append([shadow_w.tolist(), [shadow_c]])
    return history


def test_fixed_decay() -> None:
    mine = run_webflow(_program("None"))
    np.testing.assert_allclose(np.array(mine["history"], dtype=object)[:, 0].tolist(),
                               np.array(_expected([0.9] * 4), dtype=object)[:, 0].tolist(), rtol=1e-6)
    assert mine["names"] == ["w:0", "c:0", "n:0", "w/ExponentialMovingAverage:0", "c/ExponentialMovingAverage:0"]
    assert mine["average_name"] == "w/ExponentialMovingAverage"
    assert mine["moving"] == ["w:0", "c:0"]
    assert mine["op"] == "ExponentialMovingAverage" and mine["shadow_trainable"] is False


def test_num_updates_caps_decay() -> None:
    """decay = min(0.9, (1 + n) / (10 + n)) with n read when apply runs (after the increment): n = 1..4."""
    mine = run_webflow(_program("step"))
    decays = [min(0.9, (1 + n) / (10 + n)) for n in range(1, 5)]
    for got, expected in zip(mine["history"], _expected(decays)):
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)


def test_apply_twice_raises() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    v = tf.Variable(1.0)
    ema = tf.train.ExponentialMovingAverage(0.5)
    ema.apply([v])
    with pytest.raises(ValueError, match="already computed"):
        ema.apply([v])
    with pytest.raises(TypeError, match="half, float, or double"):
        ema.apply([tf.Variable(1, name="int_var")])


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({"fixed": _program("None"), "capped": _program("step")})


@pytest.mark.parametrize("key", ["fixed", "capped"])
def test_matches_tensorflow(key: str, tensorflow_results: dict) -> None:
    theirs = tensorflow_results[key]
    mine = run_webflow(_program("None" if key == "fixed" else "step"))
    for got, expected in zip(mine["history"], theirs["history"]):
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-6)
    for field in ("names", "average_name", "moving", "op", "shadow_trainable"):
        assert mine[field] == theirs[field], field
