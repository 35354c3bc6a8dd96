"""Layers around another layer: `Bidirectional(rnn, merge_mode)` and `TimeDistributed(layer)`.

Bidirectional runs a copy of the RNN forward (`forward_lstm`) and one with `go_backwards` flipped
(`backward_lstm`), turns the backward sequence back into time order when sequences are returned, and merges:
concat (last axis), sum, mul, ave, or None (both outputs in a list). TimeDistributed applies its layer to every
timestep by folding time into the batch ([batch, time, ...] -> [batch * time, ...] and back); the inner layer is
built inside the wrapper, so its weights are `time_distributed/kernel:0`, as in tf_keras.
"""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.keras.recurrent import check_ndim, find_layer_class
from webflow.ops.concat_ops import concat
from webflow.ops.manip_ops import reverse
from webflow.ops.math_ops import add, multiply

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def serialize_layer(layer: Layer) -> dict:
    """`{"module": "keras.layers", "class_name", "config", "registered_name"}` as tf_keras nests a layer."""
    return {"module": "keras.layers", "class_name": type(layer).__name__, "config": layer.get_config(),
            "registered_name": None}


def deserialize_layer(config: dict) -> Layer:
    return find_layer_class(config["class_name"]).from_config(config["config"])


class Bidirectional(Layer):
    """`Bidirectional(layer, merge_mode="concat", backward_layer=None)` around an RNN layer."""

    def __init__(self, layer: Any, merge_mode: Any = "concat", weights: Any = None, backward_layer: Any = None,
                 **kwargs: Any):
        if merge_mode not in _MERGE_MODES:
            raise ValueError(f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                             '{"sum", "mul", "ave", "concat", None}')
        if not isinstance(layer, Layer) or not hasattr(layer, "go_backwards"):
            raise ValueError("Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(**kwargs)
        object.__setattr__(self, "layer", layer)   # not tracked: its copies hold the weights
        object.__setattr__(self, "merge_mode", merge_mode)
        sequences = layer.return_sequences
        self.forward_layer = layer.clone(name="forward_" + layer.name, zero_output_for_mask=sequences)
        if backward_layer is None:
            backward_layer = layer.clone(name="backward_" + layer.name, go_backwards=not layer.go_backwards,
                                         zero_output_for_mask=sequences)
        self.backward_layer = backward_layer
        for key in ("return_sequences", "return_state", "stateful"):
            object.__setattr__(self, key, getattr(layer, key))
        if weights is not None:
            self._initial_weights = weights

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": serialize_layer(self.layer), "merge_mode": self.merge_mode}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        config = dict(config)
        return cls(deserialize_layer(config.pop("layer")), **config)

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        check_ndim(self, inputs, 3)
        return super().__call__(inputs, *args, **kwargs)

    def _state_count(self) -> int:
        return self.forward_layer._state_count() + self.backward_layer._state_count()

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if isinstance(mask, list):
            mask = mask[0]
        output_mask = mask if self.return_sequences else None
        if self.merge_mode is None:
            output_mask = [output_mask, output_mask]
        else:
            output_mask = [output_mask]
        if self.return_state:
            return output_mask + [None] * self._state_count()
        return output_mask if self.merge_mode is None else output_mask[0]

    def call(self, inputs: Any, training: Any = None, mask: Any = None, initial_state: Any = None) -> Any:
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer._call_eagerly(inputs, training=training, mask=mask, initial_state=forward_state)
        y_rev = self.backward_layer._call_eagerly(inputs, training=training, mask=mask,
                                                  initial_state=backward_state)
        states: list = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = concat([y, y_rev], -1)
        elif self.merge_mode == "sum":
            output = add(y, y_rev)
        elif self.merge_mode == "ave":
            output = add(y, y_rev) / 2   # as tf_keras; 2 takes the dtype of the sum
        elif self.merge_mode == "mul":
            output = multiply(y, y_rev)
        else:
            output = [y, y_rev]
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output


class TimeDistributed(Layer):
    """Applies `layer` to every timestep of [batch, time, ...] inputs."""

    supports_masking = True

    def __init__(self, layer: Any, **kwargs: Any):
        if not isinstance(layer, Layer):
            raise ValueError("Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` instance. "
                             f"Received: {layer}")
        super().__init__(**kwargs)
        self.layer = layer

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        shape = getattr(inputs, "shape", None)
        if shape is not None and len(shape) < 3:
            dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
            raise ValueError("`TimeDistributed` Layer should be passed an `input_shape ` with at least 3 "
                             f"dimensions, received: {dims}")
        return super().__call__(inputs, *args, **kwargs)

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": serialize_layer(self.layer)}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        config = dict(config)
        return cls(deserialize_layer(config.pop("layer")), **config)

    def build(self, input_shape: Any) -> None:
        dims = input_shape.as_list()
        if not self.layer.built:   # built in the wrapper's own name scope: `time_distributed/kernel:0`
            from webflow.framework.tensor_shape import TensorShape
            child = TensorShape([None, *dims[2:]])
            object.__setattr__(self.layer, "_build_input_shape", child)
            self.layer.build(child)
            self.layer.built = True
        self.built = True

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        dims = inputs.shape.as_list()
        flat = backend.reshape(inputs, [-1, *dims[2:]])
        outputs = self.layer._call_eagerly(flat, training=training)
        out_dims = outputs.shape.as_list()
        if dims[1] is None or None in out_dims[1:]:   # traced with an unknown length: the shape as a tensor
            return backend.reshape(outputs, concat([[-1], backend.shape(inputs)[1:2], backend.shape(outputs)[1:]], 0))
        return backend.reshape(outputs, [-1, dims[1], *out_dims[1:]])
