"""The recurrent layers of tf_keras: `RNN(cell)` and `SimpleRNN`, `LSTM`, `GRU` (an RNN around their cell).

The loop over time is a Python loop over the (static) timesteps, so eager GradientTape and traced graphs both
differentiate it as plain ops (`unroll` is accepted; every run is unrolled). Built-in cells do the input matmul
for all timesteps at once (recurrent_cells.py). Masks follow tf_keras's backend.rnn: at a masked timestep the
states keep their previous values and the output repeats the previous output (zeros before the first real step;
zeros outright with `zero_output_for_mask`, which Bidirectional sets when it returns sequences). With
`go_backwards` the sequence is read from the end and the returned sequence is in that reversed order.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend, regularizers
from webflow.keras.base_layer import Layer
from webflow.keras.recurrent_cells import (
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
    batch_filled,
    batch_size_of,
    find_layer_class,
)
from webflow.nn.dropout_ops import dropout_v2
from webflow.ops.array_ops import zeros_like
from webflow.ops.concat_ops import stack, unstack
from webflow.ops.logic_ops import select
from webflow.ops.manip_ops import expand_dims
from webflow.ops.math_ops import multiply

_CELL_ARGS = ("activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
              "bias_initializer", "unit_forget_bias", "kernel_regularizer", "recurrent_regularizer",
              "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
              "recurrent_dropout", "reset_after", "implementation")


def check_ndim(layer: Any, inputs: Any, ndim: int) -> None:
    """tf_keras's InputSpec(ndim=...) check, raised before the layer builds."""
    first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
    shape = getattr(first, "shape", None)
    if shape is None:
        return
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    if len(dims) != ndim:
        raise ValueError(f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected ndim={ndim}, '
                         f"found ndim={len(dims)}. Full shape received: {tuple(dims)}")


