"""Joining and splitting: ConcatV2 (`tf.concat`), Pack (`tf.stack`), and their inverses Unpack (`tf.unstack`)
and SplitV (`tf.split`), whose gradients are each other. One stanza per op (shape rule, NumPy kernel with the
math in its docstring, gradient rule, TensorFlow-named wrapper).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import array_kernels, concat_offset_kernels, shape_kernels
from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor import Tensor
from webflow.ops.array_ops import identity, rank, shape
from webflow.ops.convert import constant_value, convert_to_tensor, is_tensor_like
from webflow.ops.registry import (
    NotDifferentiable,
    ShapeError,
    apply_op,
    op_scope,
    output_spec,
    register_gradient,
    register_op,
)
from webflow.ops.shapes import merged_shape, normalize_axis


# --- ConcatV2 ---------------------------------------------------------------------------------------
def _concat_shape(inputs: list, attrs: dict) -> tuple:
    values, axis_tensor = inputs[:-1], inputs[-1]
    dtype = values[0].dtype.base_dtype
    axis = constant_value(axis_tensor)
    ranks = {v.shape.rank for v in values if v.shape.rank is not None}
    if len(ranks) > 1:
        raise ShapeError(f"Shape must be rank {min(ranks)} but is rank {max(ranks)}")
    if axis is None or not ranks:
        return output_spec(None if not ranks else [None] * ranks.pop(), dtype)
    rank_ = ranks.pop()
    axis = normalize_axis(int(axis), rank_, "ConcatV2")
    result = [None] * rank_
    total: int | None = 0
    for value in values:
        dims = value.shape.as_tuple()
        if dims is None:
            total = None
            continue
        for i, d in enumerate(dims):
            if i == axis:
                continue
            if result[i] is not None and d is not None and result[i] != d:
                raise ShapeError(f"Dimension {i} in both shapes must be equal, but are {result[i]} and {d}. "
                                 f"Shapes are {values[0].shape} and {value.shape}")
            result[i] = result[i] if result[i] is not None else d
        total = None if total is None or dims[axis] is None else total + dims[axis]
    result[axis] = total
    return output_spec(result, dtype)


def _concat_kernel_impl(*args: Any, N: int) -> Any:  # noqa: N803
    """y = x_1, ..., x_N joined along axis."""
    return np.concatenate(args[:-1], axis=int(args[-1]))


register_op("ConcatV2", "concat", inputs=("*values",), shape=_concat_shape,
            portable=array_kernels.concat)(_concat_kernel_impl)
concat_kernel = _concat_kernel_impl


@register_gradient("ConcatV2")
def _concat_grad(op: Any, grad: Any) -> list:
    """Each input gets its slice of grad along the axis. In a graph as TensorFlow builds it: the axis mod Rank, the
    inputs' shapes (Consts when all are known, else a Shape of the first, then ShapeN), ConcatOffset, one Slice
    each; eagerly (and for IndexedSlices, or more than 16 inputs) a split."""
    values, axis = op.inputs[:-1], op.inputs[-1]
    if len(values) == 1:
        return [grad, None]
    if not context.executing_eagerly() and isinstance(grad, Tensor) and len(values) <= 16:
        return _sliced_concat_grad(values, axis, grad) + [None]
    sizes = [v.shape.as_tuple()[int(constant_value(axis))] if constant_value(axis) is not None and
             v.shape.rank is not None else None for v in values]
    if None in sizes:
        sizes = stack([apply_op("GatherV2", [shape(v), axis, backend_values.array(0, dtypes.int32)], {"batch_dims": 0})
                       for v in values])
    return split(grad, sizes, axis=axis) + [None]


def _sliced_concat_grad(values: list, axis: Any, grad: Any) -> list:
    axis = axis % rank(values[0])  # node "mod"
    sizes = _input_shapes(values)
    offsets = apply_op("ConcatOffset", [axis] + sizes, {"N": len(sizes)})
    return [apply_op("Slice", [grad, begin, size]) for begin, size in zip(offsets, sizes)]


def _input_shapes(values: list) -> list:
    """Const shapes when every input's shape is known; else, after the first Shape, one ShapeN (as TensorFlow's
    _ExtractInputShapes, which leaves that Shape unused)."""
    sizes = []
    for value in values:
        size = shape(value)
        if size.op.type != "Const":
            return apply_op("ShapeN", list(values), {"N": len(values), "out_type": dtypes.int32})
        sizes.append(size)
    return sizes


# --- ConcatOffset (ConcatV2's gradient) -----------------------------------------------------------------
def _concat_offset_shape(inputs: list, attrs: dict) -> list:
    return [output_spec(t.shape, t.dtype.base_dtype) for t in inputs[1:]]


@register_op("ConcatOffset", "ConcatOffset", inputs=("concat_dim", "*shape"), shape=_concat_offset_shape,
             portable=concat_offset_kernels.concat_offset)
def concat_offset_kernel(concat_dim: Any, *shapes: Any, N: int) -> list:  # noqa: N803 - TensorFlow's attr name
    """offset_i = 0 on every axis but concat_dim, where it is the sum of shape_j[concat_dim] for j < i."""
    axis = int(concat_dim)
    if not 0 <= axis < len(shapes[0]):
        raise InvalidArgumentError(None, None, f"Concat dim is out of range: {axis} vs. {len(shapes[0])}")
    offsets, start = [], 0
    for size in shapes:
        offset = np.zeros_like(size)
        offset[axis] = start
        start += int(size[axis])
        offsets.append(offset)
    return offsets


NotDifferentiable("ConcatOffset")


def concat(values: list, axis: Any, name: str = "concat") -> Any:
    values = list(values)
    if len(values) == 1:
        with op_scope(name) as scope:
            return identity(values[0], name=scope)
    with op_scope(name) as scope:  # TensorFlow's nodes: Python values first ("concat/values_0"), then "concat/axis"
        dtype = next((v.dtype.base_dtype for v in values if is_tensor_like(v)), None)
        values = [v if is_tensor_like(v) else convert_to_tensor(v, dtype=dtype, name=f"values_{i}")
                  for i, v in enumerate(values)]
        axis = convert_to_tensor(axis, dtype=dtypes.int32, name="axis")
        return apply_op("ConcatV2", values + [axis], {"N": len(values)}, name=scope or None)


def _as_axis(axis: Any) -> Any:
    return backend_values.array(axis, dtypes.int32) if isinstance(axis, int) else axis


# --- Pack (stack) -----------------------------------------------------------------------------------
def _pack_shape(inputs: list, attrs: dict) -> tuple:
    shape_ = merged_shape(inputs)
    if shape_.rank is None:
        return output_spec(None, inputs[0].dtype.base_dtype)
    dims = list(shape_.as_tuple())
    axis = normalize_axis(attrs["axis"], len(dims) + 1, "Pack")
    dims.insert(axis, len(inputs))
    return output_spec(dims, inputs[0].dtype.base_dtype)


@register_op("Pack", "stack", inputs=("*values",), shape=_pack_shape, same_dtype="all", portable=array_kernels.pack)
def pack_kernel(*values: Any, N: int, axis: int) -> Any:  # noqa: N803
    """y = the N equally-shaped x_i stacked along a new axis."""
    return np.stack(values, axis=axis)


@register_gradient("Pack")
def _pack_grad(op: Any, grad: Any) -> list:
    """Each input gets its slice of grad along the new axis."""
    return unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


def stack(values: list, axis: int = 0, name: str = "stack") -> Any:
    values = list(values)
    if axis == 0 and values and not any(isinstance(v, (list, tuple)) for v in values):
        return _autopacked(values, name)
    return apply_op("Pack", values, {"N": len(values), "axis": axis}, name=name)


def _autopacked(values: list, name: str) -> Any:
    """stack(values) along axis 0 as TensorFlow converts a list: one Const "stack" when nothing in it is a tensor,
    else a Pack whose Python entries become Consts named by their position ("stack/1"), in the tensors' dtype."""
    from webflow.ops.constants import constant

    tensors = [v for v in values if hasattr(v, "dtype") and not _is_plain_array(v)]
    if not tensors:
        return constant(values, name=name)
    dtype = tensors[0].dtype.base_dtype
    with op_scope(name) as scope:
        packed = [v if any(v is t for t in tensors) else constant(v, dtype=dtype, name=str(i))
                  for i, v in enumerate(values)]
        return apply_op("Pack", packed, {"N": len(packed), "axis": 0}, name=scope or None)


