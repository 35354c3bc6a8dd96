"""Broadcasting: BroadcastTo (`tf.broadcast_to`), BroadcastGradientArgs (the axes two shapes were broadcast
along), and `unbroadcast`, which every elementwise gradient uses to sum its incoming gradient back down to
an input's shape. One stanza per op (shape rule, NumPy kernel with the math in its docstring, gradient rule,
TensorFlow-named wrapper).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import shape_kernels
from webflow.framework import context, dtypes
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.array_ops import _reduce_sum, _shape_argument, reshape, shape
from webflow.ops.constants import constant
from webflow.ops.convert import constant_value, constant_value_as_shape, convert_to_tensor
from webflow.ops.registry import (
    NotDifferentiable,
    ShapeError,
    apply_op,
    op_scope,
    output_spec,
    register_gradient,
    register_op,
)
from webflow.ops.shapes import broadcast_shapes


# --- BroadcastTo, BroadcastGradientArgs ---------------------------------------------------------------
def _broadcast_to_shape(inputs: list, attrs: dict) -> tuple:
    x, target = inputs
    known = constant_value(target)
    if known is None:
        return output_spec(constant_value_as_shape(target), x.dtype.base_dtype)
    target_shape = TensorShape([int(d) for d in backend_values.flat_list(known)])
    if x.shape.rank is None:
        return output_spec(target_shape, x.dtype.base_dtype)
    result = broadcast_shapes(x.shape, target_shape)
    if result.rank != target_shape.rank or not result.is_compatible_with(target_shape):
        raise ShapeError(f"Unable to broadcast tensor of shape {x.shape} to tensor of shape {target_shape}")
    return output_spec(target_shape, x.dtype.base_dtype)


@register_op("BroadcastTo", "BroadcastTo", inputs=("input", "shape"), shape=_broadcast_to_shape,
             portable=shape_kernels.broadcast_to)
def broadcast_to_kernel(x: Any, target: Any) -> Any:
    """y = x repeated along broadcast dims to `shape`."""
    return np.array(np.broadcast_to(x, [int(d) for d in target]))


@register_gradient("BroadcastTo")
def _broadcast_to_grad(op: Any, grad: Any) -> list:
    """dy/dx = grad summed over the broadcast dims."""
    return [unbroadcast(grad, op.inputs[0]), None]


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Any:  # noqa: A002
    shape = _shape_argument(shape)
    if isinstance(shape, (list, tuple)):
        shape = backend_values.array(shape, dtypes.int32)
    return apply_op("BroadcastTo", [input, shape], name=name)


def _bga_shape(inputs: list, attrs: dict) -> list:
    return [output_spec([None], inputs[0].dtype.base_dtype)] * 2


@register_op("BroadcastGradientArgs", "BroadcastGradientArgs", inputs=("s0", "s1"), shape=_bga_shape,
             same_dtype=(0, 1), portable=shape_kernels.broadcast_gradient_args)
def broadcast_gradient_args_kernel(s0: Any, s1: Any) -> list:
    """r0, r1 = the axes along which shapes s0 and s1 were broadcast against each other."""
    rank = max(len(s0), len(s1))
    a = [1] * (rank - len(s0)) + [int(d) for d in s0]
    b = [1] * (rank - len(s1)) + [int(d) for d in s1]
    r0 = [i for i in builtins.range(rank) if a[i] == 1 and (b[i] != 1 or i < rank - len(s0))]
    r1 = [i for i in builtins.range(rank) if b[i] == 1 and (a[i] != 1 or i < rank - len(s1))]
    return [np.array(r0, dtype=s0.dtype), np.array(r1, dtype=s0.dtype)]


NotDifferentiable("BroadcastGradientArgs")


def broadcast_gradient_args(s0: Any, s1: Any, name: str | None = None) -> list:
    return apply_op("BroadcastGradientArgs", [s0, s1], name=name)


# --- undoing broadcasting in gradients ------------------------------------------------------------
def unbroadcast(grad: Any, x: Any) -> Any:
    """Sums `grad` over the dimensions along which `x` was broadcast, so it has x's shape."""
    x_dims, grad_dims = x.shape.as_tuple(), grad.shape.as_tuple()
    if x.shape.is_fully_defined() and grad.shape.is_fully_defined():
        if x_dims == grad_dims:
            return grad
        lead = len(grad_dims) - len(x_dims)
        axes = list(builtins.range(lead)) + [lead + i for i, d in enumerate(x_dims)
                                             if d == 1 and grad_dims[lead + i] != 1]
        summed = _reduce_sum(grad, axes) if axes else grad
        return reshape(summed, x_dims)
    x_shape = shape(x)
    axes, _ = broadcast_gradient_args(x_shape, shape(grad))
    return reshape(_reduce_sum(grad, axes), x_shape)


