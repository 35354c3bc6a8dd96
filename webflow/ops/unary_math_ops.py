"""Elementwise unary math: Abs, Sign, Square, Sqrt, Rsqrt, Exp, Log, Log1p, Sin, Cos, Tanh, Sigmoid,
Reciprocal, Round, Floor, Ceil, IsNan, IsFinite, IsInf.

One stanza per op: NumPy kernel (docstring = the math), gradient rule (docstring = the derivative,
written with webflow ops so it is itself differentiable) and the wrapper with TensorFlow's name.
Every op keeps its input's shape, so they share the `same_as_input` shape rule.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import activations as c_activations
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.portable import array_kernels, math_kernels
from webflow.framework import dtypes
from webflow.framework.tensor import OPERATORS
from webflow.ops import array_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.math_ops import add, multiply, negative, real_div, subtract
from webflow.ops.registry import NotDifferentiable, apply_op, register_gradient, register_op
from webflow.ops.shapes import same_as_input, same_shape_as_input_with_dtype

# TensorFlow's allowed-type lists (without bfloat16/complex, which webflow does not have).
FLOATS = dtypes.FLOATING
SIGNED = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
NUMBERS = dtypes.NUMERIC


def _one_like(x: Any) -> Any:
    """A scalar 1 of x's dtype (an op's first input fixes the dtype, so `1 - y` needs a typed 1)."""
    return convert_to_tensor(1, dtype=x.dtype.base_dtype)


# --- Abs --------------------------------------------------------------------------------------------
@register_op("Abs", "Abs", inputs=("x",), shape=same_as_input, allowed=SIGNED, c=c_elementwise.absolute)
def abs_kernel(x: Any) -> Any:
    """y = |x|."""
    return np.abs(x)


@register_gradient("Abs")
def _abs_grad(op: Any, grad: Any) -> Any:
    """dy/dx = sign(x)."""
    return multiply(grad, sign(op.inputs[0]))


def abs(x: Any, name: str | None = None) -> Any:  # noqa: A001 - TensorFlow's name
    return apply_op("Abs", [x], name=name)


# --- Sign -------------------------------------------------------------------------------------------
@register_op("Sign", "Sign", inputs=("x",), shape=same_as_input, allowed=SIGNED, c=c_activations.sign)
def sign_kernel(x: Any) -> Any:
    """y = -1, 0 or 1 as x is negative, zero or positive."""
    return np.sign(x)


@register_gradient("Sign")
def _sign_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 0 (almost everywhere)."""
    return array_ops.zeros_like(op.inputs[0])


def sign(x: Any, name: str | None = None) -> Any:
    return apply_op("Sign", [x], name=name)


# --- Square -----------------------------------------------------------------------------------------
@register_op("Square", "Square", inputs=("x",), shape=same_as_input, allowed=NUMBERS, c=c_elementwise.square)
def square_kernel(x: Any) -> Any:
    """y = x * x."""
    return np.multiply(x, x)


@register_gradient("Square")
def _square_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 2 x."""
    return multiply(grad, multiply(op.inputs[0], 2))


def square(x: Any, name: str | None = None) -> Any:
    return apply_op("Square", [x], name=name)


# --- Sqrt -------------------------------------------------------------------------------------------
@register_op("Sqrt", "Sqrt", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.sqrt)
def sqrt_kernel(x: Any) -> Any:
    """y = x^(1/2) (NaN for x < 0)."""
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


@register_gradient("Sqrt")
def _sqrt_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 0.5 / y."""
    return real_div(multiply(grad, 0.5), op.outputs[0])


def sqrt(x: Any, name: str | None = None) -> Any:
    return apply_op("Sqrt", [x], name=name)


