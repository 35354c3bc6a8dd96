"""The `tf.nn.rnn_cell` namespace (also `tf.compat.v1.nn.rnn_cell` and `tf.contrib.rnn`): the cells of
rnn_cell_impl.py and rnn_cell_wrappers.py under TensorFlow's names."""

# ruff: noqa: F401
from webflow.nn.rnn_cell_impl import BasicLSTMCell, BasicRNNCell, GRUCell, LSTMCell, LSTMStateTuple, RNNCell
from webflow.nn.rnn_cell_wrappers import DropoutWrapper, MultiRNNCell, ResidualWrapper