class RNN(Layer):
    """`RNN(cell, return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False)`."""

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False, time_major: bool = False,
                 **kwargs: Any):
        zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError("Argument `cell` should have a `call` method and a `state_size` attribute. "
                             f"Received: cell={cell}")
        super().__init__(**kwargs)
        for key, value in (("return_sequences", return_sequences), ("return_state", return_state),
                           ("go_backwards", go_backwards), ("stateful", stateful), ("unroll", unroll),
                           ("time_major", time_major), ("zero_output_for_mask", zero_output_for_mask),
                           ("states", None)):
            object.__setattr__(self, key, value)
        self.cell = cell

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        check_ndim(self, inputs, 3)
        initial_state = kwargs.pop("initial_state", None)
        if initial_state is not None:   # as tf_keras: the states become inputs (functional graphs connect them)
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
            inputs = [first, *states]
        return super().__call__(inputs, *args, **kwargs)

    def build(self, input_shape: Any) -> None:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        dims = input_shape.as_list()
        if not self.cell.built:
            with backend.layer_name_scope(self.cell.name):   # `lstm/lstm_cell/kernel:0`
                self.cell.build([dims[0], dims[-1]])
            self.cell.built = True
        self.built = True

    def get_config(self) -> dict:
        config = {**super().get_config(), "return_sequences": self.return_sequences,
                  "return_state": self.return_state, "go_backwards": self.go_backwards, "stateful": self.stateful,
                  "unroll": self.unroll, "time_major": self.time_major}
        if self.zero_output_for_mask:
            config["zero_output_for_mask"] = True
        if type(self) is RNN:
            config["cell"] = {"module": "keras.layers", "class_name": type(self.cell).__name__,
                              "config": self.cell.get_config(), "registered_name": None}
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        config = dict(config)
        cell = config.pop("cell")
        if isinstance(cell, dict):
            cell = find_layer_class(cell["class_name"]).from_config(cell["config"])
        return cls(cell, **config)

    def _state_count(self) -> int:
        size = self.cell.state_size
        return len(size) if isinstance(size, (list, tuple)) else 1

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.return_state:
            return [output_mask] + [None] * self._state_count()
        return output_mask

    def reset_states(self, states: Any = None) -> None:
        object.__setattr__(self, "states", None if states is None else list(states))

    def call(self, inputs: Any, mask: Any = None, training: Any = None, initial_state: Any = None) -> Any:
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        if isinstance(mask, list):
            mask = mask[0]
        if self.time_major:
            inputs = backend_transpose(inputs)
        states = self._initial_states(inputs, initial_state)
        last, outputs, states = self._loop(inputs, mask, states, training)
        if self.stateful:
            object.__setattr__(self, "states", list(states))
        output = outputs if self.return_sequences else last
        if self.return_sequences and self.time_major:
            output = backend_transpose(output)
        return [output, *states] if self.return_state else output

    def _initial_states(self, inputs: Any, initial_state: Any) -> list:
        if initial_state is not None:
            return list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
        if self.stateful and self.states is not None:
            return list(self.states)
        if hasattr(self.cell, "get_initial_state"):
            return list(self.cell.get_initial_state(inputs=inputs, batch_size=batch_size_of(inputs),
                                                    dtype=inputs.dtype))
        sizes = self.cell.state_size if isinstance(self.cell.state_size, (list, tuple)) else [self.cell.state_size]
        return [batch_filled(batch_size_of(inputs), size, inputs.dtype) for size in sizes]

    def _stepper(self, inputs: Any, training: Any) -> tuple:
        """(the per-timestep inputs, step(x_t, states) -> (output, states)) for this cell."""
        cell = self.cell
        if not hasattr(cell, "project"):   # any cell: its own call per timestep
            def call_step(x_t: Any, states: list) -> tuple:
                output, new = cell.call(x_t, states) if not cell._takes_training() else \
                    cell.call(x_t, states, training=training)
                return output, list(new) if isinstance(new, (list, tuple)) else [new]
            return unstack(inputs, axis=1), call_step
        if training and 0 < cell.dropout < 1:   # one input mask for every timestep
            ones = batch_filled(batch_size_of(inputs), inputs.shape.as_list()[-1], value=1.0)
            inputs = multiply(inputs, expand_dims(dropout_v2(ones, rate=cell.dropout), 1))
        recurrent_mask = None
        if training and 0 < cell.recurrent_dropout < 1:
            ones = batch_filled(batch_size_of(inputs), cell.units, value=1.0)
            recurrent_mask = dropout_v2(ones, rate=cell.recurrent_dropout)
        return unstack(cell.project(inputs), axis=1), \
            (lambda x_t, states: cell.step(x_t, states, recurrent_mask))

    def _loop(self, inputs: Any, mask: Any, states: list, training: Any) -> tuple:
        """tf_keras's backend.rnn over the timesteps: (last output, stacked outputs, final states)."""
        if inputs.shape.as_list()[1] is None:
            raise ValueError(f'Layer "{self.name}" needs a known number of timesteps (webflow unrolls the loop); '
                             f"received input with shape {tuple(inputs.shape.as_list())}")
        steps, step = self._stepper(inputs, training)
        if mask is not None:
            mask = backend.convert_to_tensor(mask)
            mask = mask if mask.dtype == dtypes.bool else backend.cast(mask, dtypes.bool)
        step_masks = unstack(mask, axis=1) if mask is not None else [None] * len(steps)
        if self.go_backwards:
            steps, step_masks = steps[::-1], step_masks[::-1]
        outputs, previous = [], None
        for x_t, mask_t in zip(steps, step_masks):
            output, new_states = step(x_t, states)
            if mask_t is not None:
                if previous is None or self.zero_output_for_mask:
                    previous = zeros_like(output)
                output = select(mask_t, output, previous)
                new_states = [select(mask_t, new, old) for new, old in zip(new_states, states)]
            previous, states = output, new_states
            outputs.append(output)
        return outputs[-1], stack(outputs, axis=1), states


def backend_transpose(x: Any) -> Any:
    """[time, batch, ...] <-> [batch, time, ...]."""
    from webflow.ops.manip_ops import transpose
    rank = len(x.shape.as_list())
    return transpose(x, [1, 0, *range(2, rank)])


class _CellLayer(RNN):
    """An RNN built around its own cell from the layer's arguments (LSTM -> `lstm_cell`)."""

    _cell_class: Any = None
    _cell_name = ""

    def __init__(self, units: int, **kwargs: Any):
        cell_kwargs = {key: kwargs.pop(key) for key in _CELL_ARGS if key in kwargs}
        cell = self._cell_class(units, name=self._cell_name, dtype=kwargs.get("dtype"),
                                trainable=kwargs.get("trainable", True), **cell_kwargs)
        object.__setattr__(self, "_layer_args", {"units": units, **cell_kwargs, **kwargs})
        super().__init__(cell, **kwargs)

    @property
    def units(self) -> int:
        return self.cell.units

    def get_config(self) -> dict:
        cell = {key: value for key, value in self.cell.get_config().items()
                if key not in ("name", "trainable", "dtype")}
        config = {**super().get_config(), **cell}
        config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)

    def clone(self, **changes: Any) -> Any:
        """The same layer, unbuilt, with some arguments changed (Bidirectional's forward/backward copies)."""
        args = {**self._layer_args, **changes}
        return type(self)(**args)


class SimpleRNN(_CellLayer):
    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"


class LSTM(_CellLayer):
    _cell_class, _cell_name = LSTMCell, "lstm_cell"


class GRU(_CellLayer):
    _cell_class, _cell_name = GRUCell, "gru_cell"
