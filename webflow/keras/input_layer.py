"""`keras.Input(shape)` and the `InputLayer` behind it: a layer with no weights whose one node has no inputs and
gives the symbolic tensor that starts a functional model."""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.base_layer import Layer
from webflow.keras.keras_tensor import KerasTensor, Node


class InputLayer(Layer):
    """The layer behind `keras.Input`: no weights; its one node has no inputs."""

    def __init__(self, input_shape: Any = None, batch_size: int | None = None, dtype: Any = None,
                 name: str | None = None, batch_input_shape: Any = None, sparse: Any = None, ragged: Any = None):
        if name is None:
            name = f"input_{backend.get_uid('input')}"
        if batch_input_shape is None:
            batch_input_shape = (batch_size, *tuple(input_shape or ()))
        # floatx, not the global policy: tf_keras's InputLayer computes in float32 under 'mixed_float16' too
        super().__init__(name=name, dtype=dtype or backend.floatx(), batch_input_shape=batch_input_shape)
        self.built = True
        node = Node(self, [], (), {})
        node.outputs = KerasTensor(self._batch_input_shape, self._dtype, name, node, 0)
        object.__setattr__(self, "output", node.outputs)

    def get_config(self) -> dict:
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype, "name": self.name}


def Input(shape: Any = None, batch_size: int | None = None, name: str | None = None, dtype: Any = None,  # noqa: N802
          sparse: Any = None, tensor: Any = None, ragged: Any = None, batch_shape: Any = None) -> KerasTensor:
    """`keras.Input(shape)`: a symbolic batch of `shape` (the batch dim left None) to call layers on."""
    if shape is None and batch_shape is None:
        raise ValueError("Please provide to Input a `shape` or a `tensor` or a `type_spec` argument. Note that "
                         "`shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(input_shape=shape, batch_size=batch_size, dtype=dtype, name=name,
                       batch_input_shape=batch_shape)
    return layer.output
