"""C signatures and adapters of the fused recurrent cells (webflow/wasm/rnn_block.c), float32.

    wf_lstm_block_cell_f32(batch, depth, cell, x, cs_prev, h_prev, w, wci, wcf, wco, b, forget_bias, cell_clip,
                           use_peephole, xh, gates, gemm_work, threads, i, cs, f, o, ci, co, h)
    wf_lstm_block_cell_grad_f32(batch, cell, cs_prev, wci, wcf, wco, i, cs, f, o, ci, co, cs_grad, h_grad,
                                use_peephole, cs_prev_grad, dicfo, wci_grad, wcf_grad, wco_grad)
    wf_gru_block_cell_f32(batch, depth, cell, x, h_prev, w_ru, w_c, b_ru, b_c, xh, ru, r, u, c, h)
    wf_gru_block_cell_grad_f32(batch, depth, cell, h_prev, w_ru, w_c, r, u, c, d_h, first, second,
                               d_x, d_h_prev, d_c_bar, d_r_bar_u_bar)

Selection: NumPy's kernels (OpenBLAS + ufuncs) win at every measured size in CPython, so these run where NumPy is
missing (Pyodide: the wasm module) or when the C backend is forced. The run-time argument checks (TensorFlow's
InvalidArgumentError wording) are here, once: the ops' NumPy and portable kernels call them too.
Other dtypes (float16) raise Unsupported: the NumPy kernel runs.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import parallel
from webflow.backends.c.adapters import Unsupported, c_kernel, contiguous, empty, fn, ptr
from webflow.backends.c.gemm import THIN_MAX, THIN_MIN_MULTIPLY_ADDS
from webflow.backends.c.library import F32, INT, PTR, SIZE, VOID, declare
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

F32_TYPE = dtypes.float32
F32_NUMPY = np.dtype("float32") if HAVE_NUMPY else F32_TYPE

declare("wf_lstm_block_cell_f32", [SIZE, SIZE, SIZE] + [PTR] * 8 + [F32, F32, INT] + [PTR] * 3 + [SIZE]
        + [PTR] * 7, VOID)
declare("wf_lstm_block_cell_grad_f32", [SIZE, SIZE] + [PTR] * 12 + [INT] + [PTR] * 5, VOID)
declare("wf_gru_block_cell_f32", [SIZE, SIZE, SIZE] + [PTR] * 12, VOID)
declare("wf_gru_block_cell_grad_f32", [SIZE, SIZE, SIZE] + [PTR] * 13, VOID)


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise InvalidArgumentError(None, None, message)


def check_lstm_inputs(x: Any, cs_prev: Any, h_prev: Any, w: Any, b: Any) -> tuple:
    """(batch, input size, cell size), or TensorFlow's InvalidArgumentError for inconsistent sizes."""
    for name, value, rank in (("x", x, 2), ("cs_prev", cs_prev, 2), ("h_prev", h_prev, 2), ("w", w, 2), ("b", b, 1)):
        _require(len(value.shape) == rank, f"{name} must be rank {rank}: {list(value.shape)}")  # (TF: a CHECK crash)
    batch, depth = x.shape
    cell = cs_prev.shape[1]
    _require(cs_prev.shape[0] == batch, f"cs_prev.dims(0) != batch_size: {cs_prev.shape[0]} vs. {batch}")
    _require(h_prev.shape[0] == batch, f"h_prev.dims(0) != batch_size: {h_prev.shape[0]} vs. {batch}")
    _require(h_prev.shape[1] == cell, f"h_prev.dims(1) != cell_size: {h_prev.shape[1]} vs. {cell}")
    _require(w.shape[0] == depth + cell, f"w.dim_size(0) != input_size + cell_size: {w.shape[0]} vs. {depth + cell}")
    _require(w.shape[1] == cell * 4, f"w.dim_size(1) != cell_size * 4: {w.shape[1]} vs. {cell * 4}")
    _require(b.shape[0] == cell * 4, f"b.dim_size(0) != cell_size * 4: {b.shape[0]} vs. {cell * 4}")
    return batch, depth, cell


