"""Sum and Mean (`tf.reduce_sum`, `tf.reduce_mean`), and the machinery every reduction shares: the shape rule
`reduction_shape`, the wrapper `_reduce` with TF1's argument aliases, and `broadcast_reduced`, which spreads a
reduction's gradient back over the reduced axes (reduction_ops.py builds Max, Min, Prod, Any, All on it).
One stanza per op (shape rule, NumPy kernel with the math in its docstring, gradient rule, TensorFlow-named
wrapper).
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import reduce as c_reduce
from webflow.framework import context, dtypes
from webflow.ops import array_ops, dynamic_stitch_ops, sequence_ops
from webflow.ops.array_ops import reduction_axes  # in array_ops: its Fill gradient sums with it
from webflow.ops.broadcast_ops import broadcast_to
from webflow.ops.constants import constant
from webflow.ops.convert import constant_value, convert_to_tensor, folded_int_values, is_tensor_like
from webflow.ops.math_ops import cast, truediv
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op


# --- the shared reduction machinery, Sum, Mean ---------------------------------------------------
def reduction_shape(inputs: list, attrs: dict) -> tuple:
    """Shape after reducing the axes in input 1 (all unknown if the axes are not constant)."""
    x, axes_tensor = inputs
    keep = attrs["keep_dims"]
    axes = constant_value(axes_tensor)
    rank = x.shape.rank
    if rank == 0:  # a scalar stays a scalar whatever the (run-time) axes
        return output_spec([], x.dtype.base_dtype)
    if axes is None or rank is None:
        return output_spec(None if not keep or rank is None else [None] * rank, x.dtype.base_dtype)
    axes = backend_values.flat_list(axes)
    for axis in axes:
        if not -rank <= axis < max(rank, 1):
            raise ShapeError(f"Invalid reduction dimension {axis} for input with {rank} dimensions.")
    axes = {a % rank for a in axes} if rank else set()
    dims = x.shape.as_tuple()
    if keep:
        return output_spec([1 if i in axes else d for i, d in enumerate(dims)], x.dtype.base_dtype)
    kept = [d for i, d in enumerate(dims) if i not in axes]
    return output_spec(kept, x.dtype.base_dtype)


def _axes_tuple(axes: Any) -> tuple:
    return tuple(int(a) for a in np.asarray(axes).reshape(-1))


@register_op("Sum", "Sum", inputs=("input", "reduction_indices"), shape=reduction_shape,
             allowed=dtypes.NUMERIC, c=c_reduce.sum_reduce)
def sum_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = sum of x over axes."""
    axes = _axes_tuple(axes)
    if not axes and isinstance(x, np.ndarray):
        return x  # nothing to reduce: TF forwards the input (a gradient summed over no broadcast axes)
    folded = _sum_leading_axes(x, axes, keep_dims)
    if folded is not None:
        return folded
    return np.asarray(np.sum(x, axis=axes, keepdims=keep_dims, dtype=x.dtype))


