"""`keras.activations`: functions by name (`"relu"`, `"softmax"` ...); `get(None)` is the identity (`linear`)."""

from __future__ import annotations

from typing import Any

from webflow.ops import nn_activation_ops, nn_ops, unary_math_ops
from webflow.ops.math_ops import multiply


def linear(x: Any) -> Any:
    return x


def relu(x: Any) -> Any:
    return nn_ops.relu(x)


def softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.softmax(x, axis=axis)


def sigmoid(x: Any) -> Any:
    return unary_math_ops.sigmoid(x)


def tanh(x: Any) -> Any:
    return unary_math_ops.tanh(x)


def elu(x: Any) -> Any:
    return nn_activation_ops.elu(x)


def selu(x: Any) -> Any:
    return nn_activation_ops.selu(x)


def softplus(x: Any) -> Any:
    return nn_activation_ops.softplus(x)


def relu6(x: Any) -> Any:
    return nn_activation_ops.relu6(x)


def swish(x: Any) -> Any:
    return multiply(x, unary_math_ops.sigmoid(x))


def log_softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.log_softmax(x, axis=axis)


_BY_NAME = {f.__name__: f for f in (linear, relu, softmax, sigmoid, tanh, elu, selu, softplus, relu6, swish,
                                     log_softmax)}
_BY_NAME["silu"] = swish


def get(identifier: Any) -> Any:
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation: Any) -> str:
    return getattr(activation, "__name__", str(activation))
