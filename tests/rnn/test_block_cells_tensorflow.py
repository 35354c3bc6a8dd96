"""The fused cells (tf.contrib.rnn.LSTMBlockCell, GRUBlockCell(V2); ops LSTMBlockCell, GRUBlockCell and their
*Grad ops) against real TensorFlow 2.21, plus central differences.

1. The raw ops on the same inputs: every output of LSTMBlockCell (with and without peepholes and clip),
   LSTMBlockCellGrad, GRUBlockCell and GRUBlockCellGrad, TensorFlow's kernels (tf.raw_ops) next to webflow's.
2. The cells in dynamic_rnn, forward and gradients: TensorFlow 2 has no tf.contrib, but LSTMBlockCell computes
   LSTMCell's step with the same variables (`rnn/lstm_cell/kernel`, `bias`, `w_*_diag`; gate order i, ci, f, o =
   LSTMCell's i, j, f, o), and GRUBlockCellV2 GRUCell's (`gates/*`, `candidate/*`). So TensorFlow runs
   tf.nn.rnn_cell.LSTMCell / GRUCell, webflow the block cell, both with every variable set by name to the same
   values; outputs, final state and tf.gradients w.r.t. the variables and the inputs must agree. LSTMBlockFusedCell
   (time-major, with and without sequence_length) likewise against LSTMCell in a time-major dynamic_rnn.
3. tf.gradients of one step of each cell == central differences of a float64 NumPy forward.
"""

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow.compat.v1 as wtf

TF_RAW = "raw = tf.raw_ops\n"
WEBFLOW_RAW = """
from types import SimpleNamespace
from webflow.ops.registry import apply_op
def _op(op_type):
    def call(**kwargs):
        attrs = {k: kwargs.pop(k) for k in ("forget_bias", "cell_clip", "use_peephole") if k in kwargs}
        names = {"LSTMBlockCell": "x cs_prev h_prev w wci wcf wco b",
                 "LSTMBlockCellGrad": "x cs_prev h_prev w wci wcf wco b i cs f o ci co cs_grad h_grad",
                 "GRUBlockCell": "x h_prev w_ru w_c b_ru b_c",
                 "GRUBlockCellGrad": "x h_prev w_ru w_c b_ru b_c r u c d_h"}[op_type].split()
        return apply_op(op_type, [kwargs[n] for n in names], attrs)
    return call
raw = SimpleNamespace(**{name: _op(name) for name in ("LSTMBlockCell", "LSTMBlockCellGrad", "GRUBlockCell",
                                                     "GRUBlockCellGrad")})
"""

RAW_OPS = """
rng = np.random.RandomState(5)
def u(*shape, scale=1.0):
    return tf.constant((rng.uniform(-1, 1, shape) * scale).astype("float32"))
batch, depth, cell = 3, 5, 4
x, cs_prev, h_prev = u(batch, depth), u(batch, cell, scale=2.0), u(batch, cell)
w, b = u(depth + cell, 4 * cell), u(4 * cell, scale=0.5)
wci, wcf, wco = u(cell), u(cell), u(cell)
fetches = {}
for key, attrs in {"plain": dict(forget_bias=1.0, cell_clip=-1.0, use_peephole=False),
                   "peephole_clip": dict(forget_bias=0.3, cell_clip=0.5, use_peephole=True),
                   "default_clip": dict(forget_bias=1.0, cell_clip=3.0, use_peephole=False)}.items():
    outs = raw.LSTMBlockCell(x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, **attrs)
    fetches["lstm_" + key] = list(outs)
    i, cs, f, o, ci, co, h = outs
    fetches["lstm_grad_" + key] = list(raw.LSTMBlockCellGrad(
        x=x, cs_prev=cs_prev, h_prev=h_prev, w=w, wci=wci, wcf=wcf, wco=wco, b=b, i=i, cs=cs, f=f, o=o, ci=ci, co=co,
        cs_grad=u(batch, cell), h_grad=u(batch, cell), use_peephole=attrs["use_peephole"]))
w_ru, w_c, b_ru, b_c = u(depth + cell, 2 * cell), u(depth + cell, cell), u(2 * cell), u(cell)
r, z, c, h = raw.GRUBlockCell(x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c)
fetches["gru"] = [r, z, c, h]
fetches["gru_grad"] = list(raw.GRUBlockCellGrad(x=x, h_prev=h_prev, w_ru=w_ru, w_c=w_c, b_ru=b_ru, b_c=b_c,
                                                r=r, u=z, c=c, d_h=u(batch, cell)))
with tf.Session() as sess:
    result = sess.run(fetches)
"""

