"""Bad input to the recurrent cells and RNNs: the errors and messages (TensorFlow's where it has one; the cell
depth check names the layer, the expected and the given shape, as Keras's InputSpec does); the aliases; a
cell's variable list."""

import pytest

import webflow.compat.v1 as tf

pytestmark = pytest.mark.usefixtures("graph_mode")  # every test in TF1 graph mode (tests/conftest.py)


def test_a_cell_given_rank_3_inputs_names_itself_and_both_ranks():
    cell = tf.nn.rnn_cell.BasicLSTMCell(4)
    with pytest.raises(ValueError, match=r'Input 0 of layer "basic_lstm_cell" is incompatible with the layer: '
                                         r"expected ndim=2, found ndim=3. Full shape received: \(2, 3, 5\)"):
        cell(tf.zeros([2, 3, 5]), cell.zero_state(2, tf.float32))


def test_a_cell_called_again_with_another_depth():
    cell = tf.nn.rnn_cell.GRUCell(4)
    state = cell.zero_state(2, tf.float32)
    cell(tf.zeros([2, 5]), state)
    with pytest.raises(ValueError, match=r'layer "gru_cell" .* expected axis -1 of input shape to have value 5, '
                                         r"but received input with shape \(2, 6\)"):
        cell(tf.zeros([2, 6]), state)


def test_initial_state_of_the_wrong_structure_shows_both():
    with pytest.raises(ValueError, match=r"(?s)don't have the same nested structure.*LSTMStateTuple\(c=4, h=4\)"
                                         r".*zeros"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(4), tf.zeros([2, 3, 5]), initial_state=tf.zeros([2, 4]))


def test_no_initial_state_and_no_dtype():
    with pytest.raises(ValueError, match="If no initial_state is provided, argument `dtype` must be specified"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), tf.zeros([2, 3, 5]))


def test_dynamic_rnn_inputs_of_rank_2():
    with pytest.raises(ValueError, match=r"Shape \(2, 5\) must have rank at least 3"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), tf.zeros([2, 5]), dtype=tf.float32)


def test_multi_rnn_cell_needs_a_cell():
    with pytest.raises(ValueError, match="Must specify at least one cell for MultiRNNCell."):
        tf.nn.rnn_cell.MultiRNNCell([])


def test_aliases():
    assert tf.contrib.rnn.BasicLSTMCell is tf.nn.rnn_cell.BasicLSTMCell
    assert tf.contrib.rnn.static_rnn is tf.nn.static_rnn


def test_a_cell_lists_its_variables():
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.GRUCell(3)),
                                        tf.nn.rnn_cell.LSTMCell(2, num_proj=1)])
    tf.nn.dynamic_rnn(cell, tf.zeros([2, 3, 4]), dtype=tf.float32)
    assert [v.name for v in cell.weights] == [
        "rnn/multi_rnn_cell/cell_0/gru_cell/gates/kernel:0", "rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias:0",
        "rnn/multi_rnn_cell/cell_0/gru_cell/candidate/kernel:0", "rnn/multi_rnn_cell/cell_0/gru_cell/candidate/bias:0",
        "rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0", "rnn/multi_rnn_cell/cell_1/lstm_cell/bias:0",
        "rnn/multi_rnn_cell/cell_1/lstm_cell/projection/kernel:0"]
    assert cell.trainable_variables == tf.trainable_variables()
