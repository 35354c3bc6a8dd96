"""Fused recurrent cell steps, as TensorFlow's contrib.rnn kernels: LSTMBlockCell, GRUBlockCell and their *Grad ops.

One op computes a whole cell step (the gates' GEMM and the elementwise gate math), instead of the dozen ops an
LSTMCell builds; the gradient is one more op for the elementwise part plus the GEMMs of the weight and input
gradients, exactly as TF 1.x's contrib/rnn/python/ops/lstm_ops.py and gru_ops.py register them (TF 2 keeps the
ops as tf.raw_ops but no gradient; webflow registers TF 1's). Gate layouts are TensorFlow's: LSTM [i, ci, f, o]
(`icfo`), GRU [r, u]. The gradients use only the grads of the state outputs (cs and h; h), as TensorFlow's do,
and treat `cell_clip` as if it never clipped.

Kernels: NumPy (here), C (backends/c/rnn_block.py -> wasm/rnn_block.c) and portable
(backends/portable/rnn_block_kernels.py).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import rnn_block as c_rnn_block
from webflow.backends.portable import rnn_block_kernels
from webflow.framework import dtypes
from webflow.ops import concat_ops, matmul_ops, sum_mean_ops
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import merge_dims

LSTM_TYPES = (dtypes.float16, dtypes.float32)
GRU_TYPES = (dtypes.float32,)


def _dims(tensor: Any, name: str, rank: int = 2) -> list:
    if tensor.shape.rank is None:
        return [None] * rank
    if tensor.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank} for '{name}'")
    return list(tensor.shape.as_tuple())


def _batch_and_cell(x: Any, state: Any) -> tuple:
    batch = merge_dims(_dims(x, "x")[0], _dims(state, "state")[0],
                       "Dimensions must be equal, but are {a} and {b}")
    return batch, _dims(state, "state")[1]


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


# --- LSTMBlockCell -------------------------------------------------------------------------------------
def _lstm_shape(inputs: list, attrs: dict) -> list:
    batch, cell = _batch_and_cell(inputs[0], inputs[1])
    for index, name in ((3, "w"), (7, "b")):
        _dims(inputs[index], name, 2 if name == "w" else 1)
    return [output_spec([batch, cell], inputs[0].dtype.base_dtype)] * 7


@register_op("LSTMBlockCell", "LSTMBlockCell", inputs=("x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b"),
             shape=_lstm_shape, same_dtype="all", allowed=LSTM_TYPES, c=c_rnn_block.lstm_block_cell,
             portable=rnn_block_kernels.lstm_block_cell)
def lstm_block_cell_kernel(x: Any, cs_prev: Any, h_prev: Any, w: Any, wci: Any, wcf: Any, wco: Any, b: Any, *,
                           forget_bias: float = 1.0, cell_clip: float = 3.0, use_peephole: bool = False) -> list:
    """[i, ci, f, o] = [x, h_prev] w + b;  i = sigmoid(i + cs_prev wci);  f = sigmoid(f + forget_bias + cs_prev wcf);
    ci = tanh(ci);  cs = clip(ci i + cs_prev f, +-cell_clip if > 0);  o = sigmoid(o + cs wco);  co = tanh(cs);
    h = co o.  (wci, wcf, wco read only with use_peephole.)"""
    c_rnn_block.check_lstm_inputs(x, cs_prev, h_prev, w, b)
    cell, dtype = cs_prev.shape[1], x.dtype
    gates = np.concatenate([x, h_prev], 1) @ w + b
    gate_i, gate_ci, gate_f, gate_o = (gates[:, k * cell:(k + 1) * cell] for k in range(4))
    peepholes = (wci, wcf, wco) if use_peephole else (0, 0, 0)
    i = _sigmoid(gate_i + cs_prev * peepholes[0])
    f = _sigmoid(gate_f + dtype.type(forget_bias) + cs_prev * peepholes[1])
    ci = np.tanh(gate_ci)
    cs = ci * i + cs_prev * f
    if cell_clip > 0:
        cs = np.clip(cs, -dtype.type(cell_clip), dtype.type(cell_clip))
    o = _sigmoid(gate_o + cs * peepholes[2])
    co = np.tanh(cs)
    return [np.asarray(v, dtype) for v in (i, cs, f, o, ci, co, co * o)]


@register_gradient("LSTMBlockCell")
def _lstm_block_cell_grad(op: Any, *grads: Any) -> list:
    """dicfo (and cs_prev, peephole grads) from LSTMBlockCellGrad; [dx, dh_prev] = dicfo w^T;
    dw = [x, h_prev]^T dicfo; db = sum(dicfo, 0)."""
    x, cs_prev, h_prev, w, wci, wcf, wco, b = op.inputs
    cs_grad, h_grad = _dense(grads[1], op.outputs[1]), _dense(grads[6], op.outputs[6])
    cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad = apply_op(
        "LSTMBlockCellGrad", [x, cs_prev, h_prev, w, wci, wcf, wco, b, *op.outputs[:6], cs_grad, h_grad],
        {"use_peephole": op.get_attr("use_peephole")})
    xh = concat_ops.concat([x, h_prev], 1)
    xh_grad = matmul_ops.matmul(dicfo, w, transpose_b=True)
    depth = _depth(x)
    x_grad, h_prev_grad = xh_grad[:, :depth], xh_grad[:, depth:]
    w_grad = matmul_ops.matmul(xh, dicfo, transpose_a=True)
    b_grad = sum_mean_ops.reduce_sum(dicfo, 0)
    return [x_grad, cs_prev_grad, h_prev_grad, w_grad, wci_grad, wcf_grad, wco_grad, b_grad]


def _dense(grad: Any, like: Any) -> Any:
    """An output's gradient, zeros when nothing flows into it (TensorFlow's gradient receives zeros too)."""
    from webflow.ops import array_ops

    return array_ops.zeros_like(like) if grad is None else grad


def _depth(x: Any) -> Any:
    """x's static depth, or its run-time shape[1]."""
    known = x.shape.as_list()[1] if x.shape.rank == 2 else None
    if known is not None:
        return known
    from webflow.ops import array_ops

    return array_ops.shape(x)[1]


