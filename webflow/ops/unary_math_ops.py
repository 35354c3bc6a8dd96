"""Elementwise unary math: Abs, Sign, Square, Sqrt, Rsqrt, Exp, Log, Log1p, Sin, Cos, Tanh, Sigmoid (and their
gradients from the output, TanhGrad and SigmoidGrad, as TensorFlow builds them), Reciprocal, Round, Floor, Ceil,
IsNan, IsFinite, IsInf.

One stanza per op: NumPy kernel (docstring = the math), gradient rule (docstring = the derivative,
written with webflow ops so it is itself differentiable) and the wrapper with TensorFlow's name.
Every op keeps its input's shape, so they share the `same_as_input` shape rule.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import activation_grads as c_activation_grads
from webflow.backends.c import activations as c_activations
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.c.activations import same_shapes
from webflow.backends.portable import activation_grad_kernels, array_kernels, math_kernels
from webflow.framework import dtypes
from webflow.framework.scopes import control_dependencies
from webflow.framework.tensor import OPERATORS
from webflow.ops import array_ops
from webflow.ops.constants import constant
from webflow.ops.math_ops import multiply, negative, real_div
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import merged_shape, same_as_input, same_shape_as_input_with_dtype

# TensorFlow's allowed-type lists (without bfloat16/complex, which webflow does not have).
FLOATS = dtypes.FLOATING
SIGNED = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
NUMBERS = dtypes.NUMERIC


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
    """dy/dx = 2 x (the Const 2 waits for grad, as in TensorFlow, so 2 x is not computed too early)."""
    x = op.inputs[0]
    with control_dependencies([grad]):
        two = constant(2, dtype=x.dtype.base_dtype)
        return multiply(grad, multiply(x, two))


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
    """dy/dx = e^x = y (TensorFlow's graph: `grad * y`, node "mul", built once grad exists)."""
    with control_dependencies([grad]):
        return grad * op.outputs[0]


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
    """dy/dx = 1 / x (`grad * reciprocal(x)`, built once grad exists, as TensorFlow)."""
    with control_dependencies([grad]):
        return grad * reciprocal(op.inputs[0])


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
    """dy/dx = 1 / (1 + x) (`grad * reciprocal(1 + x)`, built once grad exists, as TensorFlow)."""
    with control_dependencies([grad]):
        return grad * reciprocal(1 + op.inputs[0])


def log1p(x: Any, name: str | None = None) -> Any:
    return apply_op("Log1p", [x], name=name)


# --- Sin, Cos ---------------------------------------------------------------------------------------
@register_op("Sin", "Sin", inputs=("x",), shape=same_as_input, allowed=FLOATS, portable=math_kernels.sin)
def sin_kernel(x: Any) -> Any:
    """y = sin x."""
    return np.sin(x)


@register_gradient("Sin")
def _sin_grad(op: Any, grad: Any) -> Any:
    """dy/dx = cos x (`grad * cos(x)`, built once grad exists, as TensorFlow)."""
    with control_dependencies([grad]):
        return grad * cos(op.inputs[0])


def sin(x: Any, name: str | None = None) -> Any:
    return apply_op("Sin", [x], name=name)


@register_op("Cos", "Cos", inputs=("x",), shape=same_as_input, allowed=FLOATS, portable=math_kernels.cos)
def cos_kernel(x: Any) -> Any:
    """y = cos x."""
    return np.cos(x)


@register_gradient("Cos")
def _cos_grad(op: Any, grad: Any) -> Any:
    """dy/dx = -sin x (`-grad * sin(x)`, built once grad exists, as TensorFlow)."""
    with control_dependencies([grad]):
        return -grad * sin(op.inputs[0])


def cos(x: Any, name: str | None = None) -> Any:
    return apply_op("Cos", [x], name=name)


# --- Tanh, and TanhGrad: its gradient from the output, as TensorFlow's graph has it --------------------
@register_op("Tanh", "Tanh", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.tanh)
def tanh_kernel(x: Any) -> Any:
    """y = tanh x."""
    return np.tanh(x)


@register_gradient("Tanh")
def _tanh_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1 - y^2: the TanhGrad op fed the output (TensorFlow's math_grad.py, control dependency included)."""
    with control_dependencies([grad]):
        return tanh_grad(op.outputs[0], grad)


def tanh(x: Any, name: str | None = None) -> Any:
    return apply_op("Tanh", [x], name=name)


def _grad_of_output_shape(inputs: list, attrs: dict) -> tuple:
    """TanhGrad / SigmoidGrad: y and dy have one shape, the result's (TF's MergeBothInputsShapeFn)."""
    return output_spec(merged_shape(inputs), inputs[0].dtype.base_dtype)


@register_op("TanhGrad", "TanhGrad", inputs=("y", "dy"), shape=_grad_of_output_shape, same_dtype=(0, 1),
             allowed=FLOATS, c=c_activation_grads.tanh_grad, portable=activation_grad_kernels.tanh_grad)
def tanh_grad_kernel(y: Any, dy: Any) -> Any:
    """z = dy * (1 - y * y), y = tanh(x) (Eigen's order, so the bits are TensorFlow's)."""
    y, dy = np.asarray(y), np.asarray(dy)
    same_shapes("TanhGrad", y, dy)
    square = np.multiply(y, y, out=np.empty_like(y))
    return np.multiply(dy, np.subtract(y.dtype.type(1), square, out=square), out=square)


@register_gradient("TanhGrad")
def _tanh_grad_grad(op: Any, grad: Any) -> list:
    """d/dy = grad * -2 * dy * y; d/ddy = TanhGrad(y, grad) (TensorFlow's _TanhGradGrad)."""
    with control_dependencies([grad]):
        y, dy = op.inputs
        return [grad * -2.0 * dy * y, tanh_grad(y, grad)]


def tanh_grad(y: Any, dy: Any, name: str | None = None) -> Any:
    """`tf.raw_ops.TanhGrad`: dy * (1 - y^2)."""
    return apply_op("TanhGrad", [y, dy], name=name)


# Bytes in one of Eigen's packets in TensorFlow's x86-64 kernels (AVX: 8 floats, 4 doubles); SigmoidGrad's tail past
# the last whole packet runs Eigen's scalar formula, whose order of multiplication differs.
EIGEN_PACKET_BYTES = 32


# --- Sigmoid, and SigmoidGrad ---------------------------------------------------------------------------
@register_op("Sigmoid", "Sigmoid", inputs=("x",), shape=same_as_input, allowed=FLOATS, c=c_elementwise.sigmoid)
def sigmoid_kernel(x: Any) -> Any:
    """y = 1 / (1 + e^-x)."""
    with np.errstate(over="ignore"):  # e^-x overflows to inf for very negative x, giving y = 0 as it should
        return np.reciprocal(np.add(np.exp(np.negative(x)), x.dtype.type(1)))


@register_gradient("Sigmoid")
def _sigmoid_grad(op: Any, grad: Any) -> Any:
    """dy/dx = y (1 - y): the SigmoidGrad op fed the output (TensorFlow's math_grad.py)."""
    with control_dependencies([grad]):
        return sigmoid_grad(op.outputs[0], grad)


def sigmoid(x: Any, name: str | None = None) -> Any:
    return apply_op("Sigmoid", [x], name=name)


@register_op("SigmoidGrad", "SigmoidGrad", inputs=("y", "dy"), shape=_grad_of_output_shape, same_dtype=(0, 1),
             allowed=FLOATS, c=c_activation_grads.sigmoid_grad, portable=activation_grad_kernels.sigmoid_grad)
def sigmoid_grad_kernel(y: Any, dy: Any) -> Any:
    """z = dy * (y * (1 - y)), y = sigmoid(x); the last n % 8 elements (n % 4 for doubles) (dy * y) * (1 - y).

    Those are the orders of Eigen's 32-byte packets and of its scalar loop over the tail, which TensorFlow's
    kernel runs: the bits are TensorFlow's."""
    y, dy = np.asarray(y), np.asarray(dy)
    same_shapes("SigmoidGrad", y, dy)
    one_minus = np.subtract(y.dtype.type(1), y, out=np.empty_like(y))
    z = np.multiply(dy, np.multiply(y, one_minus, out=one_minus), out=one_minus)
    tail = z.size % (EIGEN_PACKET_BYTES // z.itemsize)
    if tail:
        flat_y, flat_dy, flat_z = y.reshape(-1)[-tail:], dy.reshape(-1)[-tail:], z.reshape(-1)
        flat_z[-tail:] = flat_dy * flat_y * (y.dtype.type(1) - flat_y)
    return z


@register_gradient("SigmoidGrad")
def _sigmoid_grad_grad(op: Any, grad: Any) -> list:
    """d/dy = grad * dy - 2 * grad * dy * y; d/ddy = SigmoidGrad(y, grad) (TensorFlow's _SigmoidGradGrad)."""
    with control_dependencies([grad]):
        y, dy = op.inputs
        gb = grad * dy
        return [gb - 2.0 * gb * y, sigmoid_grad(y, grad)]


def sigmoid_grad(y: Any, dy: Any, name: str | None = None) -> Any:
    """`tf.raw_ops.SigmoidGrad`: dy * y * (1 - y)."""
    return apply_op("SigmoidGrad", [y, dy], name=name)


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
