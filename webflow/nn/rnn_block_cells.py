"""`tf.contrib.rnn`'s fused cells: LSTMBlockCell, GRUBlockCell, GRUBlockCellV2 (and LSTMBlockFusedCell, a
time-major sequence of LSTMBlockCell steps), each step one fused op
(ops/rnn_block_ops.py: LSTMBlockCell / GRUBlockCell, with their gradients) instead of a dozen small ones.

Variable names are TF 1.x contrib's, so checkpoints interchange with TensorFlow: LSTMBlockCell makes
`lstm_cell/kernel` [depth + units, 4 units] (gate order i, ci, f, o, as LSTMCell's i, j, f, o), `lstm_cell/bias`
(zeros) and, with peepholes, `w_i_diag`, `w_f_diag`, `w_o_diag`; GRUBlockCell makes `gru_cell/w_ru`, `b_ru` (ones),
`w_c`, `b_c` (zeros), and GRUBlockCellV2 the names GRUCell uses (`gates/kernel`, `gates/bias`, `candidate/kernel`,
`candidate/bias`), so a GRUCell checkpoint loads into it.
"""

from __future__ import annotations

from typing import Any

from webflow.nn.rnn_cell_impl import LSTMStateTuple, RNNCell
from webflow.ops import array_ops, init_ops, rnn_block_ops
from webflow.ops.variable_scope import variable_scope


class LSTMBlockCell(RNNCell):
    """TF 1.x tf.contrib.rnn.LSTMBlockCell: LSTMCell's step (forget_bias added to the forget gate, optional
    peepholes and cell clip) as one LSTMBlockCell op; state LSTMStateTuple(c, h)."""

    _base_name = "lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0, cell_clip: float | None = None,
                 use_peephole: bool = False, dtype: Any = None, reuse: Any = None, name: str = "lstm_cell"):
        super().__init__(name, dtype, reuse)
        self._num_units, self._forget_bias = num_units, forget_bias
        self._cell_clip = cell_clip if cell_clip is not None else -1  # the op's "no clip"
        self._use_peephole = use_peephole

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def build(self, input_depth: int) -> None:
        n = self._num_units
        self._kernel = self._weight("kernel", [input_depth + n, 4 * n])
        self._bias = self._weight("bias", [4 * n], init_ops.Constant(0.0))
        if self._use_peephole:
            self._w_i_diag = self._weight("w_i_diag", [n])
            self._w_f_diag = self._weight("w_f_diag", [n])
            self._w_o_diag = self._weight("w_o_diag", [n])

    def call(self, inputs: Any, state: Any) -> tuple:
        if len(state) != 2:
            raise ValueError("Expecting state to be a tuple with length 2.")
        if self._use_peephole:
            wci, wcf, wco = self._w_i_diag, self._w_f_diag, self._w_o_diag
        else:
            wci = wcf = wco = array_ops.zeros([self._num_units], dtype=inputs.dtype)
        cs_prev, h_prev = state
        outputs = rnn_block_ops.lstm_block_cell(inputs, cs_prev, h_prev, self._kernel, wci, wcf, wco, self._bias,
                                                forget_bias=self._forget_bias, cell_clip=self._cell_clip,
                                                use_peephole=self._use_peephole)
        cs, h = outputs[1], outputs[6]
        return h, LSTMStateTuple(cs, h)