def _is_plain_array(value: Any) -> bool:
    """A NumPy array or scalar (not a tensor): converted like a Python number."""
    return type(value).__module__ == "numpy"


# --- Unpack / Split (needed by gradients of Pack and ConcatV2) --------------------------------------
def _unpack_shape(inputs: list, attrs: dict) -> list:
    x = inputs[0]
    if x.shape.rank is None:
        return [output_spec(None, x.dtype.base_dtype)] * attrs["num"]
    dims = list(x.shape.as_tuple())
    axis = normalize_axis(attrs["axis"], len(dims), "Unpack")
    if dims[axis] is not None and dims[axis] != attrs["num"]:
        raise ShapeError(f"Dimension must be {attrs['num']} but is {dims[axis]}")
    del dims[axis]
    return [output_spec(dims, x.dtype.base_dtype)] * attrs["num"]


@register_op("Unpack", "unstack", inputs=("value",), shape=_unpack_shape, portable=array_kernels.unpack)
def unpack_kernel(x: Any, *, num: int, axis: int) -> list:
    """y_i = x[..., i, ...] along axis."""
    return [np.take(x, i, axis=axis) for i in builtins.range(num)]


@register_gradient("Unpack")
def _unpack_grad(op: Any, *grads: Any) -> Any:
    """dx = stack of the output grads."""
    return stack(list(grads), axis=op.get_attr("axis"))


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list:
    value = convert_to_tensor(value)
    if num is None:
        if value.shape.rank is None or value.shape.as_tuple()[axis] is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
        num = value.shape.as_tuple()[axis]
    return apply_op("Unpack", [value], {"num": num, "axis": axis}, name=name)


