"""`tf.layers.Layer`: the TF1 layer base class, a Keras-style layer living in TF1's variable scopes.

What a TF1 program sees, and where each piece happens here:
- Name: `Dense()` is named "dense_1", the next "dense_2" (a per-graph counter, `unique_layer_name`).
- Scope: on first use the layer opens `variable_scope(None, default_name=<name>)`, so its variables are
  "dense/kernel", "dense_1/kernel", "outer/dense/kernel" inside `variable_scope("outer")`. An explicit
  `name=` (functions pass it as the scope too) is used as is; `reuse=True` / `AUTO_REUSE` share by name.
- Ops: every call builds under the name scope the variable scope opened ("dense/MatMul"); a second call
  of the same layer object reuses its variables and re-enters that name scope ("dense/MatMul_1").
- Variables come from `tf.get_variable` (`add_weight`), so scope initializers, custom getters and the
  TRAINABLE_VARIABLES / REGULARIZATION_LOSSES collections work as for hand-written TF1 code.
- Updates (batch norm's moving averages) are added to tf.GraphKeys.UPDATE_OPS after each call.
The dtype of a layer is inferred from its first input unless given.
"""

from __future__ import annotations

import re
import weakref
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor_shape import TensorShape
from webflow.layers.utils import get_initializer
from webflow.ops import array_ops, init_ops, math_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.variable_scope import get_variable, variable_scope
from webflow.ops.variables import global_variables, trainable_variables

