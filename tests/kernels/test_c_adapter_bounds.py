"""Bounds checked in the C adapters before C is called: inputs whose shapes or indices disagree give TensorFlow's
InvalidArgumentError, never a read or write past a buffer. (Under `make test-asan` these run against the
AddressSanitizer build, where any such access would abort the run.)"""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import gather as c_gather
from webflow.backends.c import rnn_block as c_rnn_block
from webflow.backends.c import softmax as c_softmax
from webflow.framework.errors import InvalidArgumentError

require_c_library()

BATCH, DEPTH, CELL = 2, 3, 4


def ones(*shape: int) -> np.ndarray:
    return np.ones(shape, np.float32)


def lstm_inputs(**changed: np.ndarray) -> list:
    inputs = {"x": ones(BATCH, DEPTH), "cs_prev": ones(BATCH, CELL), "h_prev": ones(BATCH, CELL),
              "w": ones(DEPTH + CELL, 4 * CELL), "wci": ones(CELL), "wcf": ones(CELL), "wco": ones(CELL),
              "b": ones(4 * CELL)}
    return list({**inputs, **changed}.values())


def lstm_grad_inputs(**changed: np.ndarray) -> list:
    saved = {name: ones(BATCH, CELL) for name in ("i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad")}
    return lstm_inputs() + list({**saved, **changed}.values())


def gru_grad_inputs(**changed: np.ndarray) -> list:
    inputs = {"x": ones(BATCH, DEPTH), "h_prev": ones(BATCH, CELL), "w_ru": ones(DEPTH + CELL, 2 * CELL),
              "w_c": ones(DEPTH + CELL, CELL), "b_ru": ones(2 * CELL), "b_c": ones(CELL), "r": ones(BATCH, CELL),
              "u": ones(BATCH, CELL), "c": ones(BATCH, CELL), "d_h": ones(BATCH, CELL)}
    return list({**inputs, **changed}.values())


def test_gather_index_out_of_range_is_an_error_not_a_read():
    params = np.arange(20, dtype=np.float32).reshape(5, 4)
    for bad in (5, -1, 1 << 40):
        with pytest.raises(IndexError, match=rf"indices\[1\] = {bad} is not in \[0, 5\)"):
            c_gather.gather(params, np.array([0, bad], np.int64), 0)


def test_segment_id_out_of_range_is_an_error_not_a_write():
    with pytest.raises(IndexError, match="index 7 is out of bounds"):
        c_gather.unsorted_segment_sum(ones(3, 2), np.array([0, 7, 1], np.int32), 3)


def test_sparse_label_out_of_range():
    with pytest.raises(InvalidArgumentError, match=r"label value of 9 which is outside the valid range of \[0, 4\)"):
        c_softmax.sparse_softmax_xent(ones(2, 4), np.array([1, 9], np.int32))


def test_short_peephole_weights():
    """TensorFlow's LSTMBlockCell reads past a short wci (no check); webflow says what BlockLSTM says."""
    with pytest.raises(InvalidArgumentError, match=r"wci.dim_size\(0\) != cell_size: 2 vs. 4"):
        c_rnn_block.lstm_block_cell(*lstm_inputs(wci=ones(2)), use_peephole=True)
    with pytest.raises(InvalidArgumentError, match=r"wco.dim_size\(0\) != cell_size: 1 vs. 4"):
        c_rnn_block.lstm_block_cell_grad(*lstm_grad_inputs()[:6], ones(1), *lstm_grad_inputs()[7:],
                                         use_peephole=True)
    c_rnn_block.lstm_block_cell(*lstm_inputs(wci=ones(0)), use_peephole=False)  # not read without peepholes


def test_lstm_state_of_the_wrong_rank():
    """(TensorFlow 2.21 aborts the process on a rank-1 cs_prev: a CHECK failure.)"""
    with pytest.raises(InvalidArgumentError, match=r"cs_prev must be rank 2: \[4\]"):
        c_rnn_block.lstm_block_cell(*lstm_inputs(cs_prev=ones(CELL)))


def test_lstm_grad_saved_activations_are_checked():
    """TensorFlow's messages, checked against TF 2.21 by hand: i short in the batch, h_grad short in the cell."""
    with pytest.raises(InvalidArgumentError, match=r"^i.dim_size\(0\) != batch_size: 1 vs. 2$"):
        c_rnn_block.lstm_block_cell_grad(*lstm_grad_inputs(i=ones(1, CELL)), use_peephole=False)
    with pytest.raises(InvalidArgumentError, match=r"^h_grad_tensor.dims\(1\) != cell_size: 1 vs. 4$"):
        c_rnn_block.lstm_block_cell_grad(*lstm_grad_inputs(h_grad=ones(BATCH, 1)), use_peephole=False)


def test_gru_grad_inputs_are_checked():
    """TensorFlow 2.21's messages (checked by hand)."""
    with pytest.raises(InvalidArgumentError, match=r"^r.dims\(0\) != batch_size: 1 vs. 2$"):
        c_rnn_block.gru_block_cell_grad(*gru_grad_inputs(r=ones(1, CELL)))
    with pytest.raises(InvalidArgumentError, match=r"^d_h.dims\(1\) != cell_size: 1 vs. 4$"):
        c_rnn_block.gru_block_cell_grad(*gru_grad_inputs(d_h=ones(BATCH, 1)))
    with pytest.raises(InvalidArgumentError, match=r"^Rank of d_h must be 2, got 1$"):
        c_rnn_block.gru_block_cell_grad(*gru_grad_inputs(d_h=ones(BATCH * CELL)))


def test_gather_out_of_range_in_a_session_on_the_c_kernel_is_invalid_argument():
    import webflow.compat.v1 as tf
    from webflow.backends import selection
    previous = selection.get_backend()
    selection.set_backend("native")
    try:
        with tf.Graph().as_default():
            indices = tf.placeholder(tf.int32, [None])
            taken = tf.gather(tf.constant(np.arange(20, dtype=np.float32).reshape(5, 4)), indices)
            with tf.Session() as session:
                with pytest.raises(InvalidArgumentError, match=r"indices\[1\] = 9 is not in \[0, 5\)"):
                    session.run(taken, {indices: [0, 9]})
    finally:
        selection.set_backend(previous)