def check_peepholes(cell: int, wci: Any, wcf: Any, wco: Any) -> None:
    """The peephole weights are [cell] each, as BlockLSTM words it (LSTMBlockCell itself does not check them and
    reads past a short one; here the C kernel would)."""
    for name, value in (("wci", wci), ("wcf", wcf), ("wco", wco)):
        _require(len(value.shape) == 1, f"{name} must be 1D")
        _require(value.shape[0] == cell, f"{name}.dim_size(0) != cell_size: {value.shape[0]} vs. {cell}")


def check_matrices(batch: int, cell: int, named: tuple, wording: str = "dim_size") -> None:
    """Each (name, value) is [batch, cell]: TensorFlow's LSTMBlockCellGrad / GRUBlockCellGrad messages
    ("i.dim_size(0) != batch_size: 1 vs. 2"; for cs_grad_tensor, h_grad_tensor and GRU's inputs it says `dims`)."""
    for name, value in named:
        _require(len(value.shape) == 2, f"Rank of {name} must be 2, got {len(value.shape)}")
        _require(value.shape[0] == batch, f"{name}.{wording}(0) != batch_size: {value.shape[0]} vs. {batch}")
        _require(value.shape[1] == cell, f"{name}.{wording}(1) != cell_size: {value.shape[1]} vs. {cell}")


def check_gru_inputs(x: Any, h_prev: Any, w_ru: Any, w_c: Any, b_ru: Any, b_c: Any) -> tuple:
    """(batch, input size, cell size), or TensorFlow's InvalidArgumentError for inconsistent sizes."""
    for name, value, rank in (("x", x, 2), ("h_prev", h_prev, 2), ("w_ru", w_ru, 2), ("w_c", w_c, 2),
                              ("b_ru", b_ru, 1), ("b_c", b_c, 1)):
        _require(len(value.shape) == rank, f"{name} must be rank {rank}: {list(value.shape)}")
    batch, depth = x.shape
    cell = h_prev.shape[1]
    _require(h_prev.shape[0] == batch, f"h_prev.dims(0) != batch_size: {h_prev.shape[0]} vs. {batch}")
    for name, value, rows, cols in (("w_ru", w_ru, depth + cell, 2 * cell), ("w_c", w_c, depth + cell, cell)):
        _require(value.shape[0] == rows, f"{name}.dim_size(0) != input_size + cell_size: {value.shape[0]} vs. {rows}")
        factor = " * 2" if cols == 2 * cell else ""
        _require(value.shape[1] == cols, f"{name}.dim_size(1) != cell_size{factor}: {value.shape[1]} vs. {cols}")
    _require(b_ru.shape[0] == 2 * cell, f"b_ru.dim_size(0) != cell_size * 2: {b_ru.shape[0]} vs. {2 * cell}")
    _require(b_c.shape[0] == cell, f"b_c.dim_size(0) != cell_size: {b_c.shape[0]} vs. {cell}")
    return batch, depth, cell


def _float32(values: tuple) -> list:
    for value in values:  # (a NumPy dtype compares faster than it names itself)
        if value.dtype != F32_NUMPY and getattr(value.dtype, "name", None) != "float32":
            raise Unsupported("float32 only")
    return [contiguous(v) for v in values]


def _thin_gemm_work(batch: int, columns: int, depth: int) -> tuple:
    """(workspace, threads) for the thin GEMM where it takes the gates' product (gemm.py's rule), else (None, 1)."""
    if batch > THIN_MAX or columns % fn("wf_gemm_thin_columns")() or batch * columns * depth < THIN_MIN_MULTIPLY_ADDS:
        return None, 1
    threads = parallel.threads()
    return empty(threads * fn("wf_gemm_few_rows_workspace")(), F32_TYPE), threads


@c_kernel(dtypes=("float32",), min_size=None)  # NumPy wins in CPython: FIGURES.md, "Fused cells"
def lstm_block_cell(*inputs: Any, forget_bias: float = 1.0, cell_clip: float = 3.0, use_peephole: bool = False) -> list:
    """wf_lstm_block_cell_f32: the gates' GEMM and the gate math of one LSTM step."""
    x, cs_prev, h_prev, w, wci, wcf, wco, b = _float32(inputs)
    batch, depth, cell = check_lstm_inputs(x, cs_prev, h_prev, w, b)
    if use_peephole:
        check_peepholes(cell, wci, wcf, wco)
    outputs = [empty((batch, cell), F32_TYPE) for _ in range(7)]
    xh, gates = empty((batch, depth + cell), F32_TYPE), empty((batch, 4 * cell), F32_TYPE)
    work, threads = _thin_gemm_work(batch, 4 * cell, depth + cell)
    fn("wf_lstm_block_cell_f32")(batch, depth, cell, *(ptr(v) for v in (x, cs_prev, h_prev, w, wci, wcf, wco, b)),
                                 float(forget_bias), float(cell_clip), int(bool(use_peephole)), ptr(xh), ptr(gates),
                                 None if work is None else ptr(work), threads, *(ptr(v) for v in outputs))
    return outputs


