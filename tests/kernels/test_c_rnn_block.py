"""webflow/wasm/rnn_block.c, natively (through the adapters of backends/c/rnn_block.py) and in the wasm module
(Node's V8, as in Pyodide), against the ops' NumPy kernels (ops/rnn_block_ops.py), which the op table and
tests/rnn/test_block_cells_tensorflow.py check against TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest
from test_c_wasm_families import buffer, run, wasm_path  # noqa: F401  (wasm_path: a fixture)

from webflow.backends.c import library
from webflow.backends.c import rnn_block as c_rnn_block
from webflow.ops import rnn_block_ops

RNG = np.random.default_rng(21)
BATCH, DEPTH, CELL = 3, 5, 8


def values(*shapes):
    return [RNG.uniform(-1, 1, shape).astype(np.float32) for shape in shapes]


def lstm_inputs(batch=BATCH, depth=DEPTH, cell=CELL):
    return values((batch, depth), (batch, cell), (batch, cell), (depth + cell, 4 * cell), (cell,), (cell,), (cell,),
                  (4 * cell,))


def gru_inputs(batch=BATCH, depth=DEPTH, cell=CELL):
    return values((batch, depth), (batch, cell), (depth + cell, 2 * cell), (depth + cell, cell), (2 * cell,), (cell,))


def assert_outputs(got, expected):
    assert len(got) == len(expected)
    for index, (mine, theirs) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(np.asarray(mine), theirs, rtol=2e-6, atol=2e-6, err_msg=f"output {index}")


needs_c = pytest.mark.skipif(not library.available(), reason="no C library")


@needs_c
@pytest.mark.parametrize("batch,depth,cell", [(3, 5, 8), (32, 32, 128), (1, 3, 5)])  # thin GEMM; odd sizes
@pytest.mark.parametrize("peephole", [False, True])
def test_native_lstm(batch, depth, cell, peephole):
    inputs = lstm_inputs(batch, depth, cell)
    attrs = {"forget_bias": 0.7, "cell_clip": 0.6 if peephole else -1.0, "use_peephole": peephole}
    forward = rnn_block_ops.lstm_block_cell_kernel(*inputs, **attrs)
    assert_outputs(c_rnn_block.lstm_block_cell(*inputs, **attrs), forward)
    grad_inputs = inputs + forward[:6] + values((batch, cell), (batch, cell))
    assert_outputs(c_rnn_block.lstm_block_cell_grad(*grad_inputs, use_peephole=peephole),
                   rnn_block_ops.lstm_block_cell_grad_kernel(*grad_inputs, use_peephole=peephole))


@needs_c
@pytest.mark.parametrize("batch,depth,cell", [(3, 5, 8), (1, 3, 5)])
def test_native_gru(batch, depth, cell):
    inputs = gru_inputs(batch, depth, cell)
    forward = rnn_block_ops.gru_block_cell_kernel(*inputs)
    assert_outputs(c_rnn_block.gru_block_cell(*inputs), forward)
    grad_inputs = inputs + forward[:3] + values((batch, cell))
    assert_outputs(c_rnn_block.gru_block_cell_grad(*grad_inputs),
                   rnn_block_ops.gru_block_cell_grad_kernel(*grad_inputs))


def test_lstm_and_gru_in_wasm(wasm_path, tmp_path):  # noqa: F811
    lstm = lstm_inputs()
    forward = rnn_block_ops.lstm_block_cell_kernel(*lstm, forget_bias=1.0, cell_clip=0.5, use_peephole=True)
    gru = gru_inputs()
    gru_forward = rnn_block_ops.gru_block_cell_kernel(*gru)
    d_h = values((BATCH, CELL))[0]
    work = [np.zeros((BATCH, DEPTH + CELL), np.float32), np.zeros((BATCH, 4 * CELL), np.float32)]
    lstm_out = [np.zeros((BATCH, CELL), np.float32) for _ in range(7)]
    gru_out = [np.zeros((BATCH, CELL), np.float32) for _ in range(4)]
    grad_out = [np.zeros((BATCH, DEPTH), np.float32), np.zeros((BATCH, CELL), np.float32),
                np.zeros((BATCH, CELL), np.float32), np.zeros((BATCH, 2 * CELL), np.float32)]
    grad_work = [np.zeros((BATCH, DEPTH + CELL), np.float32) for _ in range(2)]
    buffers = lstm + work + lstm_out + gru + [np.zeros((BATCH, 2 * CELL), np.float32)] + gru_out + [d_h] \
        + grad_work + grad_out
    at = {name: index for index, name in enumerate(
        ["x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco", "b", "xh", "gates", "i", "cs", "f", "o", "ci", "co", "h",
         "gx", "gh_prev", "w_ru", "w_c", "b_ru", "b_c", "ru", "r", "u", "c", "gh", "d_h", "first", "second",
         "d_x", "d_h_prev", "d_c_bar", "d_r_bar_u_bar"])}
    buffers[at["gx"]], buffers[at["gh_prev"]] = gru[0], gru[1]

    def refs(*names):
        return [buffer(at[name]) for name in names]

    calls = [["wf_lstm_block_cell_f32", BATCH, DEPTH, CELL, *refs("x", "cs_prev", "h_prev", "w", "wci", "wcf", "wco",
                                                                   "b"), 1.0, 0.5, 1, *refs("xh", "gates"), 0, 1,
              *refs("i", "cs", "f", "o", "ci", "co", "h")],
             ["wf_gru_block_cell_f32", BATCH, DEPTH, CELL, *refs("gx", "gh_prev", "w_ru", "w_c", "b_ru", "b_c", "xh",
                                                                  "ru", "r", "u", "c", "gh")],
             ["wf_gru_block_cell_grad_f32", BATCH, DEPTH, CELL, *refs("gh_prev", "w_ru", "w_c", "r", "u", "c", "d_h",
                                                                       "first", "second", "d_x", "d_h_prev",
                                                                       "d_c_bar", "d_r_bar_u_bar")]]
    _, outputs = run(wasm_path, tmp_path, buffers, calls)
    assert_outputs([outputs[at[name]] for name in ("i", "cs", "f", "o", "ci", "co", "h")], forward)
    assert_outputs([outputs[at[name]] for name in ("r", "u", "c", "gh")], gru_forward)
    expected_grads = rnn_block_ops.gru_block_cell_grad_kernel(*gru, *[outputs[at[n]] for n in ("r", "u", "c")], d_h)
    assert_outputs([outputs[at[name]] for name in ("d_x", "d_h_prev", "d_c_bar", "d_r_bar_u_bar")], expected_grads)


def test_portable_kernels_match_numpy():
    """backends/portable/rnn_block_kernels.py (Pyodide without the wasm module) on CArrays."""
    from webflow.backends.arrays import carray
    from webflow.backends.portable import rnn_block_kernels as portable
    from webflow.framework import dtypes

    def c_arrays(arrays):
        return [carray.from_value(a.tolist(), dtypes.float32) for a in arrays]

    def plain(arrays):
        return [np.array(a.tolist(), np.float32) for a in arrays]

    lstm = lstm_inputs()
    attrs = {"forget_bias": 0.7, "cell_clip": 0.6, "use_peephole": True}
    forward = rnn_block_ops.lstm_block_cell_kernel(*lstm, **attrs)
    assert_outputs(plain(portable.lstm_block_cell(*c_arrays(lstm), **attrs)), forward)
    grad_inputs = lstm + forward[:6] + values((BATCH, CELL), (BATCH, CELL))
    assert_outputs(plain(portable.lstm_block_cell_grad(*c_arrays(grad_inputs), use_peephole=True)),
                   rnn_block_ops.lstm_block_cell_grad_kernel(*grad_inputs, use_peephole=True))
    gru = gru_inputs()
    gru_forward = rnn_block_ops.gru_block_cell_kernel(*gru)
    assert_outputs(plain(portable.gru_block_cell(*c_arrays(gru))), gru_forward)
    gru_grad_inputs = gru + gru_forward[:3] + values((BATCH, CELL))
    assert_outputs(plain(portable.gru_block_cell_grad(*c_arrays(gru_grad_inputs))),
                   rnn_block_ops.gru_block_cell_grad_kernel(*gru_grad_inputs))
