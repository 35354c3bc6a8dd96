"""Recurrent cells, static_rnn and dynamic_rnn against real TensorFlow 2.21 (tf.compat.v1.nn.rnn_cell).

Each program builds a cell, unrolls it with static_rnn, dynamic_rnn or their bidirectional forms (with
sequence_length, the second batch entry shorter, and without), sets every variable by name to the same NumPy
values in both engines, then fetches the outputs, the final state, the variables' names and shapes, and
tf.gradients of a weighted sum of outputs and final state w.r.t. every variable and the inputs. The same
source runs in both engines (tests/tf_subprocess.py).
"""

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

PROGRAM = """
import zlib
tf.set_random_seed(3)
dtype = tf.{dtype}
rnn_cell = tf.nn.rnn_cell
batch, steps, depth = 3, 4, 5
x = tf.placeholder(dtype, [batch, steps, depth])
cell = {cell}
lengths = {lengths}
if "{unroll}" == "static":
    outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), sequence_length=lengths, dtype=dtype)
    outputs = tf.stack(outputs, axis=1)
elif "{unroll}" == "dynamic":
    outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=dtype)
elif "{unroll}" == "bidirectional_dynamic":
    outputs, state = tf.nn.bidirectional_dynamic_rnn(cell, {cell}, x, sequence_length=lengths, dtype=dtype)
    outputs = tf.concat(outputs, 2)
else:
    outputs, state_fw, state_bw = tf.nn.static_bidirectional_rnn(cell, {cell}, tf.unstack(x, axis=1),
                                                                 sequence_length=lengths, dtype=dtype)
    outputs, state = tf.stack(outputs, axis=1), (state_fw, state_bw)
def leaves(s):
    return [leaf for part in s for leaf in leaves(part)] if isinstance(s, tuple) else [s]
state_leaves = leaves(state)
variables = tf.global_variables()
weights = np.random.RandomState(1)
loss = tf.reduce_sum(outputs * weights.uniform(0.5, 1.5, outputs.shape.as_list()).astype("{dtype}"))
for leaf in state_leaves:
    loss += tf.reduce_sum(leaf * weights.uniform(0.5, 1.5, leaf.shape.as_list()).astype("{dtype}"))
grads = tf.gradients(loss, variables + [x])
assigns = [tf.assign(v, np.random.RandomState(zlib.crc32(v.op.name.encode())).uniform(-0.6, 0.6, v.shape.as_list())
                     .astype("{dtype}")) for v in variables]
x_value = np.random.RandomState(7).uniform(-1, 1, [batch, steps, depth]).astype("{dtype}")
with tf.Session() as sess:
    sess.run(assigns)
    out, final, grad_values = sess.run([outputs, state_leaves, grads], {{x: x_value}})
result = {{"names": [v.name for v in variables], "shapes": [v.shape.as_list() for v in variables],
          "outputs": out, "state": final, "grads": grad_values}}
"""

CELLS = {
    "basic_rnn": "rnn_cell.BasicRNNCell(6)",
    "basic_lstm": "rnn_cell.BasicLSTMCell(6)",
    "basic_lstm_concat_state": "rnn_cell.BasicLSTMCell(4, forget_bias=0.5, state_is_tuple=False)",
    "lstm_peephole_proj_clip": "rnn_cell.LSTMCell(6, use_peepholes=True, num_proj=3, cell_clip=0.4, forget_bias=0.7)",
    "lstm_plain": "rnn_cell.LSTMCell(4)",
    "gru": "rnn_cell.GRUCell(6)",
    "multi_lstm_gru": "rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(4), rnn_cell.GRUCell(3)])",
    "multi_two_lstm": "rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(4) for _ in range(2)])",
    "residual_gru": "rnn_cell.ResidualWrapper(rnn_cell.GRUCell(5))",
    "dropout_keep_all": "rnn_cell.DropoutWrapper(rnn_cell.BasicLSTMCell(4), input_keep_prob=1.0, "
                        "output_keep_prob=1.0)",
    "dropout_seeded_static_only": "rnn_cell.DropoutWrapper(rnn_cell.MultiRNNCell([rnn_cell.BasicLSTMCell(4), "
                                  "rnn_cell.BasicLSTMCell(3)]), input_keep_prob=0.8, output_keep_prob=0.7, "
                                  "state_keep_prob=0.6, seed=5)",
    "dropout_variational": "rnn_cell.DropoutWrapper(rnn_cell.BasicLSTMCell(4), input_keep_prob=0.8, "
                           "output_keep_prob=0.7, state_keep_prob=0.6, variational_recurrent=True, input_size=depth, "
                           "dtype=dtype, seed=9)",
}

# TensorFlow's while_loop runs steps in parallel, so which step gets which of the (same) seeded draws is its
# scheduler's choice: seeded per-step dropout is compared with TensorFlow under static_rnn only
CASES = [(cell, unroll, "float32") for cell in CELLS for unroll in ("static", "dynamic")
         if not (cell.endswith("static_only") and unroll == "dynamic")]
CASES += [(cell, "dynamic", "float64") for cell in ("basic_lstm", "gru", "lstm_peephole_proj_clip")]
CASES += [(cell, unroll, "float32") for cell in ("basic_lstm", "gru", "multi_lstm_gru")
          for unroll in ("bidirectional_dynamic", "bidirectional_static")]


CASES = [case + ("lengths",) for case in CASES]
CASES += [(cell, unroll, "float32", "no_lengths") for cell in ("basic_lstm", "multi_lstm_gru")
          for unroll in ("static", "dynamic", "bidirectional_dynamic")]


def _source(cell: str, unroll: str, dtype: str, lengths: str = "lengths") -> str:
    return PROGRAM.format(cell=CELLS[cell], unroll=unroll, dtype=dtype,
                          lengths="[4, 2, 3]" if lengths == "lengths" else "None")


def _key(case: tuple) -> str:
    return "-".join(case)


@pytest.fixture(scope="module")
def tensorflow_results():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({_key(case): _source(*case) for case in CASES})


@pytest.mark.parametrize("case", CASES, ids=_key)
def test_matches_tensorflow(case, tensorflow_results):
    expected = tensorflow_results[_key(case)]
    got = run_webflow(_source(*case))
    assert got["names"] == expected["names"]
    assert got["shapes"] == expected["shapes"]
    tolerance = 1e-10 if case[2] == "float64" else 1e-5
    for part in ("outputs", "state", "grads"):
        for index, (mine, theirs) in enumerate(zip(got[part], expected[part])):
            np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs), atol=tolerance, rtol=tolerance,
                                       err_msg=f"{_key(case)} {part}[{index}]")
        assert len(got[part]) == len(expected[part])


def test_outputs_past_the_length_are_zero():
    """Independent of TensorFlow: entry 1 (length 2) outputs zeros at steps 2 and 3, and its final state is its
    step-1 state (the same numbers as a run on its first two steps alone)."""
    got = run_webflow(_source("gru", "dynamic", "float64"))
    outputs = np.asarray(got["outputs"])
    assert np.all(outputs[1, 2:] == 0) and np.all(outputs[1, :2] != 0)
    np.testing.assert_array_equal(np.asarray(got["state"][0])[1], outputs[1, 1])
