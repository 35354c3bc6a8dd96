"""Cell scope names as TensorFlow's layers pick them (a `default_name` variable scope): a second dynamic_rnn on new
cell objects in the same AUTO_REUSE scope finds the first one's `multi_rnn_cell` again and shares its variables
(what a char-RNN's sampling graph does), while two cells in one scope still get `lstm_cell` and `lstm_cell_1`."""

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

PROGRAMS = {
    "auto_reuse_second_call": """
def build(x):
    with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
        cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(3) for _ in range(2)])
        return tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)[0]
build(tf.zeros([2, 4, 5]))
build(tf.zeros([1, 3, 5]))
result = [v.name for v in tf.trainable_variables()]
""",
    "two_cells_one_scope": """
x = tf.zeros([2, 5])
first, second = tf.nn.rnn_cell.LSTMCell(3), tf.nn.rnn_cell.LSTMCell(3)
first(x, first.zero_state(2, tf.float32))
second(x, second.zero_state(2, tf.float32))
result = [v.name for v in tf.trainable_variables()]
""",
}


@pytest.mark.parametrize("key", list(PROGRAMS))
def test_variable_names_match_tensorflow(key):
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    assert run_webflow(PROGRAMS[key]) == run_tensorflow({key: PROGRAMS[key]})[key]