def lstm_block_cell(x: Any, cs_prev: Any, h_prev: Any, w: Any, wci: Any, wcf: Any, wco: Any, b: Any,
                    forget_bias: float = 1.0, cell_clip: float = 3.0, use_peephole: bool = False,
                    name: str | None = None) -> list:
    """tf.raw_ops.LSTMBlockCell: [i, cs, f, o, ci, co, h]."""
    return apply_op("LSTMBlockCell", [x, cs_prev, h_prev, w, wci, wcf, wco, b],
                    {"forget_bias": float(forget_bias), "cell_clip": float(cell_clip),
                     "use_peephole": bool(use_peephole)}, name=name)


# --- LSTMBlockCellGrad ---------------------------------------------------------------------------------
def _lstm_grad_shape(inputs: list, attrs: dict) -> list:
    batch, cell = _batch_and_cell(inputs[0], inputs[1])
    dtype = inputs[0].dtype.base_dtype
    return [output_spec([batch, cell], dtype), output_spec([batch, None if cell is None else 4 * cell], dtype)] + \
        [output_spec([cell], dtype)] * 3


@register_op("LSTMBlockCellGrad", "LSTMBlockCellGrad",
             inputs=("x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "i", "cs", "f", "o", "ci", "co",
                     "cs_grad", "h_grad"),
             shape=_lstm_grad_shape, same_dtype="all", allowed=LSTM_TYPES, c=c_rnn_block.lstm_block_cell_grad,
             portable=rnn_block_kernels.lstm_block_cell_grad)
def lstm_block_cell_grad_kernel(x: Any, cs_prev: Any, h_prev: Any, w: Any, wci: Any, wcf: Any, wco: Any, b: Any,
                                i: Any, cs: Any, f: Any, o: Any, ci: Any, co: Any, cs_grad: Any, h_grad: Any, *,
                                use_peephole: bool) -> list:
    """do = o (1 - o) h_grad co;  dcs = (1 - co^2) h_grad o + cs_grad (+ do wco);  dci = (1 - ci^2) dcs i;
    df = f (1 - f) dcs cs_prev;  di = i (1 - i) dcs ci;  dicfo = [di, dci, df, do];
    cs_prev_grad = dcs f (+ di wci + df wcf);  wci/wcf/wco_grad = sum over the batch of di cs_prev, df cs_prev,
    do cs (zeros without use_peephole)."""
    c_rnn_block.check_lstm_inputs(x, cs_prev, h_prev, w, b)
    do = o * (1 - o) * h_grad * co
    dcs = (1 - co * co) * h_grad * o + cs_grad
    if use_peephole:
        dcs = dcs + do * wco
    dci = (1 - ci * ci) * dcs * i
    df = f * (1 - f) * dcs * cs_prev
    di = i * (1 - i) * dcs * ci
    cs_prev_grad = dcs * f
    cell = cs_prev.shape[1]
    if use_peephole:
        cs_prev_grad = cs_prev_grad + di * wci + df * wcf
        peephole_grads = [(di * cs_prev).sum(0), (df * cs_prev).sum(0), (do * cs).sum(0)]
    else:
        peephole_grads = [np.zeros(cell, x.dtype)] * 3
    dicfo = np.concatenate([di, dci, df, do], 1)
    return [np.asarray(v, x.dtype) for v in [cs_prev_grad, dicfo, *peephole_grads]]


# --- GRUBlockCell --------------------------------------------------------------------------------------
def _gru_shape(inputs: list, attrs: dict) -> list:
    batch, cell = _batch_and_cell(inputs[0], inputs[1])
    return [output_spec([batch, cell], inputs[0].dtype.base_dtype)] * 4


