"""No-NumPy kernels of the fused recurrent cells (ops/rnn_block_ops.py): LSTMBlockCell, GRUBlockCell and their
*Grad ops on CArrays, one batch row at a time in Python floats (stored back at the inputs' precision).

They state the same formulas as the NumPy kernels; inside Pyodide the C kernels (wasm/rnn_block.c) run instead
whenever the wasm module loads, so these are the reference of last resort, written to be read.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.c.rnn_block import check_gru_inputs, check_lstm_inputs


def _rows(x: CArray) -> list:
    """A [rows, cols] CArray as a list of lists of Python floats."""
    cols = x.shape[1]
    flat = x.data.tolist()
    return [flat[r * cols:(r + 1) * cols] for r in range(x.shape[0])]


def _matrix(rows: list, dtype: Any, cols: int) -> CArray:
    flat = [v for row in rows for v in row]
    return CArray(c_array.new_buffer(c_array.TYPECODES[dtype.name], flat), (len(rows), cols), dtype)


def _vector(values: list, dtype: Any) -> CArray:
    return CArray(c_array.new_buffer(c_array.TYPECODES[dtype.name], values), (len(values),), dtype)


def _sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v))


def _times(row: list, w: list) -> list:
    """row @ w for a vector `row` and a matrix `w` (list of rows)."""
    out = [0.0] * len(w[0])
    for value, w_row in zip(row, w):
        if value:
            for j, weight in enumerate(w_row):
                out[j] += value * weight
    return out


def _times_transposed(row: list, w: list) -> list:
    """row @ w^T."""
    return [sum(a * b for a, b in zip(row, w_row)) for w_row in w]


def lstm_block_cell(x: Any, cs_prev: Any, h_prev: Any, w: Any, wci: Any, wcf: Any, wco: Any, b: Any, *,
                    forget_bias: float = 1.0, cell_clip: float = 3.0, use_peephole: bool = False) -> list:
    """[i, ci, f, o] = [x, h_prev] w + b; i, f = sigmoid(. + cs_prev * wci/wcf); ci = tanh(ci);
    cs = clip(ci * i + cs_prev * f); o = sigmoid(o + cs * wco); co = tanh(cs); h = co * o."""
    cell = check_lstm_inputs(x, cs_prev, h_prev, w, b)[2]
    weights, bias = _rows(w), b.data.tolist()
    peep = [v.data.tolist() if use_peephole else [0.0] * cell for v in (wci, wcf, wco)]
    outputs: list = [[] for _ in range(7)]
    for x_row, c_row, h_row in zip(_rows(x), _rows(cs_prev), _rows(h_prev)):
        gates = [g + bb for g, bb in zip(_times(x_row + h_row, weights), bias)]
        i = [_sigmoid(gates[k] + c_row[k] * peep[0][k]) for k in range(cell)]
        ci = [math.tanh(gates[cell + k]) for k in range(cell)]
        f = [_sigmoid(gates[2 * cell + k] + forget_bias + c_row[k] * peep[1][k]) for k in range(cell)]
        cs = [ci[k] * i[k] + c_row[k] * f[k] for k in range(cell)]
        if cell_clip > 0:
            cs = [min(max(v, -cell_clip), cell_clip) for v in cs]
        o = [_sigmoid(gates[3 * cell + k] + cs[k] * peep[2][k]) for k in range(cell)]
        co = [math.tanh(v) for v in cs]
        h = [a * bb for a, bb in zip(co, o)]
        for out, row in zip(outputs, (i, cs, f, o, ci, co, h)):
            out.append(row)
    return [_matrix(rows, x.dtype, cell) for rows in outputs]


def lstm_block_cell_grad(x: Any, cs_prev: Any, h_prev: Any, w: Any, wci: Any, wcf: Any, wco: Any, b: Any,
                         i: Any, cs: Any, f: Any, o: Any, ci: Any, co: Any, cs_grad: Any, h_grad: Any, *,
                         use_peephole: bool) -> list:
    """do = o (1 - o) dh co; dcs = (1 - co^2) dh o + cs_grad (+ do wco); dci = (1 - ci^2) dcs i;
    df = f (1 - f) dcs cs_prev; di = i (1 - i) dcs ci; dicfo = [di, dci, df, do];
    cs_prev_grad = dcs f (+ di wci + df wcf); w*_grad = column sums of di cs_prev, df cs_prev, do cs."""
    cell = check_lstm_inputs(x, cs_prev, h_prev, w, b)[2]
    peep = [v.data.tolist() if use_peephole else [0.0] * cell for v in (wci, wcf, wco)]
    sums = [[0.0] * cell for _ in range(3)]
    prev_grads, dicfo = [], []
    rows = zip(*(_rows(t) for t in (cs_prev, i, cs, f, o, ci, co, cs_grad, h_grad)))
    for c_prev, i_r, cs_r, f_r, o_r, ci_r, co_r, dcs_in, dh in rows:
        do = [o_r[k] * (1 - o_r[k]) * dh[k] * co_r[k] for k in range(cell)]
        dcs = [(1 - co_r[k] ** 2) * dh[k] * o_r[k] + dcs_in[k] + do[k] * peep[2][k] for k in range(cell)]
        dci = [(1 - ci_r[k] ** 2) * dcs[k] * i_r[k] for k in range(cell)]
        df = [f_r[k] * (1 - f_r[k]) * dcs[k] * c_prev[k] for k in range(cell)]
        di = [i_r[k] * (1 - i_r[k]) * dcs[k] * ci_r[k] for k in range(cell)]
        prev_grads.append([dcs[k] * f_r[k] + di[k] * peep[0][k] + df[k] * peep[1][k] for k in range(cell)])
        dicfo.append(di + dci + df + do)
        if use_peephole:
            for k in range(cell):
                sums[0][k] += di[k] * c_prev[k]
                sums[1][k] += df[k] * c_prev[k]
                sums[2][k] += do[k] * cs_r[k]
    dtype = x.dtype
    return [_matrix(prev_grads, dtype, cell), _matrix(dicfo, dtype, 4 * cell)] + [_vector(s, dtype) for s in sums]


def gru_block_cell(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> list:
    """[r, u] = sigmoid([x, h_prev] w_ru + b_ru); c = tanh([x, h_prev * r] w_c + b_c); h = u h_prev + (1 - u) c."""
    cell = check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)[2]
    w_ru_rows, w_c_rows, b_ru_v, b_c_v = _rows(w_ru), _rows(w_c), b_ru.data.tolist(), b_c.data.tolist()
    outputs: list = [[] for _ in range(4)]
    for x_row, h_row in zip(_rows(x), _rows(h_prev)):
        ru = [_sigmoid(g + bb) for g, bb in zip(_times(x_row + h_row, w_ru_rows), b_ru_v)]
        r, u = ru[:cell], ru[cell:]
        hr = [a * bb for a, bb in zip(h_row, r)]
        c = [math.tanh(g + bb) for g, bb in zip(_times(x_row + hr, w_c_rows), b_c_v)]
        h = [u[k] * h_row[k] + (1 - u[k]) * c[k] for k in range(cell)]
        for out, row in zip(outputs, (r, u, c, h)):
            out.append(row)
    return [_matrix(rows, x.dtype, cell) for rows in outputs]


def gru_block_cell_grad(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any, r: Any, u: Any, c: Any,
                        d_h: Any) -> list:
    """d_c_bar = dh (1 - u)(1 - c^2); d_u_bar = dh (h_prev - c) u (1 - u); [d_x1, d_hr] = d_c_bar w_c^T;
    d_r_bar = d_hr h_prev r (1 - r); [d_x2, d_h2] = [d_r_bar, d_u_bar] w_ru^T;
    d_x = d_x1 + d_x2; d_h_prev = d_hr r + dh u + d_h2."""
    _, depth, cell = check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)
    w_ru_rows, w_c_rows = _rows(w_ru), _rows(w_c)
    d_x, d_h_prev, d_c_bars, d_ru_bars = [], [], [], []
    for h_row, r_row, u_row, c_row, dh in zip(*(_rows(t) for t in (h_prev, r, u, c, d_h))):
        d_c_bar = [dh[k] * (1 - u_row[k]) * (1 - c_row[k] ** 2) for k in range(cell)]
        d_u_bar = [dh[k] * (h_row[k] - c_row[k]) * u_row[k] * (1 - u_row[k]) for k in range(cell)]
        first = _times_transposed(d_c_bar, w_c_rows)
        d_hr = first[depth:]
        d_r_bar = [d_hr[k] * h_row[k] * r_row[k] * (1 - r_row[k]) for k in range(cell)]
        second = _times_transposed(d_r_bar + d_u_bar, w_ru_rows)
        d_x.append([a + bb for a, bb in zip(first[:depth], second[:depth])])
        d_h_prev.append([d_hr[k] * r_row[k] + dh[k] * u_row[k] + second[depth + k] for k in range(cell)])
        d_c_bars.append(d_c_bar)
        d_ru_bars.append(d_r_bar + d_u_bar)
    dtype = x.dtype
    return [_matrix(d_x, dtype, depth), _matrix(d_h_prev, dtype, cell), _matrix(d_c_bars, dtype, cell),
            _matrix(d_ru_bars, dtype, 2 * cell)]
