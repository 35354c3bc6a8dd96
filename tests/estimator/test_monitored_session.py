"""tf.train.MonitoredTrainingSession and its hooks: hand-derived expectations and TensorFlow 2.15's results."""

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from programs import MONITORED_SESSION

import webflow.compat.v1 as tf


def test_monitored_session_checkpoints_resumes_and_stops():
    result = run_webflow(MONITORED_SESSION)
    # 6 batches, two per loop turn (loss, then train_op): 3 training steps, then the input ends quietly
    assert len(result["losses"]) == 3
    assert result["first"] == ["model.ckpt-0", "model.ckpt-3"]  # at the start, at the end (every 4: none)
    assert result["step"] == 5  # resumed at 3, StopAtStepHook(num_steps=2)
    assert result["checkpoints"] == ["model.ckpt-0", "model.ckpt-3", "model.ckpt-5"]
    # summaries every 2 steps: runs of `loss` at steps 0, 1, 2 (train_op moves the step between them), then the
    # second session's first run (default 100 steps) records step 4
    assert result["summaries"] == [0, 1, 2, 4]
    # NumPy oracle for the 5 SGD steps: the first session trains on batches 1, 3, 5, the second on 0, 1
    x = np.random.RandomState(0).rand(48, 2).astype(np.float32)
    y = x @ np.array([[1.0], [-1.0]], np.float32)
    w = np.zeros((2, 1))
    for batch in (1, 3, 5, 0, 1):
        xb, yb = x[batch * 8:(batch + 1) * 8], y[batch * 8:(batch + 1) * 8]
        w = w - 0.5 * 2 * xb.T @ (xb @ w - yb) / 8
    np.testing.assert_allclose(result["w"], w, rtol=1e-5)


def test_run_after_stop_is_refused_and_hooks_need_a_global_step():
    with tf.Graph().as_default():
        counter = tf.Variable(0)
        with pytest.raises(RuntimeError, match="Global step should be created"):
            tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(num_steps=1)])
        step = tf.train.get_or_create_global_step()
        bump = tf.group(tf.assign_add(counter, 1), tf.assign_add(step, 1))
        with tf.train.MonitoredTrainingSession(hooks=[tf.train.StopAtStepHook(last_step=3)]) as session:
            while not session.should_stop():
                session.run(bump)
            with pytest.raises(RuntimeError, match="Run called even after should_stop requested."):
                session.run(bump)


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
def test_monitored_session_matches_tensorflow_2_15():
    expected, got = run_tf215(MONITORED_SESSION), run_webflow(MONITORED_SESSION)
    # (summary steps are left out: TensorFlow's SummarySaverHook reads the global step while train_op changes it)
    for key in ("first", "checkpoints", "step"):
        assert got[key] == expected[key], key
    np.testing.assert_allclose(got["losses"], expected["losses"], rtol=1e-6)
    np.testing.assert_allclose(got["w"], expected["w"], rtol=1e-6)
