"""Tensors counted out from integers: Range (`tf.range`: start, start + delta, ... below limit) and OneHot
(`tf.one_hot`: each index marked along a new axis of length depth). One stanza per op (shape rule, NumPy
kernel with the math in its docstring, TensorFlow-named wrapper); neither has a gradient.

Below array_ops, whose reduction helper builds `range(0, rank(x))` for "all axes".
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import array_kernels, shape_kernels
from webflow.framework import dtypes
from webflow.framework.indexed_slices import IndexedSlices
from webflow.ops.convert import constant_value, convert_to_tensor, is_tensor_like, to_numpy
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, op_scope, output_spec, register_op


# --- Range (used by reductions and jacobians) ---------------------------------------------------------
def _range_shape(inputs: list, attrs: dict) -> tuple:
    values = [constant_value(t) for t in inputs]
    dtype = inputs[0].dtype.base_dtype
    if any(v is None for v in values):
        return output_spec([None], dtype)
    start, limit, delta = (v.item() for v in values)
    if delta == 0:
        raise ShapeError("Requires delta != 0")
    return output_spec([max(0, math.ceil((limit - start) / delta))], dtype)


@register_op("Range", "range", inputs=("start", "limit", "delta"), shape=_range_shape, same_dtype=(0, 1, 2),
             portable=array_kernels.range_)
def range_kernel(start: Any, limit: Any, delta: Any) -> Any:
    """y = start, start + delta, ... (excluding limit)."""
    return np.arange(start, limit, delta, dtype=start.dtype)


NotDifferentiable("Range")


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range") -> Any:  # noqa: A001
    if limit is None:
        start, limit = 0, start
    values = [start, limit, delta]
    if dtype is None:  # the widest of the arguments' dtypes, inferred without building ops
        inferred = [convert_to_tensor(v).dtype.base_dtype if is_tensor_like(v) else
                    dtypes.as_dtype(to_numpy(v).dtype) for v in values]
        order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
        dtype = max(inferred, key=order.index)
    with op_scope(name) as scope:  # TF names the arguments range/start, range/limit, range/delta
        values = [_cast_if_needed(v, dtype) if is_tensor_like(v) else convert_to_tensor(v, dtype=dtype, name=arg)
                  for v, arg in zip(values, ("start", "limit", "delta"))]
        return apply_op("Range", values, name=scope or None)


def _cast_if_needed(value: Any, dtype: Any) -> Any:
    return _cast(value, dtype)


def _cast(x: Any, dtype: Any, name: str | None = None) -> Any:
    """`math_ops.cast(x, dtype)`: the same Cast op (none when x already has the dtype)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, IndexedSlices):
        return IndexedSlices(_cast(x.values, dtype, name=name), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    if x.dtype.base_dtype is dtype:
        return x
    return apply_op("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype, "Truncate": False}, name=name)


# --- OneHot ------------------------------------------------------------------------------------------
def _one_hot_shape(inputs: list, attrs: dict) -> tuple:
    indices, depth = inputs[0], constant_value(inputs[1])
    if indices.shape.rank is None:
        return output_spec(None, attrs["dtype"])
    dims = list(indices.shape.as_tuple())
    axis = attrs["axis"]
    dims.insert(len(dims) if axis == -1 else axis, None if depth is None else int(depth))
    return output_spec(dims, inputs[2].dtype.base_dtype)


@register_op("OneHot", "one_hot", inputs=("indices", "depth", "on_value", "off_value"), shape=_one_hot_shape,
             portable=shape_kernels.one_hot)
def one_hot_kernel(indices: Any, depth: Any, on_value: Any, off_value: Any, *, axis: int, dtype: Any) -> Any:
    """y[..., j, ...] = on_value if indices[...] == j else off_value."""
    depth = int(depth)
    if depth < 0:  # np.arange would give an empty axis; TensorFlow's kernel refuses
        raise ValueError(f"depth must be non-negative, got: {depth}")
    hot = np.arange(depth) == np.asarray(indices)[..., None]
    result = np.where(hot, on_value, off_value).astype(on_value.dtype)
    return result if axis == -1 else np.moveaxis(result, -1, axis)


NotDifferentiable("OneHot")


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: int | None = None,
            dtype: Any = None, name: str | None = None) -> Any:
    dtype = dtypes.as_dtype(dtype) if dtype is not None else (
        on_value.dtype if hasattr(on_value, "dtype") else dtypes.float32)
    with op_scope(name or "one_hot") as scope:  # (TensorFlow's consts: one_hot/on_value, one_hot/off_value)
        on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype, name="on_value")
        off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype, name="off_value")
        return apply_op("OneHot", [indices, depth, on, off], {"axis": -1 if axis is None else axis, "dtype": dtype},
                        name=scope or None)