RNN = """
import zlib
batch, steps, depth = 3, 6, 5
x = tf.placeholder(tf.float32, [batch, steps, depth])
cell = {cell}
outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length={lengths}, dtype=tf.float32)
def leaves(s):
    return [leaf for part in s for leaf in leaves(part)] if isinstance(s, tuple) else [s]
state_leaves = leaves(state)
variables = sorted(tf.global_variables(), key=lambda v: v.name)  # LSTMCell makes w_f_diag first, the block cell w_i
weights = np.random.RandomState(1)
loss = tf.reduce_sum(outputs * weights.uniform(0.5, 1.5, outputs.shape.as_list()).astype("float32"))
for leaf in state_leaves:
    loss += tf.reduce_sum(leaf * weights.uniform(0.5, 1.5, leaf.shape.as_list()).astype("float32"))
grads = tf.gradients(loss, variables + [x])
assigns = [tf.assign(v, np.random.RandomState(zlib.crc32(v.op.name.encode())).uniform(-0.6, 0.6, v.shape.as_list())
                     .astype("float32")) for v in variables]
x_value = np.random.RandomState(7).uniform(-1, 1, [batch, steps, depth]).astype("float32")
with tf.Session() as sess:
    sess.run(assigns)
    out, final, grad_values = sess.run([outputs, state_leaves, grads], {{x: x_value}})
result = {{"names": [v.name for v in variables], "shapes": [v.shape.as_list() for v in variables],
          "outputs": out, "state": final, "grads": grad_values}}
"""

# LSTMBlockFusedCell (time-major, one call) against TensorFlow's LSTMCell in a time-major dynamic_rnn; variables
# matched by their last name part (`lstm_fused_cell/kernel` here, `rnn/lstm_cell/kernel` there)
FUSED = """
import zlib
steps, batch, depth = 6, 3, 5
x = tf.placeholder(tf.float32, [steps, batch, depth])
{run}
variables = sorted(tf.global_variables(), key=lambda v: v.op.name.split("/")[-1])
weights = np.random.RandomState(1)
loss = tf.reduce_sum(outputs * weights.uniform(0.5, 1.5, outputs.shape.as_list()).astype("float32"))
for leaf in state:
    loss += tf.reduce_sum(leaf * weights.uniform(0.5, 1.5, leaf.shape.as_list()).astype("float32"))
grads = tf.gradients(loss, variables + [x])
assigns = [tf.assign(v, np.random.RandomState(zlib.crc32(v.op.name.split("/")[-1].encode()))
                     .uniform(-0.6, 0.6, v.shape.as_list()).astype("float32")) for v in variables]
x_value = np.random.RandomState(7).uniform(-1, 1, [steps, batch, depth]).astype("float32")
with tf.Session() as sess:
    sess.run(assigns)
    out, final, grad_values = sess.run([outputs, list(state), grads], {{x: x_value}})
result = {{"outputs": out, "state": final, "grads": grad_values}}
"""
FUSED_RUNS = {
    "tensorflow": "cell = tf.nn.rnn_cell.LSTMCell(4, use_peepholes={peephole}, cell_clip=50.0)\n"
                  "outputs, state = tf.nn.dynamic_rnn(cell, x, sequence_length={lengths}, dtype=tf.float32, "
                  "time_major=True)",
    "webflow": "cell = tf.contrib.rnn.LSTMBlockFusedCell(4, cell_clip=50.0, use_peephole={peephole})\n"
               "outputs, state = cell(x, dtype=tf.float32, sequence_length={lengths})",
}
FUSED_CASES = [(peephole, lengths) for peephole in ("False", "True") for lengths in ("None", "[6, 2, 4]")]


def _fused_source(engine: str, case: tuple) -> str:
    return FUSED.format(run=FUSED_RUNS[engine].format(peephole=case[0], lengths=case[1]))


def _fused_key(case: tuple) -> str:
    return f"fused-peephole_{case[0]}-{'lengths' if case[1] != 'None' else 'full'}"