# --- Rsqrt ------------------------------------------------------------------------------------------
@register_op("Rsqrt", "Rsqrt", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.rsqrt)
def rsqrt_kernel(x: Any) -> Any:
    """y = 1 / sqrt(x)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.reciprocal(np.sqrt(x))


@register_gradient("Rsqrt")
def _rsqrt_grad(op: Any, grad: Any) -> Any:
    """dy/dx = -0.5 y^3."""
    y = op.outputs[0]
    return multiply(grad, multiply(multiply(y, y), multiply(y, -0.5)))


def rsqrt(x: Any, name: str | None = None) -> Any:
    return apply_op("Rsqrt", [x], name=name)


# --- Exp --------------------------------------------------------------------------------------------
@register_op("Exp", "Exp", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.exp)
def exp_kernel(x: Any) -> Any:
    """y = e^x."""
    with np.errstate(over="ignore"):
        return np.exp(x)


@register_gradient("Exp")
def _exp_grad(op: Any, grad: Any) -> Any:
    """dy/dx = e^x = y."""
    return multiply(grad, op.outputs[0])


def exp(x: Any, name: str | None = None) -> Any:
    return apply_op("Exp", [x], name=name)


# --- Log --------------------------------------------------------------------------------------------
@register_op("Log", "Log", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.log)
def log_kernel(x: Any) -> Any:
    """y = ln x (-inf at 0, NaN below)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


@register_gradient("Log")
def _log_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 / x."""
    return multiply(grad, reciprocal(op.inputs[0]))


def log(x: Any, name: str | None = None) -> Any:
    return apply_op("Log", [x], name=name)


# --- Log1p ------------------------------------------------------------------------------------------
@register_op("Log1p", "Log1p", inputs=("x",), shape=same_as_input, allowed=FLOATS, portable=array_kernels.log1p)
def log1p_kernel(x: Any) -> Any:
    """y = ln(1 + x), accurate for small x."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log1p(x)


@register_gradient("Log1p")
def _log1p_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 / (1 + x)."""
    return multiply(grad, reciprocal(add(op.inputs[0], 1)))


def log1p(x: Any, name: str | None = None) -> Any:
    return apply_op("Log1p", [x], name=name)


# --- Sin, Cos ---------------------------------------------------------------------------------------
@register_op("Sin", "Sin", inputs=("x",), shape=same_as_input, allowed=FLOATS, portable=math_kernels.sin)
def sin_kernel(x: Any) -> Any:
    """y = sin x."""
    return np.sin(x)


@register_gradient("Sin")
def _sin_grad(op: Any, grad: Any) -> Any:
    """dy/dx = cos x."""
    return multiply(grad, cos(op.inputs[0]))


def sin(x: Any, name: str | None = None) -> Any:
    return apply_op("Sin", [x], name=name)


@register_op("Cos", "Cos", inputs=("x",), shape=same_as_input, allowed=FLOATS, portable=math_kernels.cos)
def cos_kernel(x: Any) -> Any:
    """y = cos x."""
    return np.cos(x)


@register_gradient("Cos")
def _cos_grad(op: Any, grad: Any) -> Any:
    """dy/dx = -sin x."""
    return multiply(grad, negative(sin(op.inputs[0])))


def cos(x: Any, name: str | None = None) -> Any:
    return apply_op("Cos", [x], name=name)


# --- Tanh -------------------------------------------------------------------------------------------
@register_op("Tanh", "Tanh", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.tanh)
def tanh_kernel(x: Any) -> Any:
    """y = tanh x."""
    return np.tanh(x)


@register_gradient("Tanh")
def _tanh_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 - y^2."""
    y = op.outputs[0]
    return multiply(grad, subtract(_one_like(y), multiply(y, y)))


def tanh(x: Any, name: str | None = None) -> Any:
    return apply_op("Tanh", [x], name=name)


# --- Sigmoid ----------------------------------------------------------------------------------------
@register_op("Sigmoid", "Sigmoid", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.sigmoid)
def sigmoid_kernel(x: Any) -> Any:
    """y = 1 / (1 + e^-x)."""
    with np.errstate(over="ignore"):  # e^-x overflows to inf for very negative x, giving y = 0 as it should
        return np.reciprocal(np.add(np.exp(np.negative(x)), x.dtype.type(1)))