class GRUBlockCell(RNNCell):
    """TF 1.x tf.contrib.rnn.GRUBlockCell: GRUCell's step as one GRUBlockCell op (variables w_ru, b_ru, w_c, b_c)."""

    _base_name = "gru_cell"
    _names = ("w_ru", "b_ru", "w_c", "b_c")

    def __init__(self, num_units: int | None = None, cell_size: int | None = None, reuse: Any = None,
                 name: str = "gru_cell"):
        super().__init__(name, None, reuse)
        if (cell_size is None) == (num_units is None):
            raise ValueError("Exactly one of num_units or cell_size must be provided.")
        self._cell_size = num_units if num_units is not None else cell_size

    state_size = property(lambda self: self._cell_size)
    output_size = property(lambda self: self._cell_size)

    def build(self, input_depth: int) -> None:
        n, (w_ru, b_ru, w_c, b_c) = self._cell_size, self._names
        self._gate_kernel = self._weight(w_ru, [input_depth + n, 2 * n])
        self._gate_bias = self._weight(b_ru, [2 * n], init_ops.Constant(1.0))
        self._candidate_kernel = self._weight(w_c, [input_depth + n, n])
        self._candidate_bias = self._weight(b_c, [n], init_ops.Constant(0.0))

    def _weight(self, name: str, shape: list, initializer: Any = None) -> Any:
        """`gates/kernel` is made as `kernel` in a `gates` scope (GRUBlockCellV2's names)."""
        scope, _, leaf = name.rpartition("/")
        if not scope:
            return super()._weight(name, shape, initializer)
        with variable_scope(scope):
            return super()._weight(leaf, shape, initializer)

    def call(self, inputs: Any, state: Any) -> tuple:
        cell_size = state.shape.as_list()[1] if state.shape.rank == 2 else None
        if cell_size is not None and cell_size != self._cell_size:
            raise ValueError(f"Shape of h_prev[1] incorrect: cell_size {self._cell_size} vs {cell_size}")
        new_h = rnn_block_ops.gru_block_cell(inputs, state, self._gate_kernel, self._candidate_kernel,
                                             self._gate_bias, self._candidate_bias)[3]
        return new_h, new_h


class GRUBlockCellV2(GRUBlockCell):
    """GRUBlockCell with GRUCell's variable names (gates/kernel, gates/bias, candidate/kernel, candidate/bias)."""

    _names = ("gates/kernel", "gates/bias", "candidate/kernel", "candidate/bias")


class LSTMBlockFusedCell:
    """TF 1.x tf.contrib.rnn.LSTMBlockFusedCell: a whole time-major sequence through LSTMBlockCell steps.

    `cell(inputs [time, batch, depth], initial_state=None, dtype=None, sequence_length=None)` -> (outputs [time,
    batch, units], LSTMStateTuple(c, h)); outputs past an entry's length are zero and its final state is the one at
    its last step, as TensorFlow's. Variables `lstm_fused_cell/kernel`, `bias` (and `w_*_diag`), as TensorFlow's.
    (TensorFlow runs one BlockLSTM op; here a while_loop of LSTMBlockCell ops computes the same numbers.)"""

    def __init__(self, num_units: int, forget_bias: float = 1.0, cell_clip: float | None = None,
                 use_peephole: bool = False, reuse: Any = None, dtype: Any = None, name: str = "lstm_fused_cell"):
        self._cell = LSTMBlockCell(num_units, forget_bias, cell_clip, use_peephole, dtype, reuse, name)
        self._name = name

    num_units = property(lambda self: self._cell._num_units)

    def __call__(self, inputs: Any, initial_state: Any = None, dtype: Any = None, sequence_length: Any = None,
                 scope: Any = None) -> tuple:
        from webflow.nn.rnn import dynamic_rnn
        from webflow.ops.convert import convert_to_tensor

        inputs = convert_to_tensor(inputs)
        self._cell.build_once(int(inputs.shape[-1]), scope or self._name, dtype or inputs.dtype.base_dtype)
        if initial_state is not None:
            initial_state = LSTMStateTuple(*initial_state)
        return dynamic_rnn(self._cell, inputs, sequence_length=sequence_length, initial_state=initial_state,
                           dtype=dtype, time_major=True, scope=self._name)

    @property
    def weights(self) -> list:
        return self._cell.weights

    variables = trainable_variables = trainable_weights = weights


__all__ = ["LSTMBlockCell", "GRUBlockCell", "GRUBlockCellV2", "LSTMBlockFusedCell"]
