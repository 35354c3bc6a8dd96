"""Comparisons, logical and bitwise ops, and `where`: Equal, NotEqual, Less, LessEqual, Greater,
GreaterEqual, LogicalAnd/Or/Not (+ the composite logical_xor), BitwiseAnd/Or/Xor, Invert,
Where (indices of true elements), Select (TF1 `tf.where`) and SelectV2 (TF2 `tf.where`, broadcasting).

Comparisons and logical ops have no gradient (their outputs are bool); Select/SelectV2 route the
incoming gradient to whichever input each element was taken from.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import compare as c_compare
from webflow.backends.portable import array_kernels, index_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.kernel_checks import select_condition_shape
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor import OPERATORS
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, broadcast_ops
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import broadcast_binary, broadcast_comparison, broadcast_shapes, same_as_input

NUMBERS = dtypes.NUMERIC
INTEGERS = dtypes.INTEGER
BOOL = (dtypes.bool,)


# --- Equal, NotEqual (any dtype) ----------------------------------------------------------------------
def _equality_shape(inputs: list, attrs: dict) -> tuple:
    """Broadcast shapes; with incompatible_shape_error=False, mismatched shapes give an unknown shape."""
    try:
        return broadcast_comparison(inputs, attrs)
    except ShapeError:
        if attrs.get("incompatible_shape_error", True):
            raise
        return output_spec(None, dtypes.bool)


def _equality(x: Any, y: Any, compare: Any, incompatible_shape_error: bool, if_incompatible: bool) -> Any:
    try:
        np.broadcast_shapes(np.shape(x), np.shape(y))
    except ValueError:
        if incompatible_shape_error:
            raise InvalidArgumentError(
                None, None, f"Incompatible shapes: {list(np.shape(x))} vs. {list(np.shape(y))}") from None
        return np.array(if_incompatible)  # TF2 `==` on mismatched shapes is a scalar, not an error
    return np.asarray(compare(x, y), dtype=bool)


@register_op("Equal", "Equal", inputs=("x", "y"), shape=_equality_shape, same_dtype=(0, 1), c=c_compare.equal,
             portable=array_kernels.equal)
def equal_kernel(x: Any, y: Any, *, incompatible_shape_error: bool = True) -> Any:
    """z = (x == y) elementwise (broadcasting)."""
    return _equality(x, y, np.equal, incompatible_shape_error, False)


@register_op("NotEqual", "NotEqual", inputs=("x", "y"), shape=_equality_shape, same_dtype=(0, 1),
             c=c_compare.not_equal, portable=array_kernels.not_equal)
def not_equal_kernel(x: Any, y: Any, *, incompatible_shape_error: bool = True) -> Any:
    """z = (x != y) elementwise (broadcasting)."""
    return _equality(x, y, np.not_equal, incompatible_shape_error, True)


def equal(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Equal", [x, y], {"incompatible_shape_error": True}, name=name)


def not_equal(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("NotEqual", [x, y], {"incompatible_shape_error": True}, name=name)


# --- ordering comparisons (real numbers only) --------------------------------------------------------
@register_op("Less", "Less", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1), allowed=NUMBERS,
             c=c_compare.less)
def less_kernel(x: Any, y: Any) -> Any:
    """z = (x < y) elementwise (broadcasting)."""
    return np.less(x, y)


@register_op("LessEqual", "LessEqual", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_compare.less_equal)
def less_equal_kernel(x: Any, y: Any) -> Any:
    """z = (x <= y) elementwise (broadcasting)."""
    return np.less_equal(x, y)


@register_op("Greater", "Greater", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_compare.greater)
def greater_kernel(x: Any, y: Any) -> Any:
    """z = (x > y) elementwise (broadcasting)."""
    return np.greater(x, y)


@register_op("GreaterEqual", "GreaterEqual", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_compare.greater_equal)
def greater_equal_kernel(x: Any, y: Any) -> Any:
    """z = (x >= y) elementwise (broadcasting)."""
    return np.greater_equal(x, y)


def less(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Less", [x, y], name=name)


def less_equal(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("LessEqual", [x, y], name=name)


def greater(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Greater", [x, y], name=name)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("GreaterEqual", [x, y], name=name)


# --- logical ops (bool only) --------------------------------------------------------------------------
@register_op("LogicalAnd", "LogicalAnd", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1),
             allowed=BOOL, portable=array_kernels.logical_and)
def logical_and_kernel(x: Any, y: Any) -> Any:
    """z = x AND y (broadcasting)."""
    return np.logical_and(x, y)


@register_op("LogicalOr", "LogicalOr", inputs=("x", "y"), shape=broadcast_comparison, same_dtype=(0, 1),
             allowed=BOOL, portable=array_kernels.logical_or)
def logical_or_kernel(x: Any, y: Any) -> Any:
    """z = x OR y (broadcasting)."""
    return np.logical_or(x, y)


@register_op("LogicalNot", "LogicalNot", inputs=("x",), shape=same_as_input, allowed=BOOL,
             portable=array_kernels.logical_not)
def logical_not_kernel(x: Any) -> Any:
    """y = NOT x."""
    return np.logical_not(x)


def logical_and(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("LogicalAnd", [x, y], name=name)


def logical_or(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("LogicalOr", [x, y], name=name)


def logical_not(x: Any, name: str | None = None) -> Any:
    return apply_op("LogicalNot", [x], name=name)


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Any:
    """x XOR y = (x OR y) AND NOT (x AND y): a composite, as in TensorFlow (the last node is a LogicalAnd)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# --- bitwise ops (integers only): what `&`, `|`, `^`, `~` mean on integer tensors ----------------------
