"""TF1 learning-rate schedules against hand-derived values, followed through a global step; and TensorFlow."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

SCHEDULES = {
    "exponential": ("tf.train.exponential_decay(0.1, step, 10, 0.5)", lambda s: 0.1 * 0.5 ** (s / 10)),
    "exponential_staircase": ("tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)",
                              lambda s: 0.1 * 0.5 ** (s // 10)),
    "inverse_time": ("tf.train.inverse_time_decay(0.1, step, 5, 0.5)", lambda s: 0.1 / (1 + 0.5 * s / 5)),
    "inverse_time_staircase": ("tf.train.inverse_time_decay(0.1, step, 5, 0.5, staircase=True)",
                               lambda s: 0.1 / (1 + 0.5 * (s // 5))),
    "natural_exp": ("tf.train.natural_exp_decay(0.1, step, 5, 0.5)", lambda s: 0.1 * math.exp(-0.5 * s / 5)),
    "polynomial": ("tf.train.polynomial_decay(0.1, step, 20, end_learning_rate=0.01, power=2.0)",
                   lambda s: (0.1 - 0.01) * (1 - min(s, 20) / 20) ** 2 + 0.01),
    "polynomial_cycle": ("tf.train.polynomial_decay(0.1, step, 7, end_learning_rate=0.01, cycle=True)",
                         lambda s: (0.1 - 0.01) * (1 - s / (7 * max(math.ceil(s / 7), 1))) + 0.01),
    "cosine": ("tf.train.cosine_decay(0.1, step, 20, alpha=0.1)",
               lambda s: 0.1 * (0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 20) / 20)) + 0.1)),
    "piecewise": ("tf.train.piecewise_constant(step, [5, 12], [1.0, 0.5, 0.1])",
                  lambda s: 1.0 if s <= 5 else 0.5 if s <= 12 else 0.1),
}
STEPS = [0, 1, 4, 5, 6, 7, 10, 12, 13, 14, 20, 25, 30]

PROGRAM = """
step = tf.train.get_or_create_global_step()
lr = SCHEDULE
increment = tf.assign_add(step, 1)
seen = {}
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for s in range(31):
        seen[s] = float(sess.run(lr))
        sess.run(increment)
result = {"values": [seen[s] for s in STEP_LIST], "dtype": lr.dtype.name, "name": lr.op.name}
""".replace("STEP_LIST", repr(STEPS))


def _program(key: str) -> str:
    return PROGRAM.replace("SCHEDULE", SCHEDULES[key][0])


@pytest.mark.parametrize("key", list(SCHEDULES))
def test_schedule_follows_global_step(key: str) -> None:
    mine = run_webflow(_program(key))
    expected = [SCHEDULES[key][1](s) for s in STEPS]
    np.testing.assert_allclose(mine["values"], expected, rtol=1e-6)
    assert mine["dtype"] == "float32"


def test_global_step_variable() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    assert tf.train.get_global_step() is None
    step = tf.train.get_or_create_global_step()
    assert (step.name, step.dtype.base_dtype, step.trainable) == ("global_step:0", tf.int64, False)
    assert tf.get_collection(tf.GraphKeys.GLOBAL_STEP) == [step]
    assert tf.train.get_or_create_global_step() is step and tf.train.get_global_step() is step
    with pytest.raises(ValueError, match="already exists"):
        tf.train.create_global_step()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert tf.train.global_step(sess, step) == 0


def test_piecewise_constant_checks_lengths() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    with pytest.raises(ValueError, match="1 less than"):
        tf.train.piecewise_constant(tf.constant(3), [1, 2], [0.1, 0.2])


def test_eager_schedule_is_callable() -> None:
    import webflow as wf
    import webflow.compat.v1 as tf

    step = wf.Variable(0, dtype=wf.int64)
    lr = tf.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    assert callable(lr)
    step.assign(25)
    np.testing.assert_allclose(lr().numpy(), 0.1 * 0.5 ** 2, rtol=1e-6)


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({key: _program(key) for key in SCHEDULES})


@pytest.mark.parametrize("key", list(SCHEDULES))
def test_matches_tensorflow(key: str, tensorflow_results: dict) -> None:
    theirs = tensorflow_results[key]
    mine = run_webflow(_program(key))
    np.testing.assert_allclose(mine["values"], theirs["values"], rtol=1e-6)
    assert mine["dtype"] == theirs["dtype"]
