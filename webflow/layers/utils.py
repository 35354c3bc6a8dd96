"""Small pieces the layer files share, as TF1's tensorflow/python/layers/utils.py (and Keras' conv_utils) has
them: argument normalizers (`normalize_tuple`, `normalize_padding`, `normalize_data_format`, `tf_data_format`),
Keras names for activations and initializers (`get_activation`, `get_initializer`), and `smart_cond`, which
picks a branch now when the predicate is known while building and builds a `tf.cond` otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework.tensor import TensorBase
from webflow.ops import control_flow_ops, init_ops, nn_ops, unary_math_ops
from webflow.ops.convert import constant_value


def normalize_tuple(value: Any, n: int, name: str) -> tuple:
    """An int or n ints -> a tuple of n positive ints (Keras' conv_utils.normalize_tuple)."""
    message = f"The `{name}` argument must be a tuple of {n} integers. Received: {value}"
    if isinstance(value, int):
        values = (value,) * n
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise ValueError(message) from None
        if len(values) != n:
            raise ValueError(message)
        for item in values:
            try:
                int(item)
            except (ValueError, TypeError):
                raise ValueError(message + f"including element {item} of type {type(item)}") from None
    bad = {v for v in values if v <= 0}
    if bad:
        raise ValueError(message + f" including {bad} that does not satisfy the requirement `> 0`.")
    return values


def normalize_padding(value: Any) -> str:
    padding = value.lower()
    if padding not in {"valid", "same"}:
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", "same" (or "causal", only '
                         f"for `Conv1D). Received: {padding}")
    return padding


def normalize_data_format(value: Any) -> str:
    data_format = (value or "channels_last").lower()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f'The `data_format` argument must be one of "channels_first", "channels_last". '
                         f"Received: {value}")
    return data_format


def tf_data_format(data_format: str) -> str:
    """"channels_last" -> "NHWC", "channels_first" -> "NCHW" (4-D inputs)."""
    return "NHWC" if data_format == "channels_last" else "NCHW"


_ACTIVATIONS = {
    "relu": nn_ops.relu, "sigmoid": unary_math_ops.sigmoid, "tanh": unary_math_ops.tanh,
    "softmax": nn_ops.softmax, "linear": None,
}


def get_activation(activation: Any) -> Callable | None:
    """None, a function (tf.nn.relu), or a Keras name ("relu", "linear", ...)."""
    if activation is None or callable(activation):
        return activation
    if isinstance(activation, str) and activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError(f"Unknown activation function: '{activation}'. Please ensure you are using a "
                     "`keras.utils.custom_object_scope` and that this object is included in the scope.")


_INITIALIZERS = {
    "zeros": init_ops.zeros_initializer, "ones": init_ops.ones_initializer,
    "glorot_uniform": init_ops.glorot_uniform_initializer, "glorot_normal": init_ops.glorot_normal_initializer,
}


def get_initializer(initializer: Any) -> Any:
    """None, an initializer object, or a Keras name ("zeros", "glorot_uniform", ...)."""
    if isinstance(initializer, str):
        if initializer not in _INITIALIZERS:
            raise ValueError(f"Unknown initializer: '{initializer}'.")
        return _INITIALIZERS[initializer]()
    return initializer


def constant_pred(pred: Any) -> bool | None:
    """A Python bool (or 0/1), a constant bool tensor's value, or None when only known at run time."""
    if isinstance(pred, TensorBase):
        value = constant_value(pred)
        return None if value is None else bool(value)
    if isinstance(pred, (bool, np.bool_)) or pred in (0, 1):
        return bool(pred)
    if hasattr(pred, "initial_value"):  # a variable
        return None
    raise TypeError(f"`pred` must be a Tensor, or a Python bool, or 1 or 0. Found instead: {type(pred)}")


def smart_cond(pred: Any, true_fn: Callable, false_fn: Callable) -> Any:
    """`true_fn()` or `false_fn()` now if `pred` is known while building, else a `tf.cond` (TF's smart_cond)."""
    value = constant_pred(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    return control_flow_ops.cond(pred, true_fn, false_fn)
