"""`tf.nn.rnn_cell` (TF1): recurrent cells, each one step `(output, new_state) = cell(inputs, state)`.

Variables are made on a cell's first call, with get_variable, in the variable scope `<current scope>/<cell name>`
(`rnn/basic_lstm_cell/kernel`, `rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias` ...), with TensorFlow's shapes
and initializers, so checkpoints interchange with TensorFlow; later calls reuse them. The gate order and
formulas are TensorFlow's (rnn_cell_impl.py), written out in each cell's `call`.
"""

from __future__ import annotations

import collections
from typing import Any

from webflow.framework import context, dtypes
from webflow.ops import array_ops, binary_math_ops, concat_ops, init_ops, matmul_ops, nn_ops, unary_math_ops
from webflow.ops.control_flow_ops import flatten, pack_sequence_as
from webflow.ops.registry import op_scope
from webflow.ops.variable_scope import get_variable, variable_scope


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """An LSTM's state: the memory `c` and the output `h`."""

    __slots__ = ()

    @property
    def dtype(self) -> Any:
        return self.c.dtype


class RNNCell:
    """Subclasses define `state_size`, `output_size`, `build(input_depth)` (get_variable calls) and
    `call(inputs, state)`; calling the cell opens its variable scope and builds it on first use."""

    _base_name = "rnn_cell"

    def __init__(self, name: str | None = None, dtype: Any = None, reuse: Any = None):
        self._name = name
        self._dtype = dtype
        self._reuse = reuse
        self._built = False

    @property
    def state_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        raise NotImplementedError("Abstract method")

    def build(self, input_depth: int) -> None:
        """Creates the cell's variables (subclasses): called once, inside the cell's variable scope."""

    def call(self, inputs: Any, state: Any) -> tuple:
        raise NotImplementedError("Abstract method")

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        """(output, new_state): one step of the cell, in its variable scope (made on the first call)."""
        from webflow.ops.convert import convert_to_tensor

        inputs = convert_to_tensor(inputs)
        self._check_input(inputs)
        self.build_once(int(inputs.shape[-1]), scope, inputs.dtype.base_dtype)
        with variable_scope(self._scope_name, reuse=True):
            return self.call(inputs, state)

    def build_once(self, input_depth: int, scope: Any = None, dtype: Any = None) -> None:
        """Makes the cell's variables (of the inputs' dtype, as TensorFlow's layers) in its scope unless made
        already (dynamic_rnn calls this before its loop, so that the variables live outside the loop body)."""
        if self._built:
            return
        self._dtype = self._dtype or dtype
        self._input_depth = input_depth
        self._scope_name = scope or self._name or _unique_cell_name(self._base_name)
        with variable_scope(self._scope_name, reuse=self._reuse):
            self.build(input_depth)
        self._built = True

    def _check_input(self, inputs: Any) -> None:
        """TensorFlow's layer input checks: rank 2 ([batch, depth]), and the depth the variables were made for."""
        shape, name = inputs.shape, getattr(self, "_scope_name", None) or self._name or self._base_name
        if shape.rank != 2:
            raise ValueError(f'Input 0 of layer "{name}" is incompatible with the layer: expected ndim=2, found '
                             f"ndim={shape.rank}. Full shape received: {_shape_tuple(shape)}")
        depth = shape.as_list()[-1]
        if depth is None:
            raise ValueError(f'Input 0 of layer "{name}" has an unknown depth (last dimension): shape '
                             f"{_shape_tuple(shape)}; the cell needs it to make its variables")
        if self._built and getattr(self, "_input_depth", depth) != depth:
            raise ValueError(f'Input 0 of layer "{name}" is incompatible with the layer: expected axis -1 of input '
                             f"shape to have value {self._input_depth}, but received input with shape "
                             f"{_shape_tuple(shape)}")

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros shaped [batch_size, size] for every entry of state_size."""
        with op_scope(type(self).__name__ + "ZeroState"):
            sizes = self.state_size
            leaves = [array_ops.zeros(concat_ops.stack([batch_size, size]) if _is_tensor(batch_size)
                                      else [batch_size, size], dtype=dtype) for size in flatten(sizes)]
            return pack_sequence_as(sizes, leaves) if isinstance(sizes, (tuple, list)) else leaves[0]

    def _weight(self, name: str, shape: list, initializer: Any = None) -> Any:
        variable = get_variable(name, shape, dtype=self._dtype or dtypes.float32, initializer=initializer)
        self.__dict__.setdefault("_own_weights", []).append(variable)
        return variable

    @property
    def weights(self) -> list:
        """The cell's variables, in the order they were made (empty before its first call)."""
        return list(self.__dict__.get("_own_weights", []))

    variables = trainable_variables = trainable_weights = weights


