"""The recurrent cells of tf_keras: `SimpleRNNCell`, `LSTMCell`, `GRUCell` and `StackedRNNCells`.

A cell is one timestep: `cell(inputs [batch, features], states) -> (output, new_states)`. Each built-in cell
splits its step in two so that the RNN layer can do the input half for all timesteps in one matmul:
`project(x)` = x @ kernel (+ input bias) for x of any rank, and `step(projected, states)` = the recurrent half.
The math (gate order, bias layout, initializers) is tf_keras's:
  SimpleRNN: h = tanh(x W + b + h' U)
  LSTM:      [i f c o] = x W + h' U + b;  c = sig(f) c' + sig(i) tanh(c);  h = sig(o) tanh(c)
  GRU (reset_after=True, bias [2, 3 units]): [xz xr xh] = x W + b0, [hz hr hh] = h' U + b1,
             z = sig(xz + hz), r = sig(xr + hr), h = z h' + (1 - z) tanh(xh + r hh)
  GRU (reset_after=False, bias [3 units]):   h~ = tanh(xh + (r h') U_h) instead.
Dropout (`dropout`, `recurrent_dropout`, training only) uses one mask per call of the RNN layer for all
timesteps and all gates (tf_keras draws one per gate when recurrent_dropout is set: same statistics, other draws).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import activations, backend, constraints, initializers, regularizers
from webflow.keras.base_layer import Layer
from webflow.ops.concat_ops import concat, split, stack, unstack
from webflow.ops.math_ops import add, multiply


def _project(x: Any, kernel: Any, bias: Any) -> Any:
    """x @ kernel (+ bias) over the last axis of x, whatever its rank."""
    dims = x.shape.as_list()
    if len(dims) > 2:
        flat = backend.reshape(x, [-1, dims[-1]])
        out = backend.reshape(backend.matmul(flat, kernel), [-1, *dims[1:-1], kernel.shape.as_list()[-1]])
    else:
        out = backend.matmul(x, kernel)
    return out if bias is None else add(out, bias)


def batch_filled(batch_size: Any, size: int, dtype: Any = None, value: float = 0.0) -> Any:
    """A [batch_size, size] tensor of `value`; batch_size a Python int or a scalar tensor (traced, unknown)."""
    dims = [batch_size, size] if isinstance(batch_size, int) else stack([batch_size, size])
    filled = backend.ones if value == 1.0 else backend.zeros
    return filled(dims, dtype=dtype or dtypes.float32)


def batch_size_of(inputs: Any) -> Any:
    """The static batch size when known, else the dynamic one."""
    static = inputs.shape.as_list()[0]
    return static if static is not None else backend.shape(inputs)[0]


def find_layer_class(name: str) -> type:
    """The Layer subclass called `name` (built-in or the user's own, once defined): what a config names."""
    classes = [Layer]
    while classes:
        found = classes.pop()
        if found.__name__ == name:
            return found
        classes.extend(found.__subclasses__())
    raise ValueError(f"Unknown layer: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` and "
                     "that this object is included in the scope. See https://www.tensorflow.org/guide/keras/"
                     "save_and_serialize#registering_the_custom_object for details.")


class _Cell(Layer):
    """What the three cells share: units, activations, initializers, dropout rates, and `call` = project + step."""

    _gates = 1

    def __init__(self, units: int, activation: Any = "tanh", use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", recurrent_initializer: Any = "orthogonal",
                 bias_initializer: Any = "zeros", kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 **kwargs: Any):
        kwargs.pop("implementation", None)
        super().__init__(**kwargs)
        if units <= 0:
            raise ValueError(f"Received an invalid value for argument `units`, expected a positive integer, "
                             f"got {units}.")
        for key, value in (("units", int(units)), ("activation", activations.get(activation)),
                           ("use_bias", use_bias), ("kernel_initializer", initializers.get(kernel_initializer)),
                           ("recurrent_initializer", initializers.get(recurrent_initializer)),
                           ("bias_initializer", initializers.get(bias_initializer)),
                           ("dropout", min(1.0, max(0.0, dropout))),
                           ("recurrent_dropout", min(1.0, max(0.0, recurrent_dropout))),
                           ("_weight_options", {   # regularizer and constraint of each weight, for add_weight
                               "kernel": (kernel_regularizer, kernel_constraint),
                               "recurrent_kernel": (recurrent_regularizer, recurrent_constraint),
                               "bias": (bias_regularizer, bias_constraint)})):
            object.__setattr__(self, key, value)

    @property
    def state_size(self) -> Any:
        return self.units

    @property
    def output_size(self) -> int:
        return self.units

    def _bias_shape(self) -> list:
        return [self._gates * self.units]

    def _bias_initializer(self) -> Any:
        return self.bias_initializer

    def build(self, input_shape: Any) -> None:
        features = int(input_shape[-1])
        size = self._gates * self.units
        self.kernel = self._weight("kernel", [features, size], self.kernel_initializer)
        self.recurrent_kernel = self._weight("recurrent_kernel", [self.units, size], self.recurrent_initializer)
        self.bias = self._weight("bias", self._bias_shape(), self._bias_initializer()) if self.use_bias else None
        self.built = True

    def _weight(self, name: str, shape: list, initializer: Any) -> Any:
        regularizer, constraint = self._weight_options[name]
        return self.add_weight(name, shape, initializer=initializer, regularizer=regularizer, constraint=constraint)

    def _input_bias(self) -> Any:
        return self.bias

    def project(self, x: Any) -> Any:
        """The input half of the step for any number of leading axes: x @ kernel (+ the input bias)."""
        return _project(x, self.kernel, self._input_bias())

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None) -> list:
        if batch_size is None:
            batch_size = batch_size_of(inputs)
        sizes = self.state_size if isinstance(self.state_size, (list, tuple)) else [self.state_size]
        return [batch_filled(batch_size, size, dtype) for size in sizes]

    def get_config(self) -> dict:
        """tf_keras's keys: units, activations, initializers / regularizers / constraints serialized, dropouts."""
        config = {**super().get_config(), "units": self.units, "activation": activations.serialize(self.activation)}
        if hasattr(self, "recurrent_activation"):
            config["recurrent_activation"] = activations.serialize(self.recurrent_activation)
        config.update({"use_bias": self.use_bias,
                       **{f"{name}_initializer": initializers.serialize(getattr(self, f"{name}_initializer"))
                          for name in ("kernel", "recurrent", "bias")}})
        if hasattr(self, "unit_forget_bias"):
            config["unit_forget_bias"] = self.unit_forget_bias
        options = self._weight_options
        config.update({f"{key}_regularizer": regularizers.serialize(regularizers.get(options[weight][0]))
                       for key, weight in (("kernel", "kernel"), ("recurrent", "recurrent_kernel"), ("bias", "bias"))})
        config.update({f"{key}_constraint": constraints.serialize(constraints.get(options[weight][1]))
                       for key, weight in (("kernel", "kernel"), ("recurrent", "recurrent_kernel"), ("bias", "bias"))})
        config.update({"dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout})
        if self._gates > 1:
            config["implementation"] = 2
        if hasattr(self, "reset_after"):
            config["reset_after"] = self.reset_after
        return config

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        listed = isinstance(states, (list, tuple))
        output, new_states = self.step(self.project(inputs), list(states) if listed else [states])
        return output, (new_states if listed or len(new_states) > 1 else new_states[0])


class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + bias + h' @ recurrent_kernel)."""

    def step(self, projected: Any, states: list, recurrent_mask: Any = None) -> tuple:
        previous = states[0] if recurrent_mask is None else multiply(states[0], recurrent_mask)
        output = self.activation(add(projected, backend.matmul(previous, self.recurrent_kernel)))
        return output, [output]


class _GatedCell(_Cell):
    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 **kwargs: Any):
        super().__init__(units, activation=activation, **kwargs)
        object.__setattr__(self, "recurrent_activation", activations.get(recurrent_activation))


class LSTMCell(_GatedCell):
    """Gates i, f, c, o in that order along the kernel's columns; `unit_forget_bias` starts f's bias at 1."""

    _gates = 4

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 unit_forget_bias: bool = True, **kwargs: Any):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation, **kwargs)
        object.__setattr__(self, "unit_forget_bias", unit_forget_bias)

    @property
    def state_size(self) -> list:
        return [self.units, self.units]

    def _bias_initializer(self) -> Any:
        if not self.unit_forget_bias:
            return self.bias_initializer
        units, base = self.units, self.bias_initializer

        def forget_bias_one(shape: Any, dtype: Any = None, **kwargs: Any) -> Any:
            return concat([base([units], dtype=dtype), backend.ones([units], dtype=dtype or dtypes.float32),
                           base([2 * units], dtype=dtype)], 0)
        return forget_bias_one

    def step(self, projected: Any, states: list, recurrent_mask: Any = None) -> tuple:
        h_prev, c_prev = states[0], states[1]
        if recurrent_mask is not None:
            h_prev = multiply(h_prev, recurrent_mask)
        z = add(projected, backend.matmul(h_prev, self.recurrent_kernel))
        z_i, z_f, z_c, z_o = split(z, 4, axis=1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = add(multiply(f, c_prev), multiply(i, self.activation(z_c)))
        o = self.recurrent_activation(z_o)
        h = multiply(o, self.activation(c))
        return h, [h, c]


class GRUCell(_GatedCell):
    """Gates z (update), r (reset), h in that order; `reset_after` (the default) applies r after the matmul."""

    _gates = 3

    def __init__(self, units: int, activation: Any = "tanh", recurrent_activation: Any = "sigmoid",
                 reset_after: bool = True, **kwargs: Any):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation, **kwargs)
        object.__setattr__(self, "reset_after", reset_after)

    def _bias_shape(self) -> list:
        return [2, 3 * self.units] if self.reset_after else [3 * self.units]

    def _input_bias(self) -> Any:
        if self.bias is None:
            return None
        return unstack(self.bias, num=2)[0] if self.reset_after else self.bias

    def step(self, projected: Any, states: list, recurrent_mask: Any = None) -> tuple:
        h_prev = states[0]
        h_in = h_prev if recurrent_mask is None else multiply(h_prev, recurrent_mask)
        x_z, x_r, x_h = split(projected, 3, axis=1)
        if self.reset_after:
            inner = backend.matmul(h_in, self.recurrent_kernel)
            if self.bias is not None:
                inner = add(inner, unstack(self.bias, num=2)[1])
            r_z, r_r, r_h = split(inner, 3, axis=1)
            z = self.recurrent_activation(add(x_z, r_z))
            r = self.recurrent_activation(add(x_r, r_r))
            candidate = self.activation(add(x_h, multiply(r, r_h)))
        else:
            kernel_zr, kernel_h = split(self.recurrent_kernel, [2 * self.units, self.units], axis=1)
            r_z, r_r = split(backend.matmul(h_in, kernel_zr), 2, axis=1)
            z = self.recurrent_activation(add(x_z, r_z))
            r = self.recurrent_activation(add(x_r, r_r))
            candidate = self.activation(add(x_h, backend.matmul(multiply(r, h_in), kernel_h)))
        h = add(multiply(z, h_prev), multiply(1.0 - z, candidate))   # 1.0 takes z's dtype (mixed precision)
        return h, [h]