# (TensorFlow's cell, webflow's block cell): the same step and the same variable names
CELLS = {
    "lstm": ("tf.nn.rnn_cell.LSTMCell(6)", "tf.contrib.rnn.LSTMBlockCell(6)"),
    "lstm_forget_bias": ("tf.nn.rnn_cell.LSTMCell(4, forget_bias=0.4)", "tf.contrib.rnn.LSTMBlockCell(4, 0.4)"),
    # a clip no cell state reaches: TensorFlow's block cell does not differentiate through the clip either
    "lstm_peephole": ("tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, cell_clip=50.0)",
                      "tf.contrib.rnn.LSTMBlockCell(5, cell_clip=50.0, use_peephole=True)"),
    "gru_v2": ("tf.nn.rnn_cell.GRUCell(6)", "tf.contrib.rnn.GRUBlockCellV2(6)"),
    "multi_lstm": ("tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(4), tf.nn.rnn_cell.LSTMCell(3)])",
                   "tf.nn.rnn_cell.MultiRNNCell([tf.contrib.rnn.LSTMBlockCell(4), tf.contrib.rnn.LSTMBlockCell(3)])"),
}
RNN_CASES = [(name, lengths) for name in CELLS for lengths in ("None", "[6, 2, 4]")]


def _rnn_key(case: tuple) -> str:
    return f"{case[0]}-{'lengths' if case[1] != 'None' else 'full'}"


@pytest.fixture(scope="module")
def tensorflow_results():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    programs = {"raw": TF_RAW + RAW_OPS}
    programs.update({_rnn_key(case): RNN.format(cell=CELLS[case[0]][0], lengths=case[1]) for case in RNN_CASES})
    programs.update({_fused_key(case): _fused_source("tensorflow", case) for case in FUSED_CASES})
    return run_tensorflow(programs)


def _close(mine, theirs, message: str, tolerance: float = 1e-5) -> None:
    np.testing.assert_allclose(np.asarray(mine, np.float64), np.asarray(theirs, np.float64), atol=tolerance,
                               rtol=tolerance, err_msg=message)


def test_raw_ops_match_tensorflow(tensorflow_results):
    expected = tensorflow_results["raw"]
    got = run_webflow(WEBFLOW_RAW + RAW_OPS)
    assert sorted(got) == sorted(expected)
    for key in expected:
        assert len(got[key]) == len(expected[key]), key
        for index, (mine, theirs) in enumerate(zip(got[key], expected[key])):
            _close(mine, theirs, f"{key} output {index}")


@pytest.mark.parametrize("case", RNN_CASES, ids=_rnn_key)
def test_block_cell_rnn_matches_tensorflow(case, tensorflow_results):
    expected = tensorflow_results[_rnn_key(case)]
    got = run_webflow(RNN.format(cell=CELLS[case[0]][1], lengths=case[1]))
    assert got["names"] == expected["names"]
    assert got["shapes"] == expected["shapes"]
    for part in ("outputs", "state", "grads"):
        assert len(got[part]) == len(expected[part])
        for index, (mine, theirs) in enumerate(zip(got[part], expected[part])):
            _close(mine, theirs, f"{_rnn_key(case)} {part}[{index}]", 2e-5)


@pytest.mark.parametrize("case", FUSED_CASES, ids=_fused_key)
def test_fused_cell_matches_tensorflow(case, tensorflow_results):
    expected = tensorflow_results[_fused_key(case)]
    got = run_webflow(_fused_source("webflow", case))
    for part in ("outputs", "state", "grads"):
        assert len(got[part]) == len(expected[part])
        for index, (mine, theirs) in enumerate(zip(got[part], expected[part])):
            _close(mine, theirs, f"{_fused_key(case)} {part}[{index}]", 2e-5)


# --- 3. central differences (no TensorFlow needed) ------------------------------------------------------
def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _lstm_step(x, c, h, w, b, peep):
    gates = np.hstack([x, h]) @ w + b
    gi, gci, gf, go = np.split(gates, 4, axis=1)
    new_c = np.tanh(gci) * _sigmoid(gi + c * peep[0]) + c * _sigmoid(gf + 1.0 + c * peep[1])
    return new_c, np.tanh(new_c) * _sigmoid(go + new_c * peep[2])


def _gru_step(x, h, w_ru, w_c, b_ru, b_c):
    r, z = np.split(_sigmoid(np.hstack([x, h]) @ w_ru + b_ru), 2, axis=1)
    candidate = np.tanh(np.hstack([x, h * r]) @ w_c + b_c)
    return z * h + (1 - z) * candidate