def _split_v_shape(inputs: list, attrs: dict) -> list:
    x, sizes, axis_tensor = inputs
    num = attrs["num_split"]
    known_sizes, axis = constant_value(sizes), constant_value(axis_tensor)
    if x.shape.rank is None or axis is None:
        return [output_spec(None if x.shape.rank is None else [None] * x.shape.rank, x.dtype.base_dtype)] * num
    axis = normalize_axis(int(axis), x.shape.rank, "SplitV")
    length = x.shape.as_tuple()[axis]
    sizes_list = None if known_sizes is None else [int(s) for s in backend_values.flat_list(known_sizes)]
    specs = []
    for i in builtins.range(num):
        dims = list(x.shape.as_tuple())
        dims[axis] = None if sizes_list is None else _split_size(sizes_list, i, length)
        specs.append(output_spec(dims, x.dtype.base_dtype))
    if known_sizes is not None and x.shape.as_tuple()[axis] is not None:
        total = sum(int(s) for s in backend_values.flat_list(known_sizes) if s != -1)
        if -1 not in backend_values.flat_list(known_sizes) and total != x.shape.as_tuple()[axis]:
            raise ShapeError(f"Determined shape must either match input shape along split_dim exactly if fully "
                             f"specified, or be less than the size of the input along split_dim if not fully "
                             f"specified.  Got: {total}")
    return specs


def _split_size(sizes: list, index: int, length: int | None) -> int | None:
    """The static size of part `index`; a -1 part takes what the others leave (unknown if the axis is)."""
    if sizes[index] != -1:
        return sizes[index]
    return None if length is None else length - sum(s for s in sizes if s != -1)


@register_op("SplitV", "split", inputs=("value", "size_splits", "axis"), shape=_split_v_shape,
             portable=shape_kernels.split_v)
def split_v_kernel(x: Any, sizes: Any, axis: Any, *, num_split: int) -> list:
    """y_i = consecutive slices of x along axis with sizes size_splits[i]."""
    sizes = [int(s) for s in sizes]
    axis = int(axis)
    if -1 in sizes:  # one -1 takes the rest of the axis, as TensorFlow's SplitV
        sizes[sizes.index(-1)] = x.shape[axis] - sum(s for s in sizes if s != -1)
    # the parts np.split(x, cumsum(sizes)[:-1]) gives (the last one to the end of the axis), sliced directly:
    # 5x faster for an LSTM's [20, 800] gates (np.split swaps axes and copies its arguments)
    index, start, parts = [slice(None)] * np.ndim(x), 0, []
    for count, size in enumerate(sizes):
        stop = start + size
        index[axis] = slice(start, None if count == len(sizes) - 1 else stop)
        parts.append(np.array(x[tuple(index)]))
        start = stop
    return parts


@register_gradient("SplitV")
def _split_v_grad(op: Any, *grads: Any) -> list:
    """dx = the output grads joined back along axis."""
    return [concat(list(grads), op.inputs[2]), None, None]


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None, name: str = "split") -> list:
    value = convert_to_tensor(value)
    if isinstance(num_or_size_splits, int):
        axis_value = int(axis) if not hasattr(axis, "dtype") else int(constant_value(axis))
        length = value.shape.as_tuple()[axis_value] if value.shape.rank is not None else None
        if length is None:
            raise ValueError("split by a number needs a known length along the axis")
        if length % num_or_size_splits:
            raise ValueError(f"Dimension size must be evenly divisible by {num_or_size_splits} but is {length}")
        sizes = [length // num_or_size_splits] * num_or_size_splits
    else:
        sizes = num_or_size_splits
    count = len(sizes) if isinstance(sizes, (list, tuple)) else num or int(sizes.shape.as_tuple()[0])
    if isinstance(sizes, (list, tuple)) and not any(hasattr(s, "dtype") for s in sizes):
        sizes = backend_values.array(sizes, dtypes.int32)
    elif isinstance(sizes, (list, tuple)):
        sizes = stack(sizes)
    return apply_op("SplitV", [value, sizes, _as_axis(axis)], {"num_split": count}, name=name)
