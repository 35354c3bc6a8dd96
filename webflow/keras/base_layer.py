"""`keras.layers.Layer`: weights made by `add_weight` in `build`, computation in `call`, run by `__call__`.

`__call__` builds the layer on the first input's shape, then calls `call` with `training` when `call` takes it
(the caller's flag when not given). Called on a symbolic `KerasTensor` (keras.Input) it records a node of the
functional graph instead (keras_tensor.py). Weights are named `<layer name>/<weight name>:0` as tf_keras names
them, and are checkpoint edges of the layer under their own name (`kernel`, `bias`), as tf_keras tracks them.
"""

from __future__ import annotations

import inspect
from typing import Any

from webflow.framework import dtypes
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.keras import (
    backend,
    constraints,
    initializers,
    keras_tensor,
    layer_losses,
    masks,
    mixed_precision,
    output_shapes,
    regularizers,
)
from webflow.train.module import Module
from webflow.train.trackable import is_variable


def _is_tracked(value: Any) -> bool:
    """What a layer keeps as a checkpoint edge: variables, layers, and lists of layers (not bookkeeping lists)."""
    if is_variable(value) or isinstance(value, Layer):
        return True
    return isinstance(value, list) and any(isinstance(item, Layer) for item in value)


class Layer(Module):
    """`Layer(trainable=True, name=None, dtype=None)`: subclass and write `build(input_shape)` and `call(inputs)`."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any):
        input_shape = kwargs.pop("input_shape", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        activity_regularizer = regularizers.get(kwargs.pop("activity_regularizer", None))
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]!r}")
        if name is None:   # any string is kept as given, '' included (tf_keras's _init_set_name)
            name = backend.unique_object_name(backend.to_snake_case(type(self).__name__))
        elif not isinstance(name, str):
            raise TypeError(f"Expected `name` argument to be a string, but got: {name}")
        super().__init__()   # tf.Module would refuse names Keras accepts ('' or 'a/b'): set it after
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_scope_name", name + "/")
        policy = mixed_precision.policy_of(dtype)   # the global policy when dtype is None
        for key, value in (("trainable", trainable), ("built", False), ("_dtype_policy", policy),
                           ("_own_trainable", []), ("_own_non_trainable", []), ("_inbound_nodes", []),
                           ("_build_input_shape", None), ("_call_takes_training", None)):
            object.__setattr__(self, key, value)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (None, *tuple(input_shape))
        object.__setattr__(self, "_batch_input_shape", tuple(batch_input_shape) if batch_input_shape else None)
        object.__setattr__(self, "activity_regularizer", activity_regularizer)
        object.__setattr__(self, "_dtype", dtypes.as_dtype(self._dtype_policy.variable_dtype))
        layer_losses.init(self)   # add_loss / losses (layer_losses.py)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if _is_tracked(value):
            self._track(name, value)

    # --- weights ---

    @property
    def dtype(self) -> str:
        return self._dtype.name

    # mixed precision (mixed_precision.py): weights in variable_dtype, inputs cast to and math in compute_dtype
    dtype_policy = property(lambda self: self._dtype_policy)
    compute_dtype = property(lambda self: self._dtype_policy.compute_dtype)
    variable_dtype = property(lambda self: self._dtype_policy.variable_dtype)

    def add_weight(self, name: str | None = None, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: bool | None = None, constraint: Any = None,
                   **kwargs: Any) -> Any:
        """A new variable `<layer>/<name>:0`, initialized by `initializer` (glorot_uniform for floats)."""
        dtype = dtypes.as_dtype(dtype or self._dtype)
        trainable = True if trainable is None else trainable
        init = initializers.get(initializer or ("glorot_uniform" if dtype.is_floating else "zeros"))
        dims = list(TensorShape(shape or ()).as_list())
        make = mixed_precision.variable_class(self._dtype_policy, dtype)   # AutoCastVariable when mixed
        variable = make(init(dims, dtype=dtype), trainable=trainable, name=backend.scoped_name(name),
                                    dtype=dtype, constraint=constraints.get(constraint))
        if regularizer is not None:   # a callable loss: re-read on every `losses` (layer_losses.py)
            self.add_loss(layer_losses.weight_regularization(variable, regularizers.get(regularizer)))
        (self._own_trainable if trainable else self._own_non_trainable).append(variable)
        self._track(name, variable)
        return variable

    def _sublayers(self) -> list:
        """The layers held in attributes, in order of assignment (tf_keras's `_self_tracked_trackables`)."""
        found = []
        for _, value in self._dependencies():
            for item in (value if isinstance(value, list) else [value]):
                if isinstance(item, Layer) and item is not self and item not in found:
                    found.append(item)
        return found

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        weights = list(self._own_trainable)
        for layer in self._sublayers():
            weights = unique(weights + layer.trainable_weights)
        return weights

    @property
    def non_trainable_weights(self) -> list:
        weights = list(self._own_non_trainable)
        if not self.trainable:
            weights = list(self._own_trainable) + weights
        for layer in self._sublayers():
            weights = unique(weights + (layer.non_trainable_weights if self.trainable else layer.weights))
        return weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    def get_weights(self) -> list:
        return [w.numpy() for w in self.weights]

    def set_weights(self, weights: list) -> None:
        own = self.weights
        if len(weights) != len(own):
            raise ValueError(f'Layer {self.name} weight shape mismatch: expected {len(own)} weights, '
                             f'but received {len(weights)}')
        for variable, value in zip(own, weights):
            if tuple(variable.shape.as_list()) != tuple(getattr(value, "shape", ())):
                raise ValueError(f"Layer {self.name} weight shape {tuple(variable.shape.as_list())} is not "
                                 f"compatible with provided weight shape {tuple(value.shape)}.")
            variable.assign(value)

    def count_params(self) -> int:
        total = 0
        for w in self.weights:
            count = 1
            for dim in w.shape.as_list():
                count *= dim
            total += count
        return total

    # --- building and calling ---

    def build(self, input_shape: Any) -> None:
        self.built = True

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return output_shapes.by_running(self, input_shape)   # tf_keras's default: run the layer, read the shape

    def _maybe_build(self, inputs: Any) -> None:
        if self.built:
            return
        shapes = _shapes_of(inputs)
        object.__setattr__(self, "_build_input_shape", shapes)
        self.build(shapes)
        self.built = True

    def _takes_training(self) -> bool:
        if self._call_takes_training is None:
            parameters = inspect.signature(self.call).parameters
            object.__setattr__(self, "_call_takes_training", "training" in parameters)
        return self._call_takes_training

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if keras_tensor.any_symbolic(inputs):
            return keras_tensor.call_symbolically(self, inputs, args, kwargs)
        return self._call_eagerly(inputs, *args, **kwargs)

    def _call_eagerly(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        inputs = _to_tensors(inputs)
        training = kwargs.pop("training", None)
        if training is None:
            training = backend.learning_phase()
        if self._takes_training():
            kwargs["training"] = training
        input_mask = kwargs["mask"] if "mask" in kwargs else masks.masks_of(inputs)   # tf_keras's implicit mask
        if "mask" not in kwargs and input_mask is not None and self._takes_mask():
            kwargs["mask"] = input_mask
        math_dtype = mixed_precision.math_dtype(self)   # the compute dtype (float32 for BatchNormalization's math)
        inputs = mixed_precision.cast_floats(inputs, math_dtype)   # floating inputs -> that dtype
        with backend.learning_phase_scope(training), backend.layer_name_scope(self.name), \
                layer_losses.call_context(self), mixed_precision.autocast_scope(math_dtype):
            self._maybe_build(inputs)
            outputs = mixed_precision.cast_floats(self.call(inputs, *args, **kwargs), self.compute_dtype, math_dtype)
            layer_losses.add_activity_regularization(self, outputs)
        if self._supports_masking():
            masks.attach(outputs, self.compute_mask(inputs, input_mask))
        return outputs

    # --- losses (layer_losses.py): add_loss in call or with a callable; weight and activity regularizers ---

    def add_loss(self, losses: Any, **kwargs: Any) -> None:
        layer_losses.add_loss(self, losses)

    @property
    def losses(self) -> list:
        return layer_losses.collect(self)

    # --- masks (masks.py): `supports_masking` layers pass their input's mask on; others drop it ---

    supports_masking = False

    def _supports_masking(self) -> bool:
        return self.supports_masking or type(self).compute_mask is not Layer.compute_mask

    def _takes_mask(self) -> bool:
        return "mask" in inspect.signature(self.call).parameters

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The mask of the output: the input's for a layer that supports masking, else None."""
        return mask if self.supports_masking else None

    def get_config(self) -> dict:
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": mixed_precision.serialize(self._dtype_policy)}   # a dtype name, or a mixed policy's dict
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = self._batch_input_shape
        return config

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)


def unique(items: list) -> list:
    """Each object once, in order (by identity: `in` on tensors would compare values)."""
    seen: set = set()
    return [item for item in items if not (id(item) in seen or seen.add(id(item)))]


def _to_tensors(inputs: Any) -> Any:
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_to_tensors(item) for item in inputs)
    if isinstance(inputs, dict):
        return {key: _to_tensors(value) for key, value in inputs.items()}
    if inputs is None or is_variable(inputs) or isinstance(inputs, SparseTensor):   # feature columns read sparse ids
        return inputs
    if getattr(getattr(inputs, "dtype", None), "kind", "") == "f":   # NumPy floats: the layer's float32
        return backend.convert_to_tensor(inputs, dtype=dtypes.float32)
    return backend.convert_to_tensor(inputs, dtype_hint=dtypes.float32)


def _shapes_of(inputs: Any) -> Any:
    if isinstance(inputs, (list, tuple)):
        return [_shapes_of(item) for item in inputs]
    if isinstance(inputs, dict):   # a dict of features (DenseFeatures): a dict of shapes, as tf_keras
        return {key: _shapes_of(value) for key, value in inputs.items()}
    return TensorShape(inputs.shape)