@c_kernel(dtypes=("float32",), min_size=None)  # NumPy wins in CPython: FIGURES.md, "Fused cells"
def lstm_block_cell_grad(*inputs: Any, use_peephole: bool) -> list:
    """wf_lstm_block_cell_grad_f32: dicfo, cs_prev_grad and the peephole grads of one LSTM step."""
    x, cs_prev, h_prev, w, wci, wcf, wco, b, i, cs, f, o, ci, co, cs_grad, h_grad = _float32(inputs)
    batch, _, cell = check_lstm_inputs(x, cs_prev, h_prev, w, b)
    check_matrices(batch, cell, (("i", i), ("cs", cs), ("f", f), ("o", o), ("ci", ci),
                                 ("co", co)))
    check_matrices(batch, cell, (("cs_grad_tensor", cs_grad), ("h_grad_tensor", h_grad)), "dims")
    if use_peephole:
        check_peepholes(cell, wci, wcf, wco)
    cs_prev_grad, dicfo = empty((batch, cell), F32_TYPE), empty((batch, 4 * cell), F32_TYPE)
    peepholes = [empty((cell,), F32_TYPE) for _ in range(3)]
    fn("wf_lstm_block_cell_grad_f32")(batch, cell, *(ptr(v) for v in (cs_prev, wci, wcf, wco, i, cs, f, o, ci, co,
                                                                       cs_grad, h_grad)),
                                      int(bool(use_peephole)), ptr(cs_prev_grad), ptr(dicfo),
                                      *(ptr(v) for v in peepholes))
    return [cs_prev_grad, dicfo, *peepholes]


@c_kernel(dtypes=("float32",), min_size=None)  # NumPy wins in CPython: FIGURES.md, "Fused cells"
def gru_block_cell(*inputs: Any) -> list:
    """wf_gru_block_cell_f32: both GEMMs and the gate math of one GRU step."""
    x, h_prev, w_ru, w_c, b_ru, b_c = _float32(inputs)
    batch, depth, cell = check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)
    outputs = [empty((batch, cell), F32_TYPE) for _ in range(4)]
    xh, ru = empty((batch, depth + cell), F32_TYPE), empty((batch, 2 * cell), F32_TYPE)
    fn("wf_gru_block_cell_f32")(batch, depth, cell, *(ptr(v) for v in (x, h_prev, w_ru, w_c, b_ru, b_c, xh, ru)),
                                *(ptr(v) for v in outputs))
    return outputs


@c_kernel(dtypes=("float32",), min_size=None)  # NumPy wins in CPython: FIGURES.md, "Fused cells"
def gru_block_cell_grad(*inputs: Any) -> list:
    """wf_gru_block_cell_grad_f32: d_x, d_h_prev, d_c_bar, d_r_bar_u_bar of one GRU step."""
    x, h_prev, w_ru, w_c, b_ru, b_c, r, u, c, d_h = _float32(inputs)
    batch, depth, cell = check_gru_inputs(x, h_prev, w_ru, w_c, b_ru, b_c)
    check_matrices(batch, cell, (("r", r), ("u", u), ("c", c), ("d_h", d_h)), "dims")
    first, second = empty((batch, depth + cell), F32_TYPE), empty((batch, depth + cell), F32_TYPE)
    outputs = [empty((batch, depth), F32_TYPE), empty((batch, cell), F32_TYPE), empty((batch, cell), F32_TYPE),
               empty((batch, 2 * cell), F32_TYPE)]
    fn("wf_gru_block_cell_grad_f32")(batch, depth, cell, *(ptr(v) for v in (h_prev, w_ru, w_c, r, u, c, d_h, first,
                                                                             second)), *(ptr(v) for v in outputs))
    return outputs