@register_op("GRUBlockCell", "GRUBlockCell", inputs=("x", "h_prev", "w_ru", "w_c", "b_ru", "b_c"),
             shape=_gru_shape, same_dtype="all", allowed=GRU_TYPES, c=c_rnn_block.gru_block_cell,
             portable=rnn_block_kernels.gru_block_cell)
def gru_block_cell_kernel(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> list:
    """[r, u] = sigmoid([x, h_prev] w_ru + b_ru);  c = tanh([x, h_prev r] w_c + b_c);  h = u h_prev + (1 - u) c."""
    cell = c_rnn_block.check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)[2]
    ru = _sigmoid(np.concatenate([x, h_prev], 1) @ w_ru + b_ru)
    r, u = ru[:, :cell], ru[:, cell:]
    c = np.tanh(np.concatenate([x, h_prev * r], 1) @ w_c + b_c)
    h = u * h_prev + (1 - u) * c
    return [np.asarray(v, x.dtype) for v in (r, u, c, h)]


@register_gradient("GRUBlockCell")
def _gru_block_cell_grad(op: Any, *grads: Any) -> list:
    """dx, dh_prev, d_c_bar, d_r_bar_u_bar from GRUBlockCellGrad; dw_ru = [x, h_prev]^T d_r_bar_u_bar;
    dw_c = [x, h_prev r]^T d_c_bar; db_ru, db_c = their sums over the batch."""
    x, h_prev, w_ru, w_c, b_ru, b_c = op.inputs
    r, u, c, _ = op.outputs
    d_h = _dense(grads[3], op.outputs[3])
    d_x, d_h_prev, d_c_bar, d_r_bar_u_bar = apply_op("GRUBlockCellGrad",
                                                     [x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h], {})
    d_w_ru = matmul_ops.matmul(concat_ops.concat([x, h_prev], 1), d_r_bar_u_bar, transpose_a=True)
    d_w_c = matmul_ops.matmul(concat_ops.concat([x, h_prev * r], 1), d_c_bar, transpose_a=True)
    return [d_x, d_h_prev, d_w_ru, d_w_c, sum_mean_ops.reduce_sum(d_r_bar_u_bar, 0),
            sum_mean_ops.reduce_sum(d_c_bar, 0)]


def gru_block_cell(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, name: str | None = None) -> list:
    """tf.raw_ops.GRUBlockCell: [r, u, c, h]."""
    return apply_op("GRUBlockCell", [x, h_prev, w_ru, w_c, b_ru, b_c], {}, name=name)


# --- GRUBlockCellGrad ----------------------------------------------------------------------------------
def _gru_grad_shape(inputs: list, attrs: dict) -> list:
    batch, cell = _batch_and_cell(inputs[0], inputs[1])
    dtype = inputs[0].dtype.base_dtype
    return [output_spec(inputs[0].shape if inputs[0].shape.rank else [batch, None], dtype),
            output_spec([batch, cell], dtype), output_spec([batch, cell], dtype),
            output_spec([batch, None if cell is None else 2 * cell], dtype)]


@register_op("GRUBlockCellGrad", "GRUBlockCellGrad",
             inputs=("x", "h_prev", "w_ru", "w_c", "b_ru", "b_c", "r", "u", "c", "d_h"),
             shape=_gru_grad_shape, same_dtype="all", allowed=GRU_TYPES, c=c_rnn_block.gru_block_cell_grad,
             portable=rnn_block_kernels.gru_block_cell_grad)
def gru_block_cell_grad_kernel(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any,
                               c: Any, d_h: Any) -> list:
    """d_c_bar = d_h (1 - u)(1 - c^2);  d_u_bar = d_h (h_prev - c) u (1 - u);  [d_x1, d_hr] = d_c_bar w_c^T;
    d_r_bar = d_hr h_prev r (1 - r);  [d_x2, d_h2] = [d_r_bar, d_u_bar] w_ru^T;
    d_x = d_x1 + d_x2;  d_h_prev = d_hr r + d_h u + d_h2;  d_r_bar_u_bar = [d_r_bar, d_u_bar]."""
    depth = c_rnn_block.check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)[1]
    d_c_bar = d_h * (1 - u) * (1 - c * c)
    d_u_bar = d_h * (h_prev - c) * u * (1 - u)
    first = d_c_bar @ w_c.T
    d_hr = first[:, depth:]
    d_r_bar = d_hr * h_prev * r * (1 - r)
    d_r_bar_u_bar = np.concatenate([d_r_bar, d_u_bar], 1)
    second = d_r_bar_u_bar @ w_ru.T
    d_x = first[:, :depth] + second[:, :depth]
    d_h_prev = d_hr * r + d_h * u + second[:, depth:]
    return [np.asarray(v, x.dtype) for v in (d_x, d_h_prev, d_c_bar, d_r_bar_u_bar)]