# graph -> {snake-case class name: how many layers of that class were named in it} (Keras' object uids)
_LAYER_NAME_UIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def to_snake_case(name: str) -> str:
    """"MaxPooling2D" -> "max_pooling2d", "BatchNormalization" -> "batch_normalization" (Keras' rule)."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return snake if snake[0] != "_" else "private" + snake


def unique_layer_name(base_name: str) -> str:
    """`base_name_1`, `base_name_2` ... per default graph: Keras numbers layer names from 1.

    (The *scope* of an unnamed layer is still "dense", "dense_1" ...: variable scopes count from 0.)
    """
    counts = _LAYER_NAME_UIDS.setdefault(context.get_default_graph(), {})
    counts[base_name] = counts.get(base_name, 0) + 1
    return f"{base_name}_{counts[base_name]}"


# --- InputSpec ------------------------------------------------------------------------------------------
class InputSpec:
    """What a layer accepts: rank (`ndim`, `min_ndim`, `max_ndim`) and fixed sizes of some axes."""

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: int | None = None, max_ndim: int | None = None,
                 min_ndim: int | None = None, axes: dict | None = None):
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = axes or {}

    def __repr__(self) -> str:
        fields = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
                                           ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim),
                                           ("axes", self.axes or None)) if v is not None]
        return f"InputSpec({', '.join(fields)})"


def assert_input_compatibility(spec: InputSpec | None, x: Any, layer_name: str) -> None:
    """Raises Keras' ValueError when `x`'s rank or a fixed axis does not match the layer's InputSpec."""
    if spec is None:
        return
    if not hasattr(x, "shape"):
        raise TypeError(f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input for layer "
                        f"'{layer_name}'.")
    shape = TensorShape(x.shape)
    ndim = shape.rank
    where = f'Input 0 of layer "{layer_name}" is incompatible with the layer: '
    if ndim is None:
        return
    if spec.ndim is not None and ndim != spec.ndim:
        raise ValueError(where + f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {tuple(shape)}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        raise ValueError(where + f"expected max_ndim={spec.max_ndim}, found ndim={ndim}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        raise ValueError(where + f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                                 f"Full shape received: {tuple(shape)}")
    sizes = shape.as_list()
    for axis, value in spec.axes.items():
        if value is not None and sizes[int(axis)] not in (value, None):
            raise ValueError(where + f"expected axis {axis} of input shape to have value {value}, but received "
                                     f"input with shape {tuple(sizes)}")


# --- Layer ----------------------------------------------------------------------------------------------
_ALLOWED_KWARGS = {"_scope", "_reuse", "activity_regularizer", "input_shape", "batch_input_shape", "autocast"}


class Layer:
    """Base class of tf.layers: `__call__` opens the layer's scopes, builds it once, then runs `call`.

    Subclasses write `build(input_shape)` (create variables with `add_weight`) and `call(inputs, ...)`.
    """

    def __init__(self, trainable: bool = True, name: Any = None, dtype: Any = None, **kwargs: Any):
        for key in kwargs:
            if key not in _ALLOWED_KWARGS:
                raise TypeError(f"Keyword argument not understood: {key}")
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        self.trainable = trainable
        self.built = False
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self.input_spec: InputSpec | None = None
        self._always_reuse_variable_scope: Any = None
        self._init_set_name(name)
        if scope:  # functions pass name= as the scope too: it is opened now, as TensorFlow does
            with variable_scope(scope) as captured:
                self._scope = captured
        else:
            self._scope = None
        self._current_scope: Any = None

    def _init_set_name(self, name: Any) -> None:
        base_name = to_snake_case(type(self).__name__)
        if hasattr(name, "original_name_scope"):  # a VariableScope: its name is the base of the layer's scope
            self._name, self._base_name = unique_layer_name(base_name), name.name
        elif name:
            self._name, self._base_name = name, name
        else:
            self._name = unique_layer_name(base_name)
            self._base_name = base_name

    # --- properties -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype.name if self._dtype is not None else None

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer "{self._name}" has not been used '
                             "yet. The scope name  is determined the first time the layer instance is called. You "
                             "must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def updates(self) -> list:
        """The update ops of the calls so far (none for a non-trainable layer, as in Keras)."""
        return list(self._updates) if self.trainable else []

    @property
    def losses(self) -> list:
        """Regularization losses of the weights and activity losses of the calls so far."""
        return list(self._losses)

    # --- what subclasses override ---------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> TensorShape:
        raise NotImplementedError(f"Please run in eager mode or implement the compute_output_shape method on your "
                                  f"layer ({type(self).__name__}).")

    # --- scopes -------------------------------------------------------------------------------------
    def _set_scope(self, scope: Any = None) -> None:
        """Captures the layer's variable scope on first use: unique "dense", "dense_1" ... unless reusing."""
        if self._scope is not None:
            return
        if self._reuse:
            with variable_scope(scope if scope is not None else self._base_name) as captured:
                self._scope = captured
        else:
            with variable_scope(scope, default_name=self._base_name) as captured:
                self._scope = captured

    def _name_scope(self) -> str:
        return self._current_scope.original_name_scope

    # --- weights, updates, losses -------------------------------------------------------------------
    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None, regularizer: Any = None,
                   trainable: bool | None = None, constraint: Any = None, use_resource: Any = None,
                   synchronization: Any = None, aggregation: Any = None, partitioner: Any = None,
                   **kwargs: Any) -> Any:
        """`tf.get_variable(name, ...)` in the layer's variable scope; regularizer losses of new variables
        go to REGULARIZATION_LOSSES. `synchronization="ON_READ"` marks statistics (never trainable)."""
        for key in kwargs:
            if key != "experimental_autocast":
                raise TypeError("Unknown keyword argument:", key)
        if synchronization == "ON_READ":
            if trainable:
                raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ only for "
                                 "non-trainable variables. You have specified trainable=True and "
                                 "synchronization=VariableSynchronization.ON_READ.")
            trainable = False
        elif trainable is None:
            trainable = True
        eager = context.executing_eagerly()
        existing = set(id(v) for v in global_variables()) if not eager else set()
        dtype = dtypes.as_dtype(dtype or self._dtype or dtypes.float32).base_dtype
        self._set_scope(None)
        reuse = self.built or self._reuse
        with variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with name_scope_v1(self._name_scope()):
                initializer = get_initializer(initializer) or scope.initializer
                if initializer is None:
                    initializer = self._default_initializer(name, dtype)
                variable = get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                                        trainable=trainable and self.trainable, constraint=constraint,
                                        partitioner=partitioner, use_resource=use_resource)
                if regularizer and (eager or id(variable) not in existing):
                    with name_scope_v1(name + "/Regularizer"):
                        loss = regularizer(variable)
                    if loss is not None:
                        self._add_losses([loss])
        in_trainable = eager or any(v is variable for v in trainable_variables())
        if trainable and self.trainable and in_trainable:
            self._trainable_weights.append(variable)
        else:
            self._non_trainable_weights.append(variable)
        return variable

    def _default_initializer(self, name: str, dtype: Any) -> Any:
        if dtype.is_floating:
            return init_ops.glorot_uniform_initializer()
        if dtype.is_integer or dtype.is_unsigned or dtype.is_bool:
            return init_ops.zeros_initializer()
        raise ValueError(f"An initializer for variable {name} of type {dtype} is required for layer {self.name}")

    def add_update(self, updates: Any) -> None:
        """Records update ops (or callables making them, called now); `__call__` puts them in UPDATE_OPS."""
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            if callable(update):
                update = update()
            self._updates.append(getattr(update, "op", update))

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        self._add_losses(losses if isinstance(losses, (list, tuple)) else [losses])

    def _add_losses(self, losses: list) -> None:
        for loss in losses:
            loss = loss() if callable(loss) else loss
            if loss is None:
                continue
            self._losses.append(loss)
            if not context.executing_eagerly():
                _add_to_collection(GraphKeys.REGULARIZATION_LOSSES, [loss])

    # --- calling --------------------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        if self.built:
            manager = self._always_reuse_variable_scope
            if manager is None:  # from now on always reuse: one scope object, re-entered on every call
                manager = variable_scope(self._scope, reuse=True, auxiliary_name_scope=False)
                if not context.executing_eagerly():
                    self._always_reuse_variable_scope = manager
        else:
            manager = variable_scope(self._scope, reuse=self._reuse, auxiliary_name_scope=False)
        with manager as current:
            self._current_scope = current
            outputs = self._build_and_call(inputs, *args, **kwargs)
        if not context.executing_eagerly():
            _add_to_collection(GraphKeys.UPDATE_OPS, self.updates)
        return outputs

    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self(inputs, *args, **kwargs)

    def _build_and_call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(inputs, (np.ndarray, float, int)):
            inputs = convert_to_tensor(inputs)
        assert_input_compatibility(self.input_spec, inputs, self.name)
        with name_scope_v1(self._name_scope()):
            if not self.built:
                if self._dtype is None and hasattr(inputs, "dtype"):
                    self._dtype = inputs.dtype.base_dtype
                self.build(TensorShape(inputs.shape))
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if outputs is None:
                raise ValueError(f"A layer's `call` method should return a Tensor or a list of Tensors, not None "
                                 f"(layer: {self.name}).")
            self._handle_activity_regularization(outputs)
        return outputs

    def _handle_activity_regularization(self, outputs: Any) -> None:
        """loss = activity_regularizer(outputs) / batch size, built under "<layer>/ActivityRegularizer/"."""
        if not self._activity_regularizer:
            return
        with name_scope_v1("ActivityRegularizer"):
            loss = convert_to_tensor(self._activity_regularizer(outputs))
            batch = array_ops.shape(outputs)[0]
            self._add_losses([math_ops.truediv(loss, math_ops.cast(batch, loss.dtype))])


def _add_to_collection(key: str, elements: list) -> None:
    """Appends each element not already in collection `key` (compared by identity)."""
    collection = context.get_default_graph().get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))