# --- TensorFlow's reduction of a binary op's gradients (math_grad._ReduceGradientArgs) -----------------
def shapes_fully_specified_and_equal(x: Any, y: Any, grad: Any) -> bool:
    """True when x, y and a dense grad have one fully known shape: the gradient needs no reduction at all
    (TensorFlow's _ShapesFullySpecifiedAndEqual, which Add, Sub, Mul and SquaredDifference check first)."""
    if isinstance(grad, IndexedSlices) or x.shape.rank is None:
        return False
    return x.shape.is_fully_defined() and x.shape.as_tuple() == y.shape.as_tuple() == grad.shape.as_tuple()


def reduce_gradient_args(x: Any, y: Any, grad_x: Any, grad_y: Any) -> tuple:
    """Sums each gradient over the axes its input was broadcast along and reshapes it to the input's shape.

    As TensorFlow's graph: nodes Shape and Shape_1 (Consts when the shapes are known), then, per input that
    needs it, Sum (keep_dims=True) and Reshape. The axes are static when the two shapes decide them (also for
    [None, 3] + [3]), else one BroadcastGradientArgs op gives both; a gradient that is None stays None.
    """
    if grad_x is None and grad_y is None:
        return grad_x, grad_y
    if context.executing_eagerly():  # shapes are known: only the reductions that change something
        return _eager_reduce(grad_x, x), _eager_reduce(grad_y, y)
    x_shape, y_shape = shape(x), shape(y)
    x_axes, y_axes = _static_reduction_axes(x.shape, y.shape)
    if x_axes is None:
        x_axes, y_axes = broadcast_gradient_args(x_shape, y_shape)
        x_must, y_must = True, True
    else:
        x_must = bool(x_axes) or x.shape.rank < y.shape.rank
        y_must = bool(y_axes) or y.shape.rank < x.shape.rank
    return _reduce_to(grad_x, x_shape, x_axes, x_must), _reduce_to(grad_y, y_shape, y_axes, y_must)


def _static_reduction_axes(x_shape: TensorShape, y_shape: TensorShape) -> tuple:
    """(x's axes, y's axes) that broadcasting stretched, or (None, None) when that depends on run-time sizes."""
    if x_shape.rank is None or y_shape.rank is None:
        return None, None
    rank = max(x_shape.rank, y_shape.rank)
    x_dims = (1,) * (rank - x_shape.rank) + x_shape.as_tuple()
    y_dims = (1,) * (rank - y_shape.rank) + y_shape.as_tuple()
    x_axes, y_axes = [], []
    for axis, (x_dim, y_dim) in enumerate(zip(x_dims, y_dims)):
        if x_dim == 1 and y_dim != 1:
            x_axes.append(axis)
        elif y_dim == 1 and x_dim != 1:
            y_axes.append(axis)
        elif x_dim is None or y_dim is None:
            return None, None
    return x_axes, y_axes


def _reduce_to(grad: Any, input_shape: Any, axes: Any, must_reduce: bool) -> Any:
    if grad is None or not must_reduce:
        return grad
    if isinstance(axes, list) and not axes:
        summed = _sum_over_no_axes(grad)
    else:
        summed = apply_op("Sum", [grad, axes], {"keep_dims": True})
    return reshape(summed, input_shape)


def _sum_over_no_axes(grad: Any) -> Any:
    """Sum over an empty axis list ([3] against [1, 3]): TensorFlow's op builder first converts `[]` with no
    dtype (a float32 Const "reduction_indices", left unused), then as int32 ("reduction_indices_1")."""
    with op_scope("Sum") as scope:
        constant(backend_values.vector([], dtypes.float32), name="reduction_indices")
        axes = convert_to_tensor(backend_values.vector([], dtypes.int32), name="reduction_indices")
        return apply_op("Sum", [grad, axes], {"keep_dims": True}, name=scope)


def _eager_reduce(grad: Any, x: Any) -> Any:
    return None if grad is None else unbroadcast(convert_to_tensor(grad), x)
