"""Reductions and scans: Max, Min, Prod, Any, All, ArgMax, ArgMin, Cumsum, Cumprod, and the composites
reduce_logsumexp and count_nonzero. (Sum and Mean live in sum_mean_ops.py with the shared reduction
machinery: `reduction_shape`, `_reduce`, `broadcast_reduced`.)

TF2 wrappers have TF2 signatures (`keepdims=False`); the `_v1` twins accept TF1's aliases
(`keep_dims`, `reduction_indices`, argmax's `dimension`) and are exported by webflow.compat.v1.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import reduce as c_reduce
from webflow.backends.portable import array_kernels, math_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.scopes import name_scope_v1
from webflow.ops import array_ops, concat_ops, logic_ops, manip_ops, unary_math_ops
from webflow.ops.binary_math_ops import div_no_nan
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.math_ops import add, cast, multiply, subtract
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import require_rank, same_as_input
from webflow.ops.sum_mean_ops import (
    _axes_tuple,
    _reduce,
    broadcast_reduced,
    reduce_sum,
    reduced_shape,
    reduction_arguments,
    reduction_shape,
)

NUMBERS = dtypes.NUMERIC
BOOL = (dtypes.bool,)


# --- Max, Min ---------------------------------------------------------------------------------------
def _lowest(dtype: Any) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: Any) -> Any:
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


@register_op("Max", "Max", inputs=("input", "reduction_indices"), shape=reduction_shape, allowed=NUMBERS,
             c=c_reduce.reduce_max)
def max_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = max of x over axes (-inf, or the lowest integer, for an empty reduction)."""
    return np.asarray(np.max(x, axis=_axes_tuple(axes), keepdims=keep_dims, initial=_lowest(x.dtype)))


@register_op("Min", "Min", inputs=("input", "reduction_indices"), shape=reduction_shape, allowed=NUMBERS,
             c=c_reduce.reduce_min)
def min_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = min of x over axes (+inf, or the highest integer, for an empty reduction)."""
    return np.asarray(np.min(x, axis=_axes_tuple(axes), keepdims=keep_dims, initial=_highest(x.dtype)))


@register_gradient("Max")
@register_gradient("Min")
def _min_or_max_grad(op: Any, grad: Any) -> list:
    """dy/dx = 1/k at the k elements equal to the extreme value (ties share the gradient), 0 elsewhere."""
    x, axes = op.inputs
    y = op.outputs[0]
    input_shape = array_ops.shape(x)  # (made first, used or not: TensorFlow's graph)
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(input_shape, axes)
        y, grad = array_ops.reshape(y, kept), array_ops.reshape(grad, kept)
    else:
        kept = array_ops.shape(y)
    indicators = cast(logic_ops.equal(y, x), grad.dtype)
    num_selected = array_ops.reshape(reduce_sum(indicators, axes), kept)
    return [indicators / num_selected * grad, None]


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    return _reduce("Max", input_tensor, axis, keepdims, name)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    return _reduce("Min", input_tensor, axis, keepdims, name)


def reduce_max_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Max", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Min", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# --- Prod -------------------------------------------------------------------------------------------
@register_op("Prod", "Prod", inputs=("input", "reduction_indices"), shape=reduction_shape, allowed=NUMBERS,
             c=c_reduce.reduce_prod)
def prod_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = product of x over axes (1 for an empty reduction)."""
    return np.asarray(np.prod(x, axis=_axes_tuple(axes), keepdims=keep_dims, dtype=x.dtype))