class StackedRNNCells(Layer):
    """Several cells as one: each cell's output is the next one's input; the states are all cells' in order."""

    def __init__(self, cells: list, **kwargs: Any):
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        sizes = []
        for cell in self.cells:
            size = cell.state_size
            sizes.extend(size if isinstance(size, (list, tuple)) else [size])
        return sizes

    @property
    def output_size(self) -> int:
        return self.cells[-1].output_size

    def build(self, input_shape: Any) -> None:
        features = int(input_shape[-1])
        for cell in self.cells:
            with backend.layer_name_scope(cell.name):
                cell.build([None, features])
            cell.built = True
            features = cell.output_size
        self.built = True

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None, dtype: Any = None) -> list:
        return [state for cell in self.cells for state in cell.get_initial_state(inputs, batch_size, dtype)]

    def get_config(self) -> dict:
        return {**super().get_config(), "cells": [
            {"module": "keras.layers", "class_name": type(cell).__name__, "config": cell.get_config(),
             "registered_name": None} for cell in self.cells]}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        config = dict(config)
        cells = [find_layer_class(cell["class_name"]).from_config(cell["config"]) for cell in config.pop("cells")]
        return cls(cells, **config)

    def call(self, inputs: Any, states: Any, training: Any = None) -> Any:
        new_states, position = [], 0
        for cell in self.cells:
            size = cell.state_size
            count = len(size) if isinstance(size, (list, tuple)) else 1
            inputs, cell_states = cell.call(inputs, list(states[position:position + count]))
            new_states.extend(cell_states if isinstance(cell_states, (list, tuple)) else [cell_states])
            position += count
        return inputs, new_states
