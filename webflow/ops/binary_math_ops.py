"""Elementwise binary math: FloorDiv, FloorMod, Pow, Maximum, Minimum, SquaredDifference, TruncateDiv,
TruncateMod, DivNoNan; TF1's Python-2 style `tf.div`; and the `//`, `%`, `**` operators.

All broadcast like AddV2 (math_ops.py), so gradients end with `unbroadcast`: the gradient of a
broadcast input is summed over the dimensions it was stretched along.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.portable import array_kernels, math_kernels, shape_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.scopes import control_dependencies, name_scope_v1
from webflow.framework.tensor import OPERATORS
from webflow.ops import array_ops, concat_ops, logic_ops, unary_math_ops
from webflow.ops.broadcast_ops import reduce_gradient_args, shapes_fully_specified_and_equal
from webflow.ops.convert import convert_to_tensor
from webflow.ops.math_ops import _binary_operator, multiply, negative, real_div
from webflow.ops.registry import apply_op, register_gradient, register_op
from webflow.ops.shapes import broadcast_binary

FLOATS = dtypes.FLOATING
NUMBERS = dtypes.NUMERIC
SIGNED = FLOATS + (dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)


def _check_integer_divisor(x: Any, y: Any) -> None:
    """Integer division by zero is a run-time error in TensorFlow (floats give inf/NaN instead);
    an empty result divides nothing, so it is fine (`[] % 0` occurs in shape arithmetic)."""
    if y.dtype.kind in "iu" and np.broadcast(x, y).size and np.any(y == 0):
        raise InvalidArgumentError(None, None, "Integer division by zero")


# --- FloorDiv ---------------------------------------------------------------------------------------
@register_op("FloorDiv", "FloorDiv", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             portable=shape_kernels.floor_div)
def floor_div_kernel(x: Any, y: Any) -> Any:
    """z = floor(x / y) (rounds toward -inf: -7 // 2 = -4)."""
    _check_integer_divisor(x, y)
    if x.dtype.kind in "iu":
        return np.floor_divide(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor(np.true_divide(x, y)).astype(x.dtype, copy=False)


@register_gradient("FloorDiv")
def _floor_div_grad(op: Any, grad: Any) -> list:
    """Piecewise constant: no gradient (as TensorFlow)."""
    return [None, None]


def floordiv(x: Any, y: Any, name: str | None = None) -> Any:
    """`tf.math.floordiv`: node "floordiv" (TensorFlow opens that name scope around FloorDiv)."""
    with name_scope_v1(name, "floordiv", [x, y]) as scope:
        return apply_op("FloorDiv", [x, y], name=scope or None)


def floor_div(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("FloorDiv", [x, y], name=name)


# --- FloorMod ---------------------------------------------------------------------------------------
@register_op("FloorMod", "FloorMod", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             portable=shape_kernels.floor_mod)
def floor_mod_kernel(x: Any, y: Any) -> Any:
    """z = x - floor(x / y) * y (takes the sign of y: -7 % 3 = 2)."""
    _check_integer_divisor(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.mod(x, y)


@register_gradient("FloorMod")
def _floor_mod_grad(op: Any, grad: Any) -> list:
    """dz/dx = 1, dz/dy = -floor(x / y)."""
    x, y = op.inputs
    return list(reduce_gradient_args(x, y, grad, grad * negative(floor_div(x, y))))


def floormod(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("FloorMod", [x, y], name=name)


mod = floormod
floor_mod = floormod


# --- Pow --------------------------------------------------------------------------------------------
@register_op("Pow", "Pow", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=SIGNED,
             portable=array_kernels.pow_)
def pow_kernel(x: Any, y: Any) -> Any:
    """z = x^y."""
    if x.dtype.kind == "i" and np.any(y < 0):
        raise InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(x, y)


@register_gradient("Pow")
def _pow_grad(op: Any, grad: Any) -> list:
    """dz/dx = y x^(y-1); dz/dy = z ln x for x > 0, else 0 (avoids a false singularity at x = 0)."""
    x, y = op.inputs
    grad_x = grad * y * pow(x, y - 1)
    positive = x > 0
    safe_x = logic_ops.select(positive, x, array_ops.ones_like(x))  # TF1's where: a Select node
    log_x = logic_ops.select(positive, unary_math_ops.log(safe_x), array_ops.zeros_like(x))
    grad_y = grad * op.outputs[0] * log_x
    return list(reduce_gradient_args(x, y, grad_x, grad_y))


def pow(x: Any, y: Any, name: str | None = None) -> Any:  # noqa: A001 - TensorFlow's name
    """`tf.pow`: node "Pow" (TensorFlow opens a "Pow" scope; `x ** y` makes "pow" instead)."""
    with name_scope_v1(name, "Pow", [x]) as scope:
        return apply_op("Pow", [x, y], name=scope or None)


# --- Maximum, Minimum -------------------------------------------------------------------------------
@register_op("Maximum", "Maximum", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_elementwise.maximum)
def maximum_kernel(x: Any, y: Any) -> Any:
    """z = max(x, y) elementwise (broadcasting)."""
    return np.maximum(x, y)


@register_op("Minimum", "Minimum", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_elementwise.minimum)
def minimum_kernel(x: Any, y: Any) -> Any:
    """z = min(x, y) elementwise (broadcasting)."""
    return np.minimum(x, y)


def _route(op: Any, grad: Any, x_wins: Any) -> list:
    """The gradient goes to x where `x_wins(x, y)` (ties go to x, as in TensorFlow), to y elsewhere."""
    x, y = op.inputs
    zeros = array_ops.zeros_like(grad)
    x_mask = x_wins(x, y)
    return list(reduce_gradient_args(x, y, logic_ops.select_v2(x_mask, grad, zeros),
                                     logic_ops.select_v2(x_mask, zeros, grad)))


@register_gradient("Maximum")
def _maximum_grad(op: Any, grad: Any) -> list:
    """dz/dx = [x >= y], dz/dy = [x < y]."""
    return _route(op, grad, logic_ops.greater_equal)


@register_gradient("Minimum")
def _minimum_grad(op: Any, grad: Any) -> list:
    """dz/dx = [x <= y], dz/dy = [x > y]."""
    return _route(op, grad, logic_ops.less_equal)


def maximum(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Maximum", [x, y], name=name)


def minimum(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Minimum", [x, y], name=name)


# --- SquaredDifference ------------------------------------------------------------------------------
@register_op("SquaredDifference", "SquaredDifference", inputs=("x", "y"), shape=broadcast_binary,
             same_dtype=(0, 1), allowed=FLOATS + (dtypes.int32, dtypes.int64), c=c_elementwise.squared_difference)
def squared_difference_kernel(x: Any, y: Any) -> Any:
    """z = (x - y)^2."""
    difference = np.subtract(x, y)
    return np.multiply(difference, difference)


@register_gradient("SquaredDifference")
def _squared_difference_grad(op: Any, grad: Any) -> list:
    """dz/dx = 2 (x - y), dz/dy = -2 (x - y)."""
    x, y = op.inputs
    with control_dependencies([grad]):  # (as TensorFlow: the Const "scalar" and "sub" wait for grad)
        two = convert_to_tensor(2.0, dtype=grad.dtype.base_dtype, name="scalar")
        grad_x = multiply(two, grad) * (x - y)
    if shapes_fully_specified_and_equal(x, y, grad):
        return [grad_x, negative(grad_x)]
    return list(reduce_gradient_args(x, y, grad_x, negative(grad_x)))


def squared_difference(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("SquaredDifference", [x, y], name=name)


# --- TruncateDiv, TruncateMod (C semantics: round toward zero) -----------------------------------------
@register_op("TruncateDiv", "TruncateDiv", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=NUMBERS, portable=math_kernels.truncate_div)
def truncate_div_kernel(x: Any, y: Any) -> Any:
    """z = trunc(x / y) (rounds toward zero: -7 / 2 = -3)."""
    _check_integer_divisor(x, y)
    if x.dtype.kind in "iu":
        quotient = np.floor_divide(np.abs(x), np.abs(y))  # exact for integers, unlike a float detour
        return (quotient * np.sign(x) * np.sign(y)).astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(np.true_divide(x, y)).astype(x.dtype, copy=False)


@register_gradient("TruncateDiv")
def _truncate_div_grad(op: Any, grad: Any) -> list:
    """Piecewise constant: no gradient."""
    return [None, None]


@register_op("TruncateMod", "TruncateMod", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=NUMBERS, portable=math_kernels.truncate_mod)
def truncate_mod_kernel(x: Any, y: Any) -> Any:
    """z = x - trunc(x / y) * y (takes the sign of x, as C's %)."""
    _check_integer_divisor(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.fmod(x, y)


def truncatediv(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("TruncateDiv", [x, y], name=name)


def truncatemod(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("TruncateMod", [x, y], name=name)


# --- DivNoNan ---------------------------------------------------------------------------------------
@register_op("DivNoNan", "div_no_nan", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1), allowed=FLOATS,
             portable=math_kernels.div_no_nan)
def div_no_nan_kernel(x: Any, y: Any) -> Any:
    """z = x / y, and 0 where y == 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y == 0, np.zeros((), x.dtype), np.true_divide(x, y)).astype(x.dtype, copy=False)


@register_gradient("DivNoNan")
def _div_no_nan_grad(op: Any, grad: Any) -> list:
    """dz/dx = 1/y, dz/dy = -x/y^2 (both 0 where y == 0)."""
    x, y = op.inputs
    grad_x = div_no_nan(grad, y)
    return list(reduce_gradient_args(x, y, grad_x, grad * div_no_nan(div_no_nan(negative(x), y), y)))


def div_no_nan(x: Any, y: Any, name: str | None = None) -> Any:
    with name_scope_v1(name, "div_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        return apply_op("DivNoNan", [x, y], name=scope or None)


# --- TF1 tf.div: Python 2 division (floor for integers, true division for floats) ---------------------
def div(x: Any, y: Any, name: str | None = None) -> Any:
    """TF1 `tf.div`: RealDiv for floats, FloorDiv for integers, in a "div" name scope."""
    with name_scope_v1(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.base_dtype is not y.dtype.base_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype.base_dtype!r} != {y.dtype.base_dtype!r}")
        if x.dtype.base_dtype.is_floating:
            return real_div(x, y, name=scope or None)
        return floor_div(x, y, name=scope or None)


realdiv = real_div


# --- tensordot: a contraction built from transpose, reshape and MatMul (as TensorFlow builds it) ---------
def _tensordot_axes(a: Any, axes: Any) -> tuple:
    """(a's contracted axes, b's contracted axes) from an int N (last N of a with first N of b) or a pair."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        rank = a.shape.rank
        if rank is None:
            raise ValueError("webflow's tensordot needs the rank of `a` to be known for an integer `axes`.")
        if axes > rank:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  "
                             f"Received {axes}, vs tensor dimensions {rank}.")
        return list(range(rank - axes, rank)), list(range(axes))
    axes = list(axes.numpy().tolist() if hasattr(axes, "numpy") else axes)
    if len(axes) != 2:
        raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
    a_axes, b_axes = axes
    a_axes = [a_axes] if isinstance(a_axes, (int, np.integer)) else list(a_axes)
    b_axes = [b_axes] if isinstance(b_axes, (int, np.integer)) else list(b_axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
    return a_axes, b_axes


def _as_matrix(x: Any, axes: list, contracted_first: bool) -> tuple:
    """x transposed and reshaped to [free, contracted] (or [contracted, free]), and x's free dims: a list
    when x's shape is known, else (a shape tensor, the static dims with None where unknown)."""
    from webflow.ops import manip_ops

    rank = x.shape.rank
    if rank is None:
        raise ValueError("webflow's tensordot needs inputs of known rank.")
    axes = [i % rank if rank else i for i in axes]
    free = [i for i in range(rank) if i not in axes]
    perm = axes + free if contracted_first else free + axes
    moved = manip_ops.transpose(x, perm) if perm != list(range(rank)) else x
    dims = x.shape.as_tuple()
    if all(dims[i] is not None for i in range(rank)):
        free_dims = [dims[i] for i in free]
        size_free, size_axes = int(math.prod(free_dims)), int(math.prod([dims[i] for i in axes]))
        target = [size_axes, size_free] if contracted_first else [size_free, size_axes]
        matrix = moved if list(moved.shape.as_tuple()) == target else array_ops.reshape(moved, target)
        return matrix, free_dims
    parts = concat_ops.unstack(array_ops.shape(x), num=rank)
    free_dims = concat_ops.stack([parts[i] for i in free]) if free else np.zeros(0, np.int32)
    target = [-1, _product([parts[i] for i in axes])] if not contracted_first \
        else [_product([parts[i] for i in axes]), -1]
    return array_ops.reshape(moved, concat_ops.stack(target)), (free_dims, [dims[i] for i in free])


def _product(values: list) -> Any:
    total = 1
    for value in values:
        total = multiply(value, total) if total != 1 else value
    return total


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Any:
    """sum over the contracted axes of a[..free_a.., k] * b[k, ..free_b..]: a MatMul of reshaped inputs."""
    from webflow.ops.matmul_ops import matmul

    with name_scope_v1(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_matrix, a_free = _as_matrix(a, a_axes, contracted_first=False)
        b_matrix, b_free = _as_matrix(b, b_axes, contracted_first=True)
        product = matmul(a_matrix, b_matrix)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if product.shape.is_fully_defined() and product.shape.as_list() == a_free + b_free:
                return product
            return array_ops.reshape(product, a_free + b_free, name=scope or None)
        (a_free, a_static), (b_free, b_static) = (
            free if isinstance(free, tuple) else (free, free) for free in (a_free, b_free))
        result = array_ops.reshape(product, concat_ops.concat([a_free, b_free], 0), name=scope or None)
        result.set_shape(a_static + b_static)  # what is known statically, as TensorFlow sets it
        return result


# --- Python operators: `x // y`, `x % y`, `x ** y` ------------------------------------------------------
OPERATORS.update({
    "floordiv": _binary_operator(floor_div, "floordiv"),
    "mod": _binary_operator(floormod, "mod"),
    "pow": _binary_operator(lambda x, y, name=None: apply_op("Pow", [x, y], name=name), "pow"),
})