@register_gradient("Prod")
def _prod_grad(op: Any, grad: Any) -> list:
    """dy/dx_i = product of the other reduced x_j: left and right exclusive cumulative products, which
    stay exact when some x_j are zero (dividing y by x_i would not)."""
    x, axes = op.inputs
    grad = broadcast_reduced(grad, x, axes, op.get_attr("keep_dims"))
    rank, axes_value = x.shape.rank, constant_value(axes)
    if rank is None or axes_value is None:
        raise NotImplementedError("webflow's Prod gradient needs a known rank and constant reduction axes")
    reduced = sorted({int(a) % rank for a in backend_values.flat_list(axes_value)}) if rank else []
    if not reduced:
        return [grad, None]
    if len(reduced) == 1:
        return [multiply(grad, _product_of_others(x, reduced[0])), None]
    # Several axes: move them to the front, flatten them into one, and use the one-axis rule.
    perm = reduced + [i for i in range(rank) if i not in reduced]
    moved = manip_ops.transpose(x, perm) if perm != list(range(rank)) else x
    if x.shape.is_fully_defined():
        dims = x.shape.as_list()
        group = int(math.prod([dims[i] for i in reduced]))
        rest = int(math.prod([dims[i] for i in range(rank) if i not in reduced]))
        flat = array_ops.reshape(moved, [group, rest])   # (not -1: an empty x could not infer it)
    else:
        from webflow.ops.gather_ops import gather

        group = reduce_prod(gather(array_ops.shape(x), reduced))
        flat = array_ops.reshape(moved, concat_ops.stack([group, -1]))
    others = array_ops.reshape(_product_of_others(flat, 0), array_ops.shape(moved))
    if moved is not x:
        others = manip_ops.transpose(others, sorted(range(len(perm)), key=list(perm).__getitem__))  # perm^-1
    return [multiply(grad, others), None]


def _product_of_others(x: Any, axis: int) -> Any:
    """Along `axis`: the product of all other elements = (product before) * (product after)."""
    return multiply(cumprod(x, axis, exclusive=True), cumprod(x, axis, exclusive=True, reverse=True))


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    return _reduce("Prod", input_tensor, axis, keepdims, name)


def reduce_prod_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                   reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Prod", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# --- Any, All (bool in, bool out, no gradient) ----------------------------------------------------------
@register_op("Any", "Any", inputs=("input", "reduction_indices"), shape=reduction_shape, allowed=BOOL,
             portable=math_kernels.any_)
def any_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = OR of x over axes (False for an empty reduction)."""
    return np.asarray(np.any(x, axis=_axes_tuple(axes), keepdims=keep_dims))


@register_op("All", "All", inputs=("input", "reduction_indices"), shape=reduction_shape, allowed=BOOL,
             portable=math_kernels.all_)
def all_kernel(x: Any, axes: Any, *, keep_dims: bool) -> Any:
    """y = AND of x over axes (True for an empty reduction)."""
    return np.asarray(np.all(x, axis=_axes_tuple(axes), keepdims=keep_dims))


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    return _reduce("Any", input_tensor, axis, keepdims, name)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    return _reduce("All", input_tensor, axis, keepdims, name)


def reduce_any_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("Any", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    return _reduce("All", input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


# --- ArgMax, ArgMin ---------------------------------------------------------------------------------
def _arg_reduce_shape(inputs: list, attrs: dict) -> tuple:
    """x's shape without the reduced dimension; dtype = output_type."""
    x, dimension = inputs
    require_rank(dimension, 0, "dimension")
    out, rank = attrs["output_type"], x.shape.rank
    axis = constant_value(dimension)
    if rank is None:
        return output_spec(None, out)
    if axis is None:
        return output_spec([None] * max(rank - 1, 0), out)
    axis = int(axis)
    if not -rank <= axis < rank:
        raise ShapeError(f"Dimension ({axis}) must be in the range [{-rank}, {rank}), "
                         f"where {rank} is the number of dimensions in the input.")
    dims = list(x.shape.as_tuple())
    del dims[axis % rank]
    return output_spec(dims, out)


def _arg_reduce(function: Any, x: Any, dimension: Any, output_type: Any) -> Any:
    axis = int(dimension)
    if x.shape[axis % x.ndim] == 0:
        raise InvalidArgumentError(None, None, f"Reduction axis {axis} is empty in shape {list(x.shape)}")
    if x.dtype.kind == "f" and np.isnan(x).any():   # TensorFlow never picks a NaN (NumPy always does)
        x = np.where(np.isnan(x), -np.inf if function is np.argmax else np.inf, x)
    return np.asarray(function(x, axis=axis)).astype(output_type.as_numpy_dtype)


