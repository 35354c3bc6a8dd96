"""`keras.Sequential([...])` / `.add(layer)`: a stack of layers, each called on the previous one's output.

Built when the first layer knows its input shape (`input_shape=` or an `Input`), else at the first call (deferred
build), as tf_keras does.
"""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.keras.input_layer import Input, InputLayer
from webflow.keras.keras_tensor import KerasTensor
from webflow.keras.model import Model


class Sequential(Model):
    _tracks_graph_layers = False

    def __init__(self, layers: Any = None, name: str | None = None, **kwargs: Any):
        super().__init__(name=name or backend.unique_object_name("sequential"), **kwargs)
        object.__setattr__(self, "_stack", [])
        object.__setattr__(self, "_input_tensor", None)
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        if isinstance(layer, KerasTensor):   # keras.Input(...) as the first entry
            object.__setattr__(self, "_input_tensor", layer)
            return
        if not isinstance(layer, Layer):
            raise TypeError("The added layer must be an instance of class Layer. "
                            f"Received: layer={layer} of type {type(layer)}.")
        if isinstance(layer, InputLayer):
            object.__setattr__(self, "_input_tensor", layer.output)
            return
        if any(existing.name == layer.name for existing in self._stack):
            raise ValueError(f'All layers added to a Sequential model should have unique names. Name "{layer.name}"'
                             " is already the name of a layer in this model. Update the `name` argument to pass "
                             "a unique name.")
        self._stack.append(layer)
        self._track(f"layer-{len(self._stack) - 1}", layer)
        if self._input_tensor is None and len(self._stack) == 1 and layer._batch_input_shape is not None:
            object.__setattr__(self, "_input_tensor",
                               Input(batch_shape=layer._batch_input_shape, dtype=layer.dtype,
                                     name=f"{layer.name}_input"))
        if self._input_tensor is not None:
            self._rebuild_graph()

    def _rebuild_graph(self) -> None:
        output = self._input_tensor
        for layer in self._stack:
            if layer._inbound_nodes and any(n.inputs is output for n in layer._inbound_nodes):
                output = next(n.outputs for n in layer._inbound_nodes if n.inputs is output)
            else:
                output = layer(output)
        self._init_graph(self._input_tensor, output)

    def build(self, input_shape: Any = None) -> None:
        if not self._is_graph_network and input_shape is not None and not isinstance(input_shape, dict):
            with backend.layer_name_scope(None):   # built as if at top level: `dense/kernel:0`
                self._build_from(input_shape)
        self.built = True

    def _build_from(self, input_shape: Any) -> None:
        dims = list(input_shape.as_list() if hasattr(input_shape, "as_list") else input_shape)
        object.__setattr__(self, "_input_tensor", Input(batch_shape=dims, name=f"{self._stack[0].name}_input"))
        self._rebuild_graph()

    @property
    def layers(self) -> list:
        return list(self._stack)

    def _sublayers(self) -> list:
        return list(self._stack)

    def call(self, inputs: Any, training: Any = None, mask: Any = None) -> Any:
        if isinstance(inputs, dict) and not self._is_graph_network:
            return self._call_stack(inputs, training)
        if not self._is_graph_network:   # deferred build: the first batch gives the input shape
            self.build([None, *inputs.shape.as_list()[1:]])
        return super().call(inputs, training=training)

    def _call_stack(self, inputs: Any, training: Any) -> Any:
        """A dict of features (a DenseFeatures first): no graph network, each layer called in turn inside the
        model's scope (`sequential/dense/kernel:0`), as tf_keras runs a Sequential it cannot build from a shape."""
        outputs = inputs
        for layer in self._stack:
            outputs = layer(outputs, training=training)
        return outputs
