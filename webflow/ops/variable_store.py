"""The variable store behind `tf.get_variable`: full name -> variable, with TensorFlow's reuse checks.

`get_or_create_variable` is TensorFlow's "true getter": it returns the stored variable when `reuse`
allows (checking shape and dtype), otherwise builds a new one from its initializer (glorot uniform by
default for floats, zeros for integers) and runs the regularizer. Scopes and their defaults live in
ops/variable_scope.py, which calls this.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import traceback
from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.tensor_shape import as_shape
from webflow.ops import init_ops
from webflow.ops.resource_variable_ops import ResourceVariable
from webflow.ops.state_ops import RefVariable

_WEBFLOW_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class VariableStore:
    """The variables `get_variable` made in one graph, by full name, and where the user created each."""

    def __init__(self) -> None:
        self.variables: dict[str, Any] = {}
        self.origins: dict[str, list] = {}  # name -> the user's stack frames that created it (for errors)


def get_or_create_variable(store: VariableStore, name: str, shape: Any = None, dtype: Any = dtypes.float32,
                           initializer: Any = None, regularizer: Any = None, reuse: Any = None,
                           trainable: Any = None, collections: Any = None, caching_device: Any = None,
                           partitioner: Any = None, validate_shape: bool = True, use_resource: Any = None,
                           constraint: Any = None, **unused: Any) -> Any:
    """Returns the stored variable `name` if reuse allows, else creates it (TF's _get_single_variable)."""
    is_scalar = isinstance(shape, (list, tuple)) and not shape
    if partitioner is not None and not is_scalar:
        raise NotImplementedError(f"get_variable({name!r}): partitioned variables are not supported by webflow.")
    initializing_from_value = initializer is not None and not callable(initializer)
    if shape is not None and initializing_from_value:
        raise ValueError("If initializer is a constant, do not specify shape.")
    dtype = dtypes.as_dtype(dtype).base_dtype
    shape = as_shape(shape) if shape is not None else None
    if name in store.variables:
        return _existing_variable(store, name, shape, dtype, reuse)
    if reuse is True:
        raise ValueError(f"Variable {name} does not exist, or was not created with tf.get_variable(). "
                         "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?")
    initial_value, variable_dtype = _initial_value(name, shape, dtype, initializer, initializing_from_value)
    variable_class = ResourceVariable if context.executing_eagerly() else RefVariable
    variable = variable_class(initial_value=initial_value, name=name, trainable=trainable, collections=collections,
                              caching_device=caching_device, dtype=variable_dtype, validate_shape=validate_shape,
                              constraint=constraint, shape=shape)
    if not context.executing_eagerly():  # eager variables are not kept, so their memory can be freed
        store.variables[name] = variable
        store.origins[name] = _user_frames()
    if regularizer:
        _add_regularization_loss(name, variable, regularizer)
    return variable


def _existing_variable(store: VariableStore, name: str, shape: Any, dtype: Any, reuse: Any) -> Any:
    found = store.variables[name]
    if reuse is False:
        raise ValueError(f"Variable {name} already exists, disallowed. Did you mean to set reuse=True or "
                         f"reuse=tf.AUTO_REUSE in VarScope? Originally defined at:\n\n"
                         + "".join(f'  File "{file}", line {line}, in {function}\n'
                                   for file, line, function in store.origins.get(name, [])))
    if shape is not None and not shape.is_compatible_with(found.shape):
        raise ValueError(f"Trying to share variable {name}, but specified shape {shape} and found shape {found.shape}.")
    if not dtype.is_compatible_with(found.dtype):
        raise ValueError(f"Trying to share variable {name}, but specified dtype {dtype.name} and found dtype "
                         f"{found.dtype.name}.")
    return found


def _user_frames() -> list:
    """The five innermost stack frames outside webflow, innermost first (TF shows these on a name clash)."""
    frames = [frame for frame in reversed(traceback.extract_stack())
              if not os.path.abspath(frame.filename).startswith(_WEBFLOW_DIR)]
    return [(frame.filename, frame.lineno, frame.name) for frame in frames[:5]]


def _initial_value(name: str, shape: Any, dtype: Any, initializer: Any, from_value: bool) -> tuple:
    """(initial value or a no-argument callable making it, dtype to convert it to)."""
    if initializer is None:
        if shape is None:
            raise ValueError(f"Variable {name} did not get an initializer, so its `shape` argument must be specified.")
        initializer = _default_initializer(name, dtype)
    if from_value:
        return initializer, None
    if inspect.isclass(initializer):
        initializer = initializer()
    if shape is not None and shape.is_fully_defined():
        dims = shape.as_list()
        if _accepts_partition_info(initializer):
            return (lambda: initializer(dims, dtype=dtype, partition_info=None)), dtype
        return (lambda: initializer(dims, dtype=dtype)), dtype
    if _needs_no_arguments(initializer):
        return initializer, None
    raise ValueError("The initializer passed is not valid. It should be a callable with no arguments and the shape "
                     "should not be provided or an instance of `tf.keras.initializers.*' and `shape` should be "
                     "fully defined.")


def _default_initializer(name: str, dtype: Any) -> Any:
    """Glorot uniform for floating variables; zeros (or False, or "") for integers, bools and strings."""
    if dtype.is_floating:
        return init_ops.glorot_uniform_initializer()
    if dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes.string:
        return init_ops.zeros_initializer()
    raise ValueError(f"An initializer for variable {name} of {dtype} is required")


def _parameters(function: Any) -> dict:
    try:
        return dict(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return {}


def _accepts_partition_info(initializer: Any) -> bool:
    return "partition_info" in _parameters(initializer)


def _needs_no_arguments(function: Any) -> bool:
    required = [p for p in _parameters(function).values()
                if p.default is inspect.Parameter.empty
                and p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return not required


def _add_regularization_loss(name: str, variable: Any, regularizer: Any) -> None:
    """loss = regularizer(variable), built in scope "<name>/Regularizer/", joins REGULARIZATION_LOSSES."""
    graph = context.get_default_graph()
    eager = context.executing_eagerly()
    with contextlib.nullcontext() if eager else graph.name_scope(name + "/Regularizer/"):
        loss = regularizer(variable)
    if loss is not None:
        graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)


