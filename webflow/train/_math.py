"""The few elementwise ops that train/ needs (sqrt, square, pow, floor, minimum, maximum, cos, abs, less ...).

They belong to ops/math_ops.py. Until that module defines them, this file registers stand-in stanzas
under TensorFlow's op types (only for the types nobody has registered yet), and every name below
prefers math_ops' own function when it exists. Once math_ops has them all, this file can shrink to
re-exports.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.numpy_backend import np
from webflow.framework import dtypes
from webflow.ops import math_ops
from webflow.ops.registry import OPS, apply_op, register_gradient, register_op
from webflow.ops.shapes import broadcast_binary, broadcast_comparison, same_as_input


def _stand_in(op_type: str, shape: Any, inputs: tuple, kernel: Any, grad: Any = None, same: tuple = ()) -> None:
    """Registers `op_type` unless the math family already did."""
    if op_type in OPS:
        return
    register_op(op_type, op_type, inputs=inputs, shape=shape, same_dtype=same)(kernel)
    if grad is not None:
        register_gradient(op_type)(grad)


def _sqrt_kernel(x: Any) -> Any:
    """y = sqrt(x)."""
    return np.sqrt(x)


def _sqrt_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 0.5 / y."""
    return math_ops.real_div(math_ops.multiply(grad, 0.5), op.outputs[0])


def _square_kernel(x: Any) -> Any:
    """y = x * x."""
    return np.square(x)


def _square_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 2 x."""
    return math_ops.multiply(grad, math_ops.multiply(op.inputs[0], 2.0))


def _abs_kernel(x: Any) -> Any:
    """y = |x|."""
    return np.abs(x)


def _pow_kernel(x: Any, y: Any) -> Any:
    """z = x ** y."""
    return np.power(x, y).astype(x.dtype, copy=False)


def _floor_kernel(x: Any) -> Any:
    """y = floor(x)."""
    return np.floor(x)


def _ceil_kernel(x: Any) -> Any:
    """y = ceil(x)."""
    return np.ceil(x)


def _exp_kernel(x: Any) -> Any:
    """y = e ** x."""
    return np.exp(x)


def _unique_shape(inputs: list, attrs: dict) -> list:
    from webflow.ops.registry import output_spec

    return [output_spec([None], inputs[0].dtype.base_dtype), output_spec(inputs[0].shape, attrs["out_idx"])]


def _unique_kernel(x: Any, *, out_idx: Any) -> list:
    """y = the distinct values of x in order of first appearance; idx[i] = position of x[i] in y."""
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")          # sorted position -> first-appearance position
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return [values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)]


def _cos_kernel(x: Any) -> Any:
    """y = cos(x)."""
    return np.cos(x)


def _minimum_kernel(x: Any, y: Any) -> Any:
    """z = min(x, y) elementwise."""
    return np.minimum(x, y)


def _maximum_kernel(x: Any, y: Any) -> Any:
    """z = max(x, y) elementwise."""
    return np.maximum(x, y)


def _less_kernel(x: Any, y: Any) -> Any:
    """z = x < y."""
    return np.less(x, y)


def _less_equal_kernel(x: Any, y: Any) -> Any:
    """z = x <= y."""
    return np.less_equal(x, y)


def _greater_kernel(x: Any, y: Any) -> Any:
    """z = x > y."""
    return np.greater(x, y)


def _logical_and_kernel(x: Any, y: Any) -> Any:
    """z = x and y."""
    return np.logical_and(x, y)


_stand_in("Sqrt", same_as_input, ("x",), _sqrt_kernel, _sqrt_grad)
_stand_in("Square", same_as_input, ("x",), _square_kernel, _square_grad)
_stand_in("Abs", same_as_input, ("x",), _abs_kernel)
_stand_in("Pow", broadcast_binary, ("x", "y"), _pow_kernel, same=(0, 1))
_stand_in("Floor", same_as_input, ("x",), _floor_kernel)
_stand_in("Ceil", same_as_input, ("x",), _ceil_kernel)
_stand_in("Exp", same_as_input, ("x",), _exp_kernel)
_stand_in("Unique", _unique_shape, ("x",), _unique_kernel)
_stand_in("Cos", same_as_input, ("x",), _cos_kernel)
_stand_in("Minimum", broadcast_binary, ("x", "y"), _minimum_kernel, same=(0, 1))
_stand_in("Maximum", broadcast_binary, ("x", "y"), _maximum_kernel, same=(0, 1))
_stand_in("Less", broadcast_comparison, ("x", "y"), _less_kernel, same=(0, 1))
_stand_in("LessEqual", broadcast_comparison, ("x", "y"), _less_equal_kernel, same=(0, 1))
_stand_in("Greater", broadcast_comparison, ("x", "y"), _greater_kernel, same=(0, 1))
_stand_in("LogicalAnd", broadcast_comparison, ("x", "y"), _logical_and_kernel)


def _prefer(name: str, op_type: str, default_name: str) -> Any:
    """math_ops.<name> if the math family defines it, else a wrapper around our stand-in stanza."""
    function = getattr(math_ops, name, None)
    if function is not None:
        return function
    arity = len(OPS[op_type].inputs)
    if arity == 1:
        return lambda x, name=None: apply_op(op_type, [x], name=name or default_name)
    return lambda x, y, name=None: apply_op(op_type, [x, y], name=name or default_name)


sqrt = _prefer("sqrt", "Sqrt", "Sqrt")
square = _prefer("square", "Square", "Square")
abs = _prefer("abs", "Abs", "Abs")  # noqa: A001 - TensorFlow's name
pow = _prefer("pow", "Pow", "Pow")  # noqa: A001
floor = _prefer("floor", "Floor", "Floor")
cos = _prefer("cos", "Cos", "Cos")
ceil = _prefer("ceil", "Ceil", "Ceil")
exp = _prefer("exp", "Exp", "Exp")
minimum = _prefer("minimum", "Minimum", "Minimum")
maximum = _prefer("maximum", "Maximum", "Maximum")
less = _prefer("less", "Less", "Less")
less_equal = _prefer("less_equal", "LessEqual", "LessEqual")
greater = _prefer("greater", "Greater", "Greater")
logical_and = _prefer("logical_and", "LogicalAnd", "LogicalAnd")


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> list:
    """`tf.unique`: (distinct values in order of first appearance, index of each x in them)."""
    from webflow.ops import array_ops

    function = getattr(array_ops, "unique", None)
    if function is not None:
        return function(x, out_idx=out_idx, name=name)
    return apply_op("Unique", [x], {"out_idx": dtypes.as_dtype(out_idx)}, name=name or "Unique")