def _shape_tuple(shape: Any) -> str:
    return "<unknown>" if shape.rank is None else str(tuple(shape.as_list()))


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape")


def _unique_cell_name(base: str) -> str:
    """`base`, or `base_1`, `base_2` ... as TensorFlow's layers pick it: a `default_name` variable scope, unique
    among the scopes opened since the enclosing named scope was entered (so a second `dynamic_rnn` in a reused
    scope finds the first one's `multi_rnn_cell` again, and AUTO_REUSE shares its variables)."""
    if context.executing_eagerly():
        return base
    with variable_scope(None, default_name=base) as scope:
        return scope.name.split("/")[-1]


def _linear(inputs: list, kernel: Any, bias: Any = None) -> Any:
    """concat(inputs, 1) @ kernel (+ bias, a BiasAdd as TensorFlow's cells add it: its gradient is one BiasAddGrad)."""
    joined = concat_ops.concat(inputs, 1) if len(inputs) > 1 else inputs[0]
    result = matmul_ops.matmul(joined, kernel)
    return result if bias is None else nn_ops.bias_add(result, bias)


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b)."""

    _base_name = "basic_rnn_cell"

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None):
        super().__init__(name, dtype, reuse)
        self._num_units = num_units
        self._activation = activation or unary_math_ops.tanh

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, input_depth: int) -> None:
        self._kernel = self._weight("kernel", [input_depth + self._num_units, self._num_units])
        self._bias = self._weight("bias", [self._num_units], init_ops.Zeros())

    def call(self, inputs: Any, state: Any) -> tuple:
        output = self._activation(_linear([inputs, state], self._kernel, self._bias))
        return output, output


class BasicLSTMCell(RNNCell):
    """i, j, f, o = split(W [inputs, h] + b); c' = c sigmoid(f + forget_bias) + sigmoid(i) act(j);
    h' = act(c') sigmoid(o)."""

    _base_name = "basic_lstm_cell"

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True, activation: Any = None,
                 reuse: Any = None, name: str | None = None, dtype: Any = None):
        super().__init__(name, dtype, reuse)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or unary_math_ops.tanh

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, input_depth: int) -> None:
        self._kernel = self._weight("kernel", [input_depth + self._num_units, 4 * self._num_units])
        self._bias = self._weight("bias", [4 * self._num_units], init_ops.Zeros())

    def call(self, inputs: Any, state: Any) -> tuple:
        c, h = state if self._state_is_tuple else concat_ops.split(state, 2, axis=1)
        i, j, f, o = concat_ops.split(_linear([inputs, h], self._kernel, self._bias), 4, axis=1)
        sigmoid = unary_math_ops.sigmoid
        new_c = c * sigmoid(f + self._forget_bias) + sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else concat_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """BasicLSTMCell's step, with optional peepholes (w_i_diag, w_f_diag, w_o_diag), a clip on the memory
    (cell_clip) and a projection of the output to num_proj units (projection/kernel, then proj_clip)."""

    _base_name = "lstm_cell"

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: Any = None, initializer: Any = None,
                 num_proj: Any = None, proj_clip: Any = None, num_unit_shards: Any = None, num_proj_shards: Any = None,
                 forget_bias: float = 1.0, state_is_tuple: bool = True, activation: Any = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None):
        super().__init__(name, dtype, reuse)
        self._num_units, self._use_peepholes, self._cell_clip = num_units, use_peepholes, cell_clip
        self._initializer, self._num_proj, self._proj_clip = initializer, num_proj, proj_clip
        self._forget_bias, self._state_is_tuple = forget_bias, state_is_tuple
        self._activation = activation or unary_math_ops.tanh

    @property
    def state_size(self) -> Any:
        out = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, out) if self._state_is_tuple else self._num_units + out

    output_size = property(lambda self: self._num_proj or self._num_units)

    def build(self, input_depth: int) -> None:
        n, out = self._num_units, self._num_proj or self._num_units
        self._kernel = self._weight("kernel", [input_depth + out, 4 * n], self._initializer)
        self._bias = self._weight("bias", [4 * n], init_ops.Zeros())
        if self._use_peepholes:
            self._w_f_diag = self._weight("w_f_diag", [n], self._initializer)
            self._w_i_diag = self._weight("w_i_diag", [n], self._initializer)
            self._w_o_diag = self._weight("w_o_diag", [n], self._initializer)
        if self._num_proj is not None:
            with variable_scope("projection"):
                self._proj_kernel = self._weight("kernel", [n, self._num_proj], self._initializer)

    def call(self, inputs: Any, state: Any) -> tuple:
        n = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev, m_prev = state[:, :n], state[:, n:]
        i, j, f, o = concat_ops.split(_linear([inputs, m_prev], self._kernel, self._bias), 4, axis=1)
        sigmoid, act = unary_math_ops.sigmoid, self._activation
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * act(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * act(j)
        if self._cell_clip is not None:
            c = _clip(c, self._cell_clip)
        m = sigmoid(o + self._w_o_diag * c) * act(c) if self._use_peepholes else sigmoid(o) * act(c)
        if self._num_proj is not None:
            m = matmul_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = _clip(m, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else concat_ops.concat([c, m], 1)
        return m, new_state


def _clip(x: Any, limit: float) -> Any:
    """clip_by_value(x, -limit, limit)."""
    return binary_math_ops.minimum(binary_math_ops.maximum(x, -limit), limit)


class GRUCell(RNNCell):
    """r, u = sigmoid(W_g [inputs, h] + b_g); c = act(W_c [inputs, r h] + b_c); h' = u h + (1 - u) c.
    The gate bias starts at 1.0 (TensorFlow's default), the candidate bias at 0."""

    _base_name = "gru_cell"

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None, kernel_initializer: Any = None,
                 bias_initializer: Any = None, name: str | None = None, dtype: Any = None):
        super().__init__(name, dtype, reuse)
        self._num_units = num_units
        self._activation = activation or unary_math_ops.tanh
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, input_depth: int) -> None:
        n = self._num_units
        with variable_scope("gates"):
            self._gate_kernel = self._weight("kernel", [input_depth + n, 2 * n], self._kernel_initializer)
            self._gate_bias = self._weight("bias", [2 * n], self._bias_initializer or init_ops.Constant(1.0))
        with variable_scope("candidate"):
            self._candidate_kernel = self._weight("kernel", [input_depth + n, n], self._kernel_initializer)
            self._candidate_bias = self._weight("bias", [n], self._bias_initializer or init_ops.Zeros())

    def call(self, inputs: Any, state: Any) -> tuple:
        gates = unary_math_ops.sigmoid(_linear([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = concat_ops.split(gates, 2, axis=1)
        candidate = self._activation(_linear([inputs, r * state], self._candidate_kernel, self._candidate_bias))
        new_h = u * state + (1 - u) * candidate
        return new_h, new_h