@register_op("ArgMax", "ArgMax", inputs=("input", "dimension"), shape=_arg_reduce_shape, allowed=NUMBERS + BOOL,
             portable=array_kernels.arg_max)
def arg_max_kernel(x: Any, dimension: Any, *, output_type: Any) -> Any:
    """y = index of the largest x along `dimension` (the first one on ties; NaN never wins, as in TensorFlow)."""
    return _arg_reduce(np.argmax, x, dimension, output_type)


@register_op("ArgMin", "ArgMin", inputs=("input", "dimension"), shape=_arg_reduce_shape, allowed=NUMBERS + BOOL,
             portable=array_kernels.arg_min)
def arg_min_kernel(x: Any, dimension: Any, *, output_type: Any) -> Any:
    """y = index of the smallest x along `dimension` (the first one on ties)."""
    return _arg_reduce(np.argmin, x, dimension, output_type)


def argmax(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Any:  # noqa: A002
    """TF2 `tf.argmax`: axis None means 0."""
    return arg_max(input, 0 if axis is None else axis, output_type, name)


def argmin(input: Any, axis: Any = None, output_type: Any = dtypes.int64, name: str | None = None) -> Any:  # noqa: A002
    return arg_min(input, 0 if axis is None else axis, output_type, name)


def _v1_axis(axis: Any, dimension: Any) -> Any:
    if axis is not None and dimension is not None:
        raise ValueError("Cannot specify both 'axis' and 'dimension'.")
    axis = dimension if axis is None else axis
    return 0 if axis is None else axis


def argmax_v1(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
              output_type: Any = dtypes.int64) -> Any:
    """TF1 `tf.argmax(input, axis=None, name=None, dimension=None, output_type=tf.int64)`."""
    return arg_max(input, _v1_axis(axis, dimension), output_type, name)


def argmin_v1(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
              output_type: Any = dtypes.int64) -> Any:
    return arg_min(input, _v1_axis(axis, dimension), output_type, name)


def arg_max(input: Any, dimension: Any, output_type: Any = dtypes.int64, name: str | None = None) -> Any:  # noqa: A002
    """The raw op (TF1 `tf.arg_max`)."""
    return apply_op("ArgMax", [input, dimension], {"output_type": dtypes.as_dtype(output_type)}, name=name)


def arg_min(input: Any, dimension: Any, output_type: Any = dtypes.int64, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("ArgMin", [input, dimension], {"output_type": dtypes.as_dtype(output_type)}, name=name)


# --- Cumsum, Cumprod ----------------------------------------------------------------------------------
def _scan_shape(inputs: list, attrs: dict) -> tuple:
    require_rank(inputs[1], 0, "axis")
    return same_as_input(inputs, attrs)


def _scan(x: Any, axis: Any, exclusive: bool, reverse: bool, ufunc: Any, identity: int) -> Any:
    """Running `ufunc` along axis; exclusive shifts by one (starting at identity); reverse runs from the end."""
    axis = int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise InvalidArgumentError(None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), "
                                               f"but got {axis}")
    values = np.flip(x, axis) if reverse else x
    out = ufunc.accumulate(values, axis=axis, dtype=x.dtype)
    if exclusive and x.shape[axis]:   # (an empty axis stays empty: no identity row to shift in)
        out = np.moveaxis(out, axis, 0)
        first = np.full((1,) + out.shape[1:], identity, dtype=x.dtype)
        out = np.moveaxis(np.concatenate([first, out[:-1]], axis=0), 0, axis)
    return np.ascontiguousarray(np.flip(out, axis) if reverse else out)


@register_op("Cumsum", "Cumsum", inputs=("x", "axis"), shape=_scan_shape, allowed=NUMBERS, portable=math_kernels.cumsum)
def cumsum_kernel(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> Any:
    """y_i = x_0 + ... + x_i along axis (exclusive: up to x_{i-1}; reverse: from the end)."""
    return _scan(x, axis, exclusive, reverse, np.add, 0)


@register_gradient("Cumsum")
def _cumsum_grad(op: Any, grad: Any) -> list:
    """dy/dx: each x_i feeds every later y_j, so the gradient is a cumsum running the other way."""
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    return [cumsum(grad, op.inputs[1], exclusive=exclusive, reverse=not reverse), None]


@register_op("Cumprod", "Cumprod", inputs=("x", "axis"), shape=_scan_shape, allowed=NUMBERS,
             portable=math_kernels.cumprod)
def cumprod_kernel(x: Any, axis: Any, *, exclusive: bool, reverse: bool) -> Any:
    """y_i = x_0 * ... * x_i along axis (exclusive: up to x_{i-1}; reverse: from the end)."""
    return _scan(x, axis, exclusive, reverse, np.multiply, 1)


@register_gradient("Cumprod")
def _cumprod_grad(op: Any, grad: Any) -> list:
    """dy_j/dx_i = y_j / x_i for every j that x_i feeds: a reversed cumsum of y * grad, divided by x
    (TensorFlow's formula; it gives 0 rather than the true value where x_i = 0)."""
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(multiply(prod, grad), axis, exclusive=exclusive, reverse=not reverse)
    return [div_no_nan(out, x), None]


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Any:
    with name_scope_v1(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumsum", [x, axis], {"exclusive": exclusive, "reverse": reverse}, name=scope or None)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None) -> Any:
    with name_scope_v1(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return apply_op("Cumprod", [x, axis], {"exclusive": exclusive, "reverse": reverse}, name=scope or None)


# --- composites ---------------------------------------------------------------------------------------
def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Any:
    """log(sum(exp(x))) computed as m + log(sum(exp(x - m))) with m = max(x) (no overflow); m is
    treated as a constant (stop_gradient), and replaced by 0 where it is infinite, as TensorFlow does."""
    with name_scope_v1(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor)
        raw_max = reduce_max(x, axis=axis, keepdims=True)
        shift = array_ops.stop_gradient(logic_ops.select_v2(unary_math_ops.is_finite(raw_max), raw_max, 0))
        result = unary_math_ops.log(reduce_sum(unary_math_ops.exp(subtract(x, shift)), axis, keepdims=keepdims))
        if not keepdims:
            shift = array_ops.reshape(shift, array_ops.shape(result))
        return add(result, shift, name=scope or None)


def reduce_logsumexp_v1(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                        reduction_indices: Any = None, keep_dims: Any = None) -> Any:
    axis, keep = reduction_arguments(axis, keepdims, reduction_indices, keep_dims)
    return reduce_logsumexp(input_tensor, axis, keep, name)


def count_nonzero(input: Any, axis: Any = None, keepdims: Any = None, dtype: Any = dtypes.int64,  # noqa: A002
                  name: str | None = None) -> Any:
    """Number of non-zero elements over axis: Sum(Cast(NotEqual(x, 0)))."""
    with name_scope_v1(name, "count_nonzero", [input]):
        x = convert_to_tensor(input, name="input")
        zero = array_ops.zeros([], dtype=x.dtype.base_dtype, name="zeros")
        nonzero = cast(logic_ops.not_equal(x, zero), dtypes.int64)
        return cast(reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)), dtype)


def count_nonzero_v1(input_tensor: Any = None, axis: Any = None, keepdims: Any = None, dtype: Any = dtypes.int64,
                     name: str | None = None, reduction_indices: Any = None, keep_dims: Any = None,
                     input: Any = None) -> Any:  # noqa: A002
    axis, keep = reduction_arguments(axis, keepdims, reduction_indices, keep_dims)
    return count_nonzero(input_tensor if input is None else input, axis, keep, dtype, name)


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("All", "Any", "ArgMax", "ArgMin"):
    NotDifferentiable(_op_type)
