"""dynamic_rnn's other arguments against real TensorFlow 2.21: unknown batch and time sizes, time_major inputs, a
given initial_state (and the gradient w.r.t. it), sequence_length fed at run time, and training steps of an
optimizer through the loop. The same TF1 source runs in both engines (tests/tf_subprocess.py)."""

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

SETUP = """
import zlib
batch, steps, depth, units = 3, 4, 2, 5
rng = np.random.RandomState(5)
x_value = rng.uniform(-1, 1, [batch, steps, depth]).astype("float32")
def set_all(sess):
    for v in tf.global_variables():
        seed = zlib.crc32(v.op.name.encode())
        sess.run(tf.assign(v, np.random.RandomState(seed).uniform(-0.6, 0.6, v.shape.as_list()).astype("float32")))
"""

PROGRAMS = {
    "unknown_batch_and_time": """
x = tf.placeholder(tf.float32, [None, None, depth])
lengths = tf.placeholder(tf.int32, [None])
outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(units), x, sequence_length=lengths, dtype=tf.float32)
grads = tf.gradients(tf.reduce_sum(outputs * outputs) + tf.reduce_sum(state.h), [x] + tf.global_variables())
with tf.Session() as sess:
    set_all(sess)
    result = sess.run([outputs, state, grads], {x: x_value, lengths: [1, 4, 3]})
    result.append([str(outputs.shape), str(state.c.shape)])
""",
    "time_major_with_initial_state": """
x = tf.placeholder(tf.float32, [steps, batch, depth])
h0 = tf.placeholder(tf.float32, [batch, units])
outputs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(units), x, initial_state=h0, time_major=True,
                                   sequence_length=[2, 4, 0])
grads = tf.gradients(tf.reduce_sum(tf.sin(outputs)) + tf.reduce_sum(state * state), [x, h0] + tf.global_variables())
with tf.Session() as sess:
    set_all(sess)
    result = sess.run([outputs, state, grads], {x: x_value.transpose(1, 0, 2),
                                                h0: rng.uniform(-1, 1, [batch, units]).astype("float32")})
""",
    "lstm_concat_state_projection": """
x = tf.placeholder(tf.float32, [batch, steps, depth])
cell = tf.nn.rnn_cell.LSTMCell(units, num_proj=3, proj_clip=0.3, state_is_tuple=False, use_peepholes=True)
outputs, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
grads = tf.gradients(tf.reduce_sum(outputs) + tf.reduce_sum(state * 0.5), [x] + tf.global_variables())
with tf.Session() as sess:
    set_all(sess)
    result = sess.run([outputs, state, grads], {x: x_value})
""",
    "sgd_training_steps": """
x = tf.placeholder(tf.float32, [batch, steps, depth])
cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(units) for _ in range(2)])
outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=[4, 3, 2], dtype=tf.float32)
loss = tf.reduce_mean(tf.square(outputs - 0.3))
train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
with tf.Session() as sess:
    set_all(sess)
    losses = [sess.run([loss, train], {x: x_value})[0] for _ in range(5)]
    result = [losses, sess.run(tf.global_variables())]
""",
}


def _source(key: str) -> str:
    return SETUP + PROGRAMS[key]


@pytest.fixture(scope="module")
def tensorflow_results():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({key: _source(key) for key in PROGRAMS})


def _leaves(value):
    if isinstance(value, list) and value and isinstance(value[0], (list, str)) and not _is_matrix(value):
        return [leaf for part in value for leaf in _leaves(part)]
    return [value]


def _is_matrix(value):
    """A nested list of numbers (one array), not a list of arrays."""
    try:
        return np.asarray(value).dtype.kind in "fiu"
    except ValueError:
        return False


@pytest.mark.parametrize("key", PROGRAMS)
def test_matches_tensorflow(key, tensorflow_results):
    expected, got = _leaves(tensorflow_results[key]), _leaves(run_webflow(_source(key)))
    assert len(got) == len(expected)
    for index, (mine, theirs) in enumerate(zip(got, expected)):
        if isinstance(theirs, str):
            assert mine == theirs
            continue
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), atol=2e-5, rtol=1e-5,
                                   err_msg=f"{key} leaf {index}")
