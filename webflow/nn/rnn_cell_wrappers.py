"""Cells made of cells (TensorFlow's rnn_cell_impl / rnn_cell_wrapper_impl): MultiRNNCell stacks layers,
DropoutWrapper drops a cell's inputs / outputs / state, ResidualWrapper adds the inputs to the outputs."""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

from webflow.nn.dropout_ops import dropout_v2
from webflow.nn.rnn_cell_impl import LSTMStateTuple, RNNCell
from webflow.ops import concat_ops, math_ops, random_ops, unary_math_ops
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.variable_scope import variable_scope


class MultiRNNCell(RNNCell):
    """Layer i (scope cell_i) takes layer i-1's output; the state is the tuple of the layers' states."""

    _base_name = "multi_rnn_cell"

    def __init__(self, cells: list, state_is_tuple: bool = True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple

    @property
    def state_size(self) -> Any:
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self) -> Any:
        return self._cells[-1].output_size

    def build(self, input_depth: int) -> None:
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                cell.build_once(input_depth, dtype=self._dtype)
            input_depth = cell.output_size

    @property
    def weights(self) -> list:
        return [w for cell in self._cells for w in cell.weights]

    variables = trainable_variables = trainable_weights = weights

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        if self._state_is_tuple:
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
        return super().zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> tuple:
        new_states, start = [], 0
        for i, cell in enumerate(self._cells):
            with variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    layer_state = state[i]
                else:
                    layer_state = state[:, start:start + cell.state_size]
                    start += cell.state_size
                inputs, layer_state = cell(inputs, layer_state)
                new_states.append(layer_state)
        return inputs, tuple(new_states) if self._state_is_tuple else concat_ops.concat(new_states, 1)


class _Wrapper(RNNCell):
    """A cell around `cell`: the same sizes and variables (made in the scope the wrapper is called in)."""

    def __init__(self, cell: Any):
        super().__init__()
        self._cell = cell

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)
    weights = variables = trainable_variables = trainable_weights = property(lambda self: self._cell.weights)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        return self._cell.zero_state(batch_size, dtype)

    def build_once(self, input_depth: int, scope: Any = None, dtype: Any = None) -> None:
        self._cell.build_once(input_depth, scope, dtype)
        self._built = True

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        return self.call(inputs, state, scope)


class DropoutWrapper(_Wrapper):
    """Dropout (tf.nn.dropout, scaled by 1/keep_prob) on the cell's inputs, outputs and new state (not an LSTM's
    memory c), each with TensorFlow's seed derived from `seed`, so seeded masks are TensorFlow's; a keep
    probability of 1.0 adds no op. variational_recurrent=True draws one mask per entry for all steps (needs dtype, and
    input_size when the inputs are dropped). Inside dynamic_rnn's loop (without variational_recurrent) each step
    draws its own mask, and the loop's gradient uses each step's mask; TensorFlow draws the same numbers but may
    hand them to the steps in another order (its loop runs steps in parallel), so only static_rnn and
    variational_recurrent=True match TensorFlow's masks exactly."""

    def __init__(self, cell: Any, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0, state_keep_prob: Any = 1.0,
                 variational_recurrent: bool = False, input_size: Any = None, dtype: Any = None, seed: Any = None,
                 dropout_state_filter_visitor: Any = None):
        super().__init__(cell)
        for name, prob in (("input", input_keep_prob), ("output", output_keep_prob), ("state", state_keep_prob)):
            if isinstance(prob, numbers.Real) and not 0.0 < float(prob) <= 1.0:
                raise ValueError(f"Parameter {name}_keep_prob must be between 0 and 1: {prob:f}")
        self._input_keep, self._output_keep, self._state_keep = input_keep_prob, output_keep_prob, state_keep_prob
        self._seed = seed
        self._noise: dict = {}
        if variational_recurrent:
            self._make_noise(cell, input_size, dtype)

    def _make_noise(self, cell: Any, input_size: Any, dtype: Any) -> None:
        """variational_recurrent: one uniform [1, size] noise per input / state / output entry, drawn once (here,
        outside any loop) and shared by every step and batch entry, as TensorFlow draws it."""
        if dtype is None:
            raise ValueError("When variational_recurrent=True, dtype must be provided")
        if not isinstance(self._input_keep, numbers.Real) or self._input_keep < 1.0:
            if input_size is None:
                raise ValueError("When variational_recurrent=True and input_keep_prob < 1.0 or is unknown, "
                                 "input_size must be provided")
            self._noise["input"] = self._batch_noise("input", input_size, dtype)
        self._noise["state"] = self._batch_noise("state", cell.state_size, dtype)
        self._noise["output"] = self._batch_noise("output", cell.output_size, dtype)

    def _batch_noise(self, prefix: str, sizes: Any, dtype: Any) -> list:
        return [random_ops.random_uniform([1, size], dtype=dtype, seed=self._gen_seed(prefix, i))
                for i, size in enumerate(flatten(sizes))]

    def _drop(self, value: Any, keep_prob: Any, prefix: str, index: int) -> Any:
        # TensorFlow drops unless keep_prob is the float 1.0 (an int 1 still adds the ops)
        if isinstance(keep_prob, float) and keep_prob >= 1:
            return value
        if self._noise:
            # variational: value / keep_prob * floor(keep_prob + noise), the same mask at every step
            kept = unary_math_ops.floor(keep_prob + self._noise[prefix][index])
            return math_ops.real_div(value, keep_prob) * kept
        return dropout_v2(value, rate=1.0 - keep_prob, seed=self._gen_seed(prefix, index))

    def _gen_seed(self, prefix: str, index: int) -> int | None:
        """TensorFlow's per-tensor seed: the first 8 hex digits of md5("<seed><prefix>_<index>"), 31 bits."""
        if self._seed is None:
            return None
        text = f"{self._seed}{prefix}_{index}".encode()
        return int(hashlib.md5(text).hexdigest()[:8], 16) & 0x7FFFFFFF

    def call(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        inputs = self._drop(inputs, self._input_keep, "input", 0)
        output, new_state = self._cell(inputs, state, scope)
        leaves = [self._drop(leaf, self._state_keep, "state", k) if droppable else leaf
                  for k, (leaf, droppable) in enumerate(zip(flatten(new_state), _droppable(new_state)))]
        new_state = pack_sequence_as(new_state, leaves) if isinstance(new_state, (tuple, list)) else leaves[0]
        return self._drop(output, self._output_keep, "output", 0), new_state


def _droppable(state: Any) -> list:
    """Per state leaf, whether DropoutWrapper drops it: all but an LSTM's memory c (TensorFlow's default
    dropout_state_filter_visitor)."""
    if isinstance(state, LSTMStateTuple):
        return [False, True]
    if isinstance(state, (tuple, list)):
        return [flag for part in state for flag in _droppable(part)]
    return [True]


class ResidualWrapper(_Wrapper):
    """output = residual_fn(inputs, cell output) (default inputs + output); the state is the cell's."""

    def __init__(self, cell: Any, residual_fn: Any = None):
        super().__init__(cell)
        self._residual_fn = residual_fn or (lambda inputs, outputs: inputs + outputs)

    def call(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        output, new_state = self._cell(inputs, state, scope)
        return self._residual_fn(inputs, output), new_state
