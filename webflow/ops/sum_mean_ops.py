"""Sum and Mean (`tf.reduce_sum`, `tf.reduce_mean`), and the machinery every reduction shares: the shape rule
`reduction_shape`, the wrapper `_reduce` with TF1's argument aliases, and `broadcast_reduced`, which spreads a
reduction's gradient back over the reduced axes (reduction_ops.py builds Max, Min, Prod, Any, All on it).
One stanza per op (shape rule, NumPy kernel with the math in its docstring, gradient rule, TensorFlow-named
wrapper).
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import reduce as c_reduce
from webflow.framework import dtypes
from webflow.ops import array_ops, sequence_ops
from webflow.ops.array_ops import reduction_axes  # in array_ops: its Fill gradient sums with it
from webflow.ops.broadcast_ops import broadcast_to
from webflow.ops.convert import constant_value, convert_to_tensor, is_tensor_like
from webflow.ops.math_ops import cast, real_div
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op


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
    """dy/dx = 1 for every reduced element: broadcast grad back to x's shape."""
    x, axes = op.inputs
    return [broadcast_reduced(grad, x, axes, op.get_attr("keep_dims")), None]


def broadcast_reduced(grad: Any, x: Any, axes: Any, keep_dims: bool) -> Any:
    """Reshapes a reduction's gradient to keep the reduced dims (as 1) and tiles it to x's shape."""
    if not keep_dims:
        grad = array_ops.reshape(grad, reduced_shape(x, axes))
    return broadcast_to(grad, array_ops.shape(x) if not x.shape.is_fully_defined() else x.shape.as_list())


def reduced_shape(x: Any, axes: Any) -> Any:
    """x's shape with the reduced axes set to 1 (static when possible)."""
    known_axes = constant_value(axes)
    if x.shape.is_fully_defined() and known_axes is not None:
        rank = x.shape.rank
        reduced = {int(a) % rank for a in backend_values.flat_list(known_axes)} if rank else set()
        return [1 if i in reduced else d for i, d in enumerate(x.shape.as_list())]
    return reduced_shape_dynamic(array_ops.shape(x), axes)


def reduced_shape_dynamic(input_shape: Any, axes: Any) -> Any:
    """input_shape with the entries at `axes` replaced by 1, computed in the graph."""
    axes = cast(convert_to_tensor(axes), dtypes.int32)
    rank_ = array_ops.size(input_shape)
    positive_axes = apply_op("FloorMod", [axes, rank_]) if "FloorMod" in _ops() else axes
    one_hot_axes = array_ops.reshape(positive_axes, [-1])
    mask = apply_op("UnsortedSegmentSum", [array_ops.ones_like(one_hot_axes), one_hot_axes, rank_])
    keep = apply_op("Sub", [1, mask])  # math_ops.subtract, multiply, add
    return apply_op("AddV2", [apply_op("Mul", [input_shape, keep]), mask])


def _ops() -> dict:
    from webflow.ops.registry import OPS

    return OPS


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
    """dy/dx = 1/N for each of the N reduced elements."""
    x, axes = op.inputs
    y = op.outputs[0]
    tiled = broadcast_reduced(grad, x, axes, op.get_attr("keep_dims"))
    if x.shape.is_fully_defined() and y.shape.is_fully_defined():
        count = max(x.shape.num_elements() // max(y.shape.num_elements(), 1), 1)
        return [real_div(tiled, cast(count, tiled.dtype)), None]
    count = cast(real_div(cast(array_ops.size(x), dtypes.float64), cast(array_ops.size(y), dtypes.float64)),
                 tiled.dtype)
    return [real_div(tiled, count), None]


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
    return apply_op(op_type, [x, reduction_axes(x, axis)], {"keep_dims": keep}, name=name)


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Sum", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Mean", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)
