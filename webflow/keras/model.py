"""`keras.Model`: functional (`Model(inputs, outputs)`: the recorded nodes replayed in order) or subclassed
(`call` written by the user); training, saving and `summary` come from training.py's mixin."""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer, unique
from webflow.keras.graph_order import layers_in_keras_order
from webflow.keras.input_layer import InputLayer
from webflow.keras.keras_tensor import KerasTensor, flatten, map_structure
from webflow.keras.training import TrainingMixin


class Model(TrainingMixin, Layer):
    """`Model(inputs, outputs, name=None)` or a subclass defining `call(inputs, training=None)`."""

    _tracks_graph_layers = True   # Sequential tracks its own stack (no InputLayer)

    def __init__(self, *args: Any, **kwargs: Any):
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        functional = inputs is not None and outputs is not None
        if functional and "name" not in kwargs:
            kwargs["name"] = backend.unique_object_name("model")
        super().__init__(**kwargs)
        object.__setattr__(self, "_is_graph_network", False)
        self._init_training()
        if functional:
            self._init_graph(inputs, outputs)

    def _init_graph(self, inputs: Any, outputs: Any) -> None:
        object.__setattr__(self, "_is_graph_network", True)
        object.__setattr__(self, "inputs", flatten(inputs))
        object.__setattr__(self, "outputs", flatten(outputs))
        object.__setattr__(self, "_input_structure", inputs)
        object.__setattr__(self, "_output_structure", outputs)
        object.__setattr__(self, "_nodes", _nodes_between(self.inputs, self.outputs))
        layers = layers_in_keras_order(self.inputs, self.outputs)
        if self._tracks_graph_layers:
            for index, layer in enumerate(layers):
                self._track(f"layer-{index}", layer)
        object.__setattr__(self, "_graph_layers", layers)
        self.built = True

    @property
    def layers(self) -> list:
        if self._is_graph_network:
            return list(self._graph_layers)
        return self._sublayers()

    def _sublayers(self) -> list:
        if self._is_graph_network:
            return [layer for layer in self._graph_layers if not isinstance(layer, InputLayer)]
        return super()._sublayers()

    @property
    def weights(self) -> list:
        """Layer by layer, each layer's trainable then non-trainable weights (tf_keras's Model.weights order)."""
        found = list(self._own_trainable) + list(self._own_non_trainable)
        for layer in self._sublayers():
            found = unique(found + layer.weights)
        return found

    variables = weights

    def get_weights(self) -> list:
        return [weight.numpy() for weight in self.weights]

    def _checkpoint_children(self) -> list:
        """Its edges in a checkpoint, as tf_keras names them (`layer_with_weights-0`, `layer-0`, ..., `optimizer`)."""
        from webflow.keras import weights_io
        return weights_io.model_children(self)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if not self._is_graph_network:
            raise NotImplementedError("Unimplemented `tf.keras.Model.call()`: if you intend to create a `Model` "
                                      "with the Functional API, please provide `inputs` and `outputs` arguments. "
                                      "Otherwise, subclass `Model` with an overridden `call()` method.")
        values: dict[int, Any] = {}
        given = flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if isinstance(inputs, dict) and isinstance(self._input_structure, dict):   # matched by key, as tf_keras
            given = flatten({key: inputs[key] for key in self._input_structure})
        if len(given) != len(self.inputs):
            raise ValueError(f'Layer "{self.name}" expects {len(self.inputs)} input(s), but it received '
                             f"{len(given)} input tensors.")
        for symbolic, value in zip(self.inputs, given):
            values[id(symbolic)] = value
        for node in self._nodes:
            if isinstance(node.layer, InputLayer):
                continue
            args = map_structure(lambda t: values[id(t)] if isinstance(t, KerasTensor) else t, node.inputs)
            result = node.layer._call_eagerly(args, *node.args, training=training, **node.kwargs)
            for symbolic, value in zip(flatten(node.outputs), flatten(result)):
                values[id(symbolic)] = value
        return map_structure(lambda t: values[id(t)], self._output_structure)


def _nodes_between(inputs: list, outputs: list) -> list:
    """The nodes the outputs depend on, in the order they were made (inputs before their users)."""
    found: dict[int, Any] = {}
    stack = [tensor.node for tensor in outputs]
    while stack:
        node = stack.pop()
        if node.id in found:
            continue
        found[node.id] = node
        stack.extend(tensor.node for tensor in node.input_tensors() if isinstance(tensor, KerasTensor))
    for tensor in inputs:
        if tensor.node.id not in found:
            raise ValueError(f"Input {tensor.name} is not connected to the outputs.")
    return [found[key] for key in sorted(found)]
