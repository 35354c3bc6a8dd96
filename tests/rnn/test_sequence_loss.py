"""tf.contrib.seq2seq.sequence_loss: every flag combination against a NumPy oracle (TF 1.15's formulas, stated in
webflow/nn/sequence_loss.py), its gradient against real TensorFlow 2.21 (which has no tf.contrib: the oracle program
spells the default mode out with TF's own cross-entropy kernel), and TensorFlow's ValueErrors."""

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow

import webflow.compat.v1 as tf

RNG = np.random.RandomState(3)
LOGITS = RNG.randn(3, 4, 5).astype("float32")
TARGETS = RNG.randint(0, 5, [3, 4]).astype("int32")
WEIGHTS = np.array([[1, 1, 1, 0], [1, 0.5, 0, 0], [0, 0, 0, 0]], "float32")


def _crossent() -> np.ndarray:
    shifted = LOGITS - LOGITS.max(-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    picked = np.take_along_axis(log_probs, TARGETS[..., None], -1)[..., 0]
    return -picked * WEIGHTS


def _by_count(losses, axis):
    count = np.count_nonzero(WEIGHTS, axis=axis).astype("float32")
    return np.where(count == 0, 0.0, losses.sum(axis) / np.maximum(count, 1))


# (average_across_timesteps, average_across_batch, sum_over_timesteps, sum_over_batch) -> oracle
CASES = {
    (True, True, False, False): lambda x: x.sum() / (WEIGHTS.sum() + 1e-12),
    (False, True, False, False): lambda x: x.sum(0) / (WEIGHTS.sum(0) + 1e-12),
    (True, False, False, False): lambda x: x.sum(1) / (WEIGHTS.sum(1) + 1e-12),
    (False, False, True, True): lambda x: _by_count(x, None),
    (False, False, False, True): lambda x: _by_count(x, 0),
    (False, False, True, False): lambda x: _by_count(x, 1),
    (False, False, False, False): lambda x: x,
    (True, False, False, True): lambda x: x.sum(1) / (WEIGHTS.sum(1) + 1e-12),  # timestep average wins
}


@pytest.mark.parametrize("flags", list(CASES))
def test_flags_match_the_formulas(flags):
    loss = tf.contrib.seq2seq.sequence_loss(LOGITS, TARGETS, WEIGHTS, *flags)
    np.testing.assert_allclose(np.asarray(loss), CASES[flags](_crossent()), rtol=1e-5, atol=1e-6)


def test_custom_softmax_loss_function_receives_flat_labels_and_logits():
    seen = {}

    def loss_function(labels, logits):
        seen["shapes"] = (tuple(labels.shape), tuple(logits.shape))
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits) * 2.0

    loss = tf.contrib.seq2seq.sequence_loss(LOGITS, TARGETS, WEIGHTS, softmax_loss_function=loss_function)
    assert seen["shapes"] == ((12,), (12, 5))
    np.testing.assert_allclose(float(loss), 2 * CASES[(True, True, False, False)](_crossent()), rtol=1e-5)


@pytest.mark.parametrize("args, message", [
    ((LOGITS[0], TARGETS, WEIGHTS), "Logits must be a [batch_size x sequence_length x logits_num_classes] tensor"),
    ((LOGITS, TARGETS[0], WEIGHTS), "Targets must be a [batch_size x sequence_length] tensor"),
    ((LOGITS, TARGETS, WEIGHTS[0]), "Weights must be a [batch_size x sequence_length] tensor"),
    ((LOGITS, TARGETS, WEIGHTS, True, True, True), "average_across_timesteps and sum_over_timesteps cannot"),
    ((LOGITS, TARGETS, WEIGHTS, True, True, False, True), "average_across_batch and sum_over_batch cannot"),
])
def test_bad_arguments_raise_tensorflows_value_errors(args, message):
    with pytest.raises(ValueError) as error:
        tf.contrib.seq2seq.sequence_loss(*args)
    assert message in str(error.value)


GRADIENT_PROGRAM = """
logits = tf.constant(np.array(LOGITS, "float32"))
xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(TARGETS, [-1]),
                                                      logits=tf.reshape(logits, [-1, 5]))
loss = tf.reduce_sum(xent * tf.reshape(WEIGHTS, [-1])) / (tf.reduce_sum(WEIGHTS) + 1e-12)
with tf.Session() as sess:
    result = sess.run([loss, tf.gradients(loss, logits)[0]])
"""


def test_value_and_gradient_match_tensorflow():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    source = (f"LOGITS = {LOGITS.tolist()}\nTARGETS = {TARGETS.tolist()}\nWEIGHTS = {WEIGHTS.tolist()}\n"
              + GRADIENT_PROGRAM)
    expected = run_tensorflow({"default": source})["default"]
    with tf.Graph().as_default():
        logits = tf.constant(LOGITS)
        loss = tf.contrib.seq2seq.sequence_loss(logits, TARGETS, WEIGHTS)
        with tf.Session() as sess:
            got = sess.run([loss, tf.gradients(loss, logits)[0]])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], np.array(expected[1]), rtol=1e-5, atol=1e-7)