@register_op("BitwiseAnd", "BitwiseAnd", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=INTEGERS, portable=index_kernels.bitwise_and)
def bitwise_and_kernel(x: Any, y: Any) -> Any:
    """z = x & y bit by bit."""
    return np.bitwise_and(x, y)


@register_op("BitwiseOr", "BitwiseOr", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=INTEGERS, portable=index_kernels.bitwise_or)
def bitwise_or_kernel(x: Any, y: Any) -> Any:
    """z = x | y bit by bit."""
    return np.bitwise_or(x, y)


@register_op("BitwiseXor", "BitwiseXor", inputs=("x", "y"), shape=broadcast_binary, same_dtype=(0, 1),
             allowed=INTEGERS, portable=index_kernels.bitwise_xor)
def bitwise_xor_kernel(x: Any, y: Any) -> Any:
    """z = x ^ y bit by bit."""
    return np.bitwise_xor(x, y)


@register_op("Invert", "Invert", inputs=("x",), shape=same_as_input, allowed=INTEGERS, portable=index_kernels.invert)
def invert_kernel(x: Any) -> Any:
    """y = ~x (every bit flipped)."""
    return np.invert(x)


def bitwise_and(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("BitwiseAnd", [x, y], name=name)


def bitwise_or(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("BitwiseOr", [x, y], name=name)


def bitwise_xor(x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("BitwiseXor", [x, y], name=name)


def invert(x: Any, name: str | None = None) -> Any:
    return apply_op("Invert", [x], name=name)


# --- Where: the coordinates of the true (non-zero) elements --------------------------------------------
def _where_shape(inputs: list, attrs: dict) -> tuple:
    rank = inputs[0].shape.rank
    return output_spec([None, rank], dtypes.int64)


@register_op("Where", "Where", inputs=("input",), shape=_where_shape, allowed=NUMBERS + BOOL,
             portable=index_kernels.where_indices)
def where_indices_kernel(x: Any) -> Any:
    """index = [[i0, i1, ...] for every position where x is true/non-zero], int64 [num_true, rank]."""
    return np.argwhere(x).astype(np.int64)


# --- Select (TF1 tf.where): cond has x's shape, is a scalar, or is a vector over x's first dim ---------
def _merge_shapes(a: TensorShape, b: TensorShape) -> TensorShape:
    """TensorFlow's shape Merge, with its error wording."""
    if a.rank is None or b.rank is None:
        return a if b.rank is None else b
    if a.rank != b.rank:
        raise ShapeError(f"Shapes must be equal rank, but are {a.rank} and {b.rank}")
    for i, (da, db) in enumerate(zip(a.as_tuple(), b.as_tuple())):
        if da is not None and db is not None and da != db:
            raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {da} and {db}. "
                             f"Shapes are {_shape_text(a)} and {_shape_text(b)}.")
    return a.merge_with(b)


def _shape_text(shape: TensorShape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_tuple()) + "]"


def _select_shape(inputs: list, attrs: dict) -> tuple:
    cond, x, y = inputs
    data = _merge_shapes(x.shape, y.shape)
    if cond.shape.rank == 0 or cond.shape.rank is None or data.rank is None:
        return output_spec(data, x.dtype.base_dtype)
    if cond.shape.rank == 1 and data.rank > 1:
        first = _merge_shapes(TensorShape(data.as_tuple()[:1]), cond.shape)
        return output_spec(first.concatenate(data.as_tuple()[1:]), x.dtype.base_dtype)
    return output_spec(_merge_shapes(data, cond.shape), x.dtype.base_dtype)


@register_op("Select", "Select", inputs=("condition", "t", "e"), shape=_select_shape, same_dtype=(1, 2),
             c=c_compare.select, portable=array_kernels.select)
def select_kernel(cond: Any, t: Any, e: Any) -> Any:
    """out = t where cond else e; a vector cond picks whole rows (first dimension) of t or e."""
    cond = cond.reshape(select_condition_shape(cond.shape, t.shape, e.shape))
    return np.where(cond.astype(bool), t, e)


@register_gradient("Select")
def _select_grad(op: Any, grad: Any) -> list:
    """d/dt = grad where cond, d/de = grad where not cond (zero elsewhere)."""
    cond, x, _ = op.inputs
    zeros = array_ops.zeros_like(x)
    return [None, select(cond, grad, zeros), select(cond, zeros, grad)]


def select(condition: Any, x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("Select", [condition, x, y], name=name)


# --- SelectV2 (TF2 tf.where): cond, t and e broadcast together ----------------------------------------
def _select_v2_shape(inputs: list, attrs: dict) -> tuple:
    cond, x, y = inputs
    shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape)
    return output_spec(shape, x.dtype.base_dtype)


@register_op("SelectV2", "SelectV2", inputs=("condition", "t", "e"), shape=_select_v2_shape, same_dtype=(1, 2),
             c=c_compare.select_v2, portable=array_kernels.select_v2)
def select_v2_kernel(cond: Any, t: Any, e: Any) -> Any:
    """out = t where cond else e, all three broadcasting."""
    return np.asarray(np.where(cond.astype(bool), t, e))


@register_gradient("SelectV2")
def _select_v2_grad(op: Any, grad: Any) -> list:
    """As Select (with a scalar 0, "zeros"), then each summed over the dimensions along which it was broadcast to
    the output's shape (TensorFlow's _ReduceGradientArgs of t, and of e, against the output)."""
    cond, x, y = op.inputs
    z = op.outputs[0]
    zeros = array_ops.zeros([], dtype=grad.dtype.base_dtype)
    grad_x = select_v2(cond, grad, zeros)
    grad_y = select_v2(cond, zeros, grad)
    grad_x, _ = broadcast_ops.reduce_gradient_args(x, z, grad_x, None)
    grad_y, _ = broadcast_ops.reduce_gradient_args(y, z, grad_y, None)
    return [None, grad_x, grad_y]


def select_v2(condition: Any, x: Any, y: Any, name: str | None = None) -> Any:
    return apply_op("SelectV2", [condition, x, y], name=name)


def _where(select_type: str, condition: Any, x: Any, y: Any, name: str | None) -> Any:
    if x is None and y is None:
        with name_scope_v1(name, "Where", [condition]) as scope:
            condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
            return apply_op("Where", [condition], name=scope or None)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return apply_op(select_type, [condition, x, y], name=name)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.where`: indices of true elements, or elementwise choice with broadcasting (SelectV2)."""
    return _where("SelectV2", condition, x, y, name)


where_v2 = where


def where_v1(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    """TF1 `tf.where`: indices of true elements, or Select (cond has x's shape, or is a vector over rows)."""
    return _where("Select", condition, x, y, name)


# --- Python operators --------------------------------------------------------------------------------
def _pair(x: Any, y: Any) -> tuple:
    """Converts two operands, a Python value taking the other operand's dtype (`True & t`, `t & 5`)."""
    if not is_tensor_like(x) and is_tensor_like(y):
        y = convert_to_tensor(y, name="y")
        return convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x"), y
    x = convert_to_tensor(x, name="x")
    return x, convert_to_tensor(y, dtype=None if is_tensor_like(y) else x.dtype.base_dtype, name="y")


def _logical_or_bitwise(logical: Any, bitwise: Any, scope_name: str) -> Any:
    """`x & y` etc.: logical on bool tensors, bitwise on integers, under TF's name scope ("and", "or", "xor")."""
    def operator(x: Any, y: Any) -> Any:
        with name_scope_v1(None, scope_name, [x, y]) as scope:
            x, y = _pair(x, y)
            function = logical if x.dtype.base_dtype is dtypes.bool else bitwise
            return function(x, y, name=scope or None)

    return operator


def _invert_operator(x: Any) -> Any:
    x = convert_to_tensor(x)
    return logical_not(x) if x.dtype.base_dtype is dtypes.bool else invert(x)


def _equality_operator(op_type: str) -> Any:
    """TF2 `==`/`!=`: elementwise, and mismatched shapes compare unequal instead of raising."""
    def operator(x: Any, y: Any) -> Any:
        x, y = _pair(x, y)
        return apply_op(op_type, [x, y], {"incompatible_shape_error": False})

    return operator


OPERATORS.update({
    "lt": lambda x, y: less(x, y), "le": lambda x, y: less_equal(x, y),
    "gt": lambda x, y: greater(x, y), "ge": lambda x, y: greater_equal(x, y),
    "and": _logical_or_bitwise(logical_and, bitwise_and, "and"),
    "or": _logical_or_bitwise(logical_or, bitwise_or, "or"),
    "xor": _logical_or_bitwise(logical_xor, bitwise_xor, "xor"),
    "invert": _invert_operator,
    "eq": _equality_operator("Equal"), "ne": _equality_operator("NotEqual"),
})


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "Equal", "Greater", "GreaterEqual", "Invert", "Less",
                 "LessEqual", "LogicalAnd", "LogicalNot", "LogicalOr", "NotEqual", "Where"):
    NotDifferentiable(_op_type)