def _numerical(objective, values: list, index: int, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(values[index])
    for position in np.ndindex(grad.shape):
        shifted = [v.copy() for v in values]
        shifted[index][position] += eps
        plus = objective(*shifted)
        shifted[index][position] -= 2 * eps
        grad[position] = (plus - objective(*shifted)) / (2 * eps)
    return grad


def _webflow_grads(build, values: list) -> list:
    wtf.disable_v2_behavior()
    wtf.reset_default_graph()
    holders = [wtf.placeholder(wtf.float32, v.shape) for v in values]
    loss = build(*holders)
    with wtf.Session() as sess:
        return sess.run(wtf.gradients(loss, holders), dict(zip(holders, [v.astype(np.float32) for v in values])))


def test_lstm_block_cell_gradients_match_central_differences():
    from webflow.ops.rnn_block_ops import lstm_block_cell

    rng = np.random.default_rng(2)
    batch, depth, cell = 3, 4, 5
    values = [rng.uniform(-1, 1, s) for s in ((batch, depth), (batch, cell), (batch, cell), (depth + cell, 4 * cell),
                                              (4 * cell,), (cell,), (cell,), (cell,))]
    weights_c, weights_h = rng.uniform(0.5, 1.5, (batch, cell)), rng.uniform(0.5, 1.5, (batch, cell))

    def objective(x, c, h, w, b, wci, wcf, wco):
        new_c, new_h = _lstm_step(x, c, h, w, b, (wci, wcf, wco))
        return float(np.sum(new_c * weights_c) + np.sum(new_h * weights_h))

    def build(x, c, h, w, b, wci, wcf, wco):
        outs = lstm_block_cell(x, c, h, w, wci, wcf, wco, b, cell_clip=-1.0, use_peephole=True)
        return wtf.reduce_sum(outs[1] * weights_c.astype(np.float32)) + \
            wtf.reduce_sum(outs[6] * weights_h.astype(np.float32))

    for index, got in enumerate(_webflow_grads(build, values)):
        np.testing.assert_allclose(got, _numerical(objective, values, index), atol=2e-5, rtol=1e-4,
                                   err_msg=f"input {index}")


def test_gru_block_cell_gradients_match_central_differences():
    from webflow.ops.rnn_block_ops import gru_block_cell

    rng = np.random.default_rng(3)
    batch, depth, cell = 3, 4, 5
    values = [rng.uniform(-1, 1, s) for s in ((batch, depth), (batch, cell), (depth + cell, 2 * cell),
                                              (depth + cell, cell), (2 * cell,), (cell,))]
    weights = rng.uniform(0.5, 1.5, (batch, cell))

    def objective(*args):
        return float(np.sum(_gru_step(*args) * weights))

    def build(*tensors):
        return wtf.reduce_sum(gru_block_cell(*tensors)[3] * weights.astype(np.float32))

    for index, got in enumerate(_webflow_grads(build, values)):
        np.testing.assert_allclose(got, _numerical(objective, values, index), atol=2e-5, rtol=1e-4,
                                   err_msg=f"input {index}")


def test_variable_names_and_errors():
    """TF 1.x contrib's variable names; a GRUBlockCell needs exactly one of num_units and cell_size."""
    wtf.disable_v2_behavior()
    wtf.reset_default_graph()
    x = wtf.placeholder(wtf.float32, [2, 3, 4])
    wtf.nn.dynamic_rnn(wtf.contrib.rnn.LSTMBlockCell(3, use_peephole=True), x, dtype=wtf.float32, scope="a")
    wtf.nn.dynamic_rnn(wtf.contrib.rnn.GRUBlockCell(2), x, dtype=wtf.float32, scope="b")
    names = [v.name for v in wtf.global_variables()]
    assert names == ["a/lstm_cell/kernel:0", "a/lstm_cell/bias:0", "a/lstm_cell/w_i_diag:0", "a/lstm_cell/w_f_diag:0",
                     "a/lstm_cell/w_o_diag:0", "b/gru_cell/w_ru:0", "b/gru_cell/b_ru:0", "b/gru_cell/w_c:0",
                     "b/gru_cell/b_c:0"]
    fused = wtf.contrib.rnn.LSTMBlockFusedCell(2)
    fused(wtf.transpose(x, [1, 0, 2]), dtype=wtf.float32)
    assert [v.name for v in fused.weights] == ["lstm_fused_cell/kernel:0", "lstm_fused_cell/bias:0"]
    with pytest.raises(ValueError, match="Exactly one of num_units or cell_size"):
        wtf.contrib.rnn.GRUBlockCell(2, cell_size=2)