@register_gradient("Sigmoid")
def _sigmoid_grad(op: Any, grad: Any) -> Any:
    """dy/dx = y (1 - y)."""
    y = op.outputs[0]
    return multiply(grad, multiply(y, subtract(_one_like(y), y)))


def sigmoid(x: Any, name: str | None = None) -> Any:
    return apply_op("Sigmoid", [x], name=name)


# --- Reciprocal -------------------------------------------------------------------------------------
@register_op("Reciprocal", "Reciprocal", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.reciprocal)
def reciprocal_kernel(x: Any) -> Any:
    """y = 1 / x."""
    with np.errstate(divide="ignore"):
        return np.reciprocal(x)


@register_gradient("Reciprocal")
def _reciprocal_grad(op: Any, grad: Any) -> Any:
    """dy/dx = -1 / x^2 = -y^2."""
    y = op.outputs[0]
    return multiply(grad, negative(multiply(y, y)))


def reciprocal(x: Any, name: str | None = None) -> Any:
    return apply_op("Reciprocal", [x], name=name)


# --- Round, Floor, Ceil: piecewise constant, so TensorFlow gives them no gradient ----------------------
@register_op("Round", "Round", inputs=("x",), shape=same_as_input, allowed=SIGNED, c=c_activations.round_)
def round_kernel(x: Any) -> Any:
    """y = x rounded to the nearest integer, halves to even (banker's rounding)."""
    return np.round(x)


@register_op("Floor", "Floor", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_activations.floor)
def floor_kernel(x: Any) -> Any:
    """y = largest integer <= x."""
    return np.floor(x)


@register_op("Ceil", "Ceil", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_activations.ceil)
def ceil_kernel(x: Any) -> Any:
    """y = smallest integer >= x."""
    return np.ceil(x)


def round(x: Any, name: str | None = None) -> Any:  # noqa: A001 - TensorFlow's name
    return apply_op("Round", [x], name=name)


def floor(x: Any, name: str | None = None) -> Any:
    return apply_op("Floor", [x], name=name)


def ceil(x: Any, name: str | None = None) -> Any:
    return apply_op("Ceil", [x], name=name)


# --- IsNan, IsFinite, IsInf: float in, bool out, no gradient ----------------------------------------
_BOOL_OUT = same_shape_as_input_with_dtype(dtypes.bool)


@register_op("IsNan", "IsNan", inputs=("x",), shape=_BOOL_OUT, allowed=FLOATS, c=c_activations.is_nan)
def is_nan_kernel(x: Any) -> Any:
    """y = (x is NaN)."""
    return np.isnan(x)


@register_op("IsFinite", "IsFinite", inputs=("x",), shape=_BOOL_OUT, allowed=FLOATS, c=c_activations.is_finite)
def is_finite_kernel(x: Any) -> Any:
    """y = (x is neither infinite nor NaN)."""
    return np.isfinite(x)


@register_op("IsInf", "IsInf", inputs=("x",), shape=_BOOL_OUT, allowed=FLOATS, c=c_activations.is_inf)
def is_inf_kernel(x: Any) -> Any:
    """y = (x is +inf or -inf)."""
    return np.isinf(x)


def is_nan(x: Any, name: str | None = None) -> Any:
    return apply_op("IsNan", [x], name=name)


def is_finite(x: Any, name: str | None = None) -> Any:
    return apply_op("IsFinite", [x], name=name)


def is_inf(x: Any, name: str | None = None) -> Any:
    return apply_op("IsInf", [x], name=name)


# `abs(t)` on a tensor is tf.abs (node "Abs", no extra name scope, as in TensorFlow).
OPERATORS.update({"abs": lambda x: abs(x)})


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("Ceil", "Floor", "IsFinite", "IsInf", "IsNan", "Round"):
    NotDifferentiable(_op_type)