def _sum_leading_axes(x: Any, axes: tuple, keep_dims: bool) -> Any:
    """Sum over the leading axes of a contiguous float array with few values kept per row (a bias gradient:
    [n, h, w, c] summed to [c]), or None. NumPy adds such narrow rows one short row at a time (32 floats:
    1.24 ms for 50x28x28x32); folding `group` rows into one long row first makes it 0.25 ms (one thread).
    The additions are grouped differently, so the result may differ in the last bits (as TF's own order)."""
    if not isinstance(x, np.ndarray) or x.dtype.kind != "f" or x.itemsize < 4 or not x.flags.c_contiguous \
            or not axes or x.size < 65536:
        return None
    lead = sorted(a % x.ndim for a in axes)
    if lead != list(range(len(lead))) or len(set(lead)) != len(lead):
        return None
    kept_dims = x.shape[len(lead):]
    kept = math.prod(kept_dims)
    rows = x.size // kept if kept else 0
    group = max(1, 1024 // kept) if kept else 1
    if kept == 0 or kept > 32 or rows % group or rows // group < 2:  # 64 kept: NumPy alone is as fast
        return None
    partial = x.reshape(rows // group, group * kept).sum(axis=0, dtype=x.dtype)
    total = partial.reshape(group, kept).sum(axis=0, dtype=x.dtype)
    return total.reshape((1,) * len(lead) + kept_dims if keep_dims else kept_dims)


@register_gradient("Sum")
def _sum_grad(op: Any, grad: Any) -> list:
    """dy/dx = 1 for every reduced element: grad, reshaped to keep the reduced dims as 1, tiled to x's shape."""
    return [tiled_reduction_grad(op, grad), None]


def tiled_reduction_grad(op: Any, grad: Any) -> Any:
    """Sum's gradient (Mean's before its division) built as TensorFlow's _SumGrad builds it: Reshape + Tile when
    the rank and the axes are known (over all axes: a Const or Shape multiples; else static multiples), otherwise
    Shape, reduced_shape (DynamicStitch) and BroadcastTo."""
    x, axes = op.inputs
    axes_list = folded_int_values(axes)  # (also range(0, rank) of a scalar's reduction)
    if x.shape.rank is not None and axes_list is not None:
        dims, rank = x.shape.as_tuple(), x.shape.rank
        if axes.shape.rank == 1 and axes_list == list(range(rank)):  # every axis, in order (np.array_equal's test)
            grad = array_ops.reshape(grad, [1] * rank)
            if None not in dims:
                return _tile(grad, constant(backend_values.vector(list(dims), dtypes.int32)))
            return _tile(grad, array_ops.shape(x))
        if None not in dims and not context.executing_eagerly():
            kept, multiples = _static_tiling(dims, tuple(axes_list))
            return _tile(array_ops.reshape(grad, list(kept)), backend_values.vector(list(multiples), dtypes.int32))
    return broadcast_reduced(grad, x, axes, op.get_attr("keep_dims"))


def _tile(x: Any, multiples: Any) -> Any:
    return apply_op("Tile", [x, multiples])  # (manip_ops.tile, which imports this module)


def broadcast_reduced(grad: Any, x: Any, axes: Any, keep_dims: bool) -> Any:
    """A reduction's gradient with the reduced dims kept (as 1), broadcast to x's shape (Prod's rule uses it)."""
    input_shape = array_ops.shape(x)
    if not keep_dims:
        grad = array_ops.reshape(grad, reduced_shape(input_shape, axes))
    return broadcast_to(grad, input_shape)


# TensorFlow caches (kept dims, tile multiples) per graph and (shape, axes); computing them the first time leaves
# a Maximum and a floordiv on Consts in the graph (its _SafeShapeDiv, evaluated at build time), unused after
_TILING_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _static_tiling(dims: tuple, axes: tuple) -> tuple:
    cache = _TILING_CACHE.setdefault(context.get_default_graph(), {})
    if (dims, axes) not in cache:
        rank = len(dims)
        reduced = {a % rank for a in axes} if rank else set()
        kept = tuple(1 if i in reduced else d for i, d in enumerate(dims))
        _ = list(dims) // apply_op("Maximum", [list(kept), 1])  # (the nodes TensorFlow leaves: Maximum, floordiv)
        cache[(dims, axes)] = kept, tuple(d // max(k, 1) for d, k in zip(dims, kept))
    return cache[(dims, axes)]


def reduced_shape(input_shape: Any, axes: Any) -> Any:
    """A reduction's output shape as if keep_dims were True, from the input's shape tensor (TensorFlow's
    math_ops.reduced_shape): a constant when both are known, else DynamicStitch(range(rank), axes mod rank;
    input_shape, ones)."""
    known_shape, known_axes = constant_value(input_shape), constant_value(axes)
    if known_shape is not None and known_axes is not None:
        dims = [int(d) for d in backend_values.flat_list(known_shape)]
        for axis in backend_values.flat_list(known_axes):
            dims[int(axis)] = 1
        return dims
    axes = convert_to_tensor(axes)
    input_rank = array_ops.size(input_shape, out_type=axes.dtype.base_dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    positions = sequence_ops.range(input_rank)
    with op_scope("ones") as scope:  # (array_ops.ones of a shape tensor: a Fill, even when that tensor is a Const)
        one = constant(backend_values.array(1, input_shape.dtype.base_dtype), name="Const")
        ones = array_ops.fill(axes_shape, one, name=scope or None)
    return dynamic_stitch_ops.dynamic_stitch([positions, axes], [input_shape, ones])


@register_op("Mean", "Mean", inputs=("input", "reduction_indices"), shape=reduction_shape,
             allowed=dtypes.NUMERIC, c=c_reduce.reduce_mean)
def mean_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = mean of x over axes (integer inputs: integer division, as TF)."""
    axes = _axes_tuple(axes)
    if x.dtype.kind in "iu":
        count = max(int(math.prod([x.shape[a] for a in axes])) if axes else 1, 1)
        return np.asarray(np.sum(x, axis=axes, keepdims=keep_dims) // count).astype(x.dtype)
    folded = _sum_leading_axes(x, axes, keep_dims)  # Sum's faster path, then / count as np.mean (FIGURES.md)
    if folded is not None:
        return np.asarray(folded / x.dtype.type(x.size // max(folded.size, 1)))
    return np.asarray(np.mean(x, axis=axes, keepdims=keep_dims, dtype=x.dtype)).astype(x.dtype, copy=False)


@register_gradient("Mean")
def _mean_grad(op: Any, grad: Any) -> list:
    """dy/dx = 1/N for each of the N reduced elements: Sum's gradient over N (a Const when the shapes are known,
    else the product of the reduced dims of Shape(x))."""
    sum_grad = tiled_reduction_grad(op, grad)
    x, y = op.inputs[0], op.outputs[0]
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = x.shape.num_elements() // max(y.shape.num_elements(), 1)
        factor = constant(backend_values.array(count, sum_grad.dtype.base_dtype))
    else:
        input_shape = array_ops.shape(x)
        input_rank = array_ops.size(input_shape)
        axes = (cast(op.inputs[1], input_rank.dtype.base_dtype) + input_rank) % input_rank
        reduced_dims = apply_op("GatherV2", [input_shape, axes, backend_values.array(0, dtypes.int32)],
                                {"batch_dims": 0})  # (gather_ops.gather)
        factor = apply_op("Prod", [reduced_dims, reduction_axes(reduced_dims, None)], {"keep_dims": False})
    return [truediv(sum_grad, cast(factor, sum_grad.dtype.base_dtype)), None]


def reduction_arguments(axis: Any, keepdims: Any, reduction_indices: Any = None, keep_dims: Any = None) -> tuple:
    """(axis, keep) from TF2 names and their deprecated TF1 aliases (reduction_indices, keep_dims)."""
    if reduction_indices is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
        axis = reduction_indices
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    return axis, bool(keepdims if keepdims is not None else keep_dims)


def _reduce(op_type: str, input_tensor: Any, axis: Any, keepdims: Any, name: str | None,
            reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    """One reduction op (Sum, Mean, Max, Prod, Any ...) over `axis` (all axes when None)."""
    axis, keep = reduction_arguments(axis, keepdims, reduction_indices, keep_dims)
    if isinstance(axis, (list, tuple)) and not axis:
        axis = np.zeros(0, np.int32)  # reduce over no axes: the op still runs (TF builds it too)
    if axis is None and not is_tensor_like(input_tensor):
        # A Python value: TF reduces over range(0, rank(value)) and converts the value inside the op.
        return apply_op(op_type, [input_tensor, sequence_ops.range(0, array_ops.rank(input_tensor))],
                        {"keep_dims": keep}, name=name)
    x = convert_to_tensor(input_tensor)
    output = apply_op(op_type, [x, reduction_axes(x, axis)], {"keep_dims": keep}, name=name)
    if axis is None and not keep and not output.shape.is_fully_defined():
        output.set_shape(())  # over all axes: a scalar, even of an unknown rank (TF's _may_reduce_to_scalar)
    return output


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
