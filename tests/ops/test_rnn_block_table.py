"""Op table rows for the fused recurrent cells (ops/rnn_block_ops.py): LSTMBlockCell, LSTMBlockCellGrad,
GRUBlockCell, GRUBlockCellGrad.

References are written here in float64 NumPy from TensorFlow's formulas (contrib/rnn's lstm_ops and gru_ops),
independently of the kernels. The ops take float32 only (float16 too for the LSTM), as TensorFlow's, so the rows
check no float64 gradients; tests/rnn/test_block_cells_tensorflow.py checks the gradients against TensorFlow and
central differences.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow.ops.rnn_block_ops  # noqa: F401  (registers the ops)
from webflow.ops.registry import apply_op

rng = np.random.default_rng(11)
BATCH, DEPTH, CELL = 3, 5, 4


def r(*shape, scale=1.0):
    return (rng.uniform(-1, 1, shape) * scale).astype(np.float32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def f32(values):
    return [np.asarray(v, np.float32) for v in values]


def ref_lstm(x, cs_prev, h_prev, w, wci, wcf, wco, b, forget_bias=1.0, cell_clip=-1.0, use_peephole=False):
    x, cs_prev, h_prev, w, wci, wcf, wco, b = (np.asarray(v, np.float64) for v in (x, cs_prev, h_prev, w, wci, wcf,
                                                                                  wco, b))
    if not use_peephole:
        wci = wcf = wco = np.zeros_like(wci)
    gates = np.hstack([x, h_prev]) @ w + b
    gi, gci, gf, go = np.split(gates, 4, axis=1)
    i = sigmoid(gi + cs_prev * wci)
    f = sigmoid(gf + forget_bias + cs_prev * wcf)
    ci = np.tanh(gci)
    cs = ci * i + cs_prev * f
    if cell_clip > 0:
        cs = np.clip(cs, -cell_clip, cell_clip)
    o = sigmoid(go + cs * wco)
    co = np.tanh(cs)
    return f32([i, cs, f, o, ci, co, co * o])


def ref_lstm_grad(x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad, h_grad, use_peephole):
    values = [np.asarray(v, np.float64) for v in (cs_prev, wci, wcf, wco, i, cs, f, o, ci, co, cs_grad, h_grad)]
    cs_prev, wci, wcf, wco, i, cs, f, o, ci, co, cs_grad, h_grad = values
    if not use_peephole:
        wci = wcf = wco = np.zeros_like(wci)
    do = sigmoid_grad(o) * h_grad * co
    dcs = (1 - co ** 2) * h_grad * o + cs_grad + do * wco
    dci = (1 - ci ** 2) * dcs * i
    df = sigmoid_grad(f) * dcs * cs_prev
    di = sigmoid_grad(i) * dcs * ci
    peepholes = [(di * cs_prev).sum(0), (df * cs_prev).sum(0), (do * cs).sum(0)] if use_peephole \
        else [np.zeros(cs_prev.shape[1])] * 3
    return f32([dcs * f + di * wci + df * wcf, np.hstack([di, dci, df, do])] + peepholes)


def sigmoid_grad(y):
    return y * (1 - y)


def ref_gru(x, h_prev, w_ru, w_c, b_ru, b_c):
    x, h_prev, w_ru, w_c, b_ru, b_c = (np.asarray(v, np.float64) for v in (x, h_prev, w_ru, w_c, b_ru, b_c))
    ru = sigmoid(np.hstack([x, h_prev]) @ w_ru + b_ru)
    r_, u = np.split(ru, 2, axis=1)
    c = np.tanh(np.hstack([x, h_prev * r_]) @ w_c + b_c)
    return f32([r_, u, c, u * h_prev + (1 - u) * c])


def ref_gru_grad(x, h_prev, w_ru, w_c, b_ru, b_c, r_, u, c, d_h):
    x, h_prev, w_ru, w_c, r_, u, c, d_h = (np.asarray(v, np.float64) for v in (x, h_prev, w_ru, w_c, r_, u, c, d_h))
    depth = x.shape[1]
    d_c_bar = d_h * (1 - u) * (1 - c ** 2)
    d_u_bar = d_h * (h_prev - c) * sigmoid_grad(u)
    first = d_c_bar @ w_c.T
    d_r_bar = first[:, depth:] * h_prev * sigmoid_grad(r_)
    d_ru = np.hstack([d_r_bar, d_u_bar])
    second = d_ru @ w_ru.T
    return f32([first[:, :depth] + second[:, :depth], first[:, depth:] * r_ + d_h * u + second[:, depth:], d_c_bar,
                d_ru])


def lstm_inputs():
    return [r(BATCH, DEPTH), r(BATCH, CELL), r(BATCH, CELL), r(DEPTH + CELL, 4 * CELL), r(CELL), r(CELL), r(CELL),
            r(4 * CELL, scale=0.5)]


def lstm_op(**attrs):
    attrs = {"forget_bias": 1.0, "cell_clip": -1.0, "use_peephole": False, **attrs}
    return lambda *inputs: apply_op("LSTMBlockCell", list(inputs), attrs)


def lstm_grad_case(case_id, use_peephole):
    inputs = lstm_inputs()
    forward = ref_lstm(*inputs, use_peephole=use_peephole)
    grad_inputs = inputs + forward[:6] + [r(BATCH, CELL), r(BATCH, CELL)]
    return OpCase(case_id, lambda *t: apply_op("LSTMBlockCellGrad", list(t), {"use_peephole": use_peephole}),
                  grad_inputs, lambda *a: ref_lstm_grad(*a, use_peephole=use_peephole), grad=False)


def gru_inputs():
    return [r(BATCH, DEPTH), r(BATCH, CELL), r(DEPTH + CELL, 2 * CELL), r(DEPTH + CELL, CELL), r(2 * CELL), r(CELL)]


def gru_grad_case():
    inputs = gru_inputs()
    forward = ref_gru(*inputs)
    return OpCase("GRUBlockCellGrad", lambda *t: apply_op("GRUBlockCellGrad", list(t), {}),
                  inputs + forward[:3] + [r(BATCH, CELL)], ref_gru_grad, grad=False)


CASES = [
    OpCase("LSTMBlockCell", lstm_op(), lstm_inputs(), ref_lstm, grad=False),
    OpCase("LSTMBlockCell_peephole_clip", lstm_op(forget_bias=0.5, cell_clip=0.4, use_peephole=True), lstm_inputs(),
           lambda *a: ref_lstm(*a, forget_bias=0.5, cell_clip=0.4, use_peephole=True), grad=False),
    lstm_grad_case("LSTMBlockCellGrad", False),
    lstm_grad_case("LSTMBlockCellGrad_peephole", True),
    OpCase("GRUBlockCell", lambda *t: apply_op("GRUBlockCell", list(t), {}), gru_inputs(), ref_gru, grad=False),
    gru_grad_case(),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
