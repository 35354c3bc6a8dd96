"""Slicing ops: `StridedSlice` (behind `tensor[...]`), `Slice`, and their gradient ops.

`x[1:, ::2, tf.newaxis, ..., 0]` becomes one StridedSlice whose `begin`, `end` and `strides` vectors
hold one entry per index item, and five bit masks say how to read each entry: `begin_mask`/`end_mask`
(ignore begin/end: slice from the start / to the end), `ellipsis_mask` (`...`), `new_axis_mask`
(`tf.newaxis`) and `shrink_axis_mask` (an integer index: take one element and drop the dimension).
Gathers (by index tensors) live in gather_ops.py.
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import array_kernels
from webflow.framework import context, dtypes
from webflow.framework.slicing import UNKNOWN, index_items, sliced_shape
from webflow.framework.tensor import OPERATORS, TensorBase
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, concat_ops
from webflow.ops.convert import constant_value, constant_value_as_shape, convert_to_tensor
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op

MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _vectors(inputs: list) -> tuple:
    begin, end, strides = (constant_value(t) for t in inputs[1:4])
    return begin, end, strides


# --- StridedSlice ---------------------------------------------------------------------------------
def _strided_slice_shape(inputs: list, attrs: dict) -> tuple:
    x = inputs[0]
    dtype = x.dtype.base_dtype
    begin, end, strides = _vectors(inputs)
    count = inputs[3].shape.as_tuple()[0] if inputs[3].shape.rank == 1 else None
    if strides is None and count is None:
        return output_spec(None, dtype)
    strides = [UNKNOWN] * count if strides is None else list(backend_values.flat_list(strides))
    return output_spec(sliced_shape(x.shape, index_items(begin, end, strides, attrs)), dtype)


_checked: dict = {}  # _checked_items' answers: an unrolled RNN slices the same way every step (~20 us each)


def _checked_items(x: Any, begin: Any, end: Any, strides: Any, attrs: dict) -> tuple:
    """The index tuple for arrays, raising TF's message when an integer index is out of bounds."""
    key = None
    if type(begin) is np.ndarray and type(end) is np.ndarray and type(strides) is np.ndarray:
        key = (np.shape(x), begin.dtype.char, begin.tobytes(), end.tobytes(), strides.tobytes(),
               tuple(sorted(attrs.items())))
        found = _checked.get(key)
        if found is not None:
            return found
    items = index_items(begin, end, strides, attrs)
    sliced_shape(TensorShape(np.shape(x)), items)
    if key is not None:
        if len(_checked) > 4096:
            _checked.clear()
        _checked[key] = tuple(items)
    return tuple(items)


@register_op("StridedSlice", "StridedSlice", inputs=("input", "begin", "end", "strides"),
             shape=_strided_slice_shape, same_dtype=(1, 2, 3), portable=array_kernels.strided_slice)
def strided_slice_kernel(x: Any, begin: Any, end: Any, strides: Any, **masks: Any) -> Any:
    """y = x[begin_0:end_0:strides_0, ...], each entry read through the five masks."""
    return np.array(x[_checked_items(x, begin, end, strides, masks)])


@register_gradient("StridedSlice")
def _strided_slice_grad(op: Any, grad: Any) -> list:
    """dx = zeros of x's shape with grad written into the sliced positions."""
    x, begin, end, strides = op.inputs
    masks = {name: op.get_attr(name) for name in MASKS}
    x_shape = array_ops.shape(x, out_type=begin.dtype.base_dtype)
    return [apply_op("StridedSliceGrad", [x_shape, begin, end, strides, grad], masks), None, None, None]


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0, end_mask: int = 0,
                  ellipsis_mask: int = 0, new_axis_mask: int = 0, shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> Any:
    if strides is None:
        strides = [1] * (len(begin) if isinstance(begin, (list, tuple)) else int(convert_to_tensor(begin).shape[0]))
    masks = dict(zip(MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)))
    return apply_op("StridedSlice", [input_, _index_vector(begin), _index_vector(end), _index_vector(strides)],
                    masks, name=name)


def _index_vector(value: Any, name: str = "stack") -> Any:
    if isinstance(value, (list, tuple)) and not any(isinstance(v, TensorBase) for v in value):
        return backend_values.array(value, dtypes.int32)
    if isinstance(value, (list, tuple)):
        return concat_ops.stack(list(value), name=name)
    return value


# --- StridedSliceGrad -----------------------------------------------------------------------------
def _strided_slice_grad_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(constant_value_as_shape(inputs[0]), inputs[4].dtype.base_dtype)


@register_op("StridedSliceGrad", "StridedSliceGrad", inputs=("shape", "begin", "end", "strides", "dy"),
             shape=_strided_slice_grad_shape, same_dtype=(0, 1, 2, 3), portable=array_kernels.strided_slice_grad)
def strided_slice_grad_kernel(x_shape: Any, begin: Any, end: Any, strides: Any, dy: Any, **masks: Any) -> Any:
    """dx = zeros(shape); dx[begin:end:strides] = dy (the masks read as in StridedSlice)."""
    dx = np.zeros([int(d) for d in x_shape], dtype=dy.dtype)
    dx[_checked_items(dx, begin, end, strides, masks)] = dy
    return dx


@register_gradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: Any, grad: Any) -> list:
    """d dy = the same strided slice of grad."""
    masks = {name: op.get_attr(name) for name in MASKS}
    return [None, None, None, None, apply_op("StridedSlice", [grad] + list(op.inputs[1:4]), masks)]


# --- tensor[...] ----------------------------------------------------------------------------------
def _index_error(item: Any) -> TypeError:
    return TypeError("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 "
                     f"tensors are valid indices, got {item!r}")


def _as_index(item: Any) -> Any:
    """An int, None or a scalar integer tensor for one bound of an index item."""
    if item is None or isinstance(item, (builtins.int, np.integer)) and not isinstance(item, builtins.bool):
        return None if item is None else int(item)
    if isinstance(item, TensorBase) or hasattr(item, "_is_variable"):
        tensor = convert_to_tensor(item)
        if tensor.dtype.base_dtype not in (dtypes.int32, dtypes.int64) or tensor.shape.rank not in (None, 0):
            raise _index_error(item)
        return tensor
    if hasattr(item, "__index__") and not isinstance(item, builtins.bool):
        return int(item.__index__())
    raise _index_error(item)


def getitem(tensor: Any, slice_spec: Any) -> Any:
    """`tensor[slice_spec]` as one StridedSlice (TensorFlow's `_slice_helper`), node name "strided_slice"."""
    items = slice_spec if isinstance(slice_spec, builtins.tuple) else (slice_spec,)
    begin, end, strides = [], [], []
    masks = dict.fromkeys(MASKS, 0)
    for i, item in enumerate(items):
        bit = 1 << i
        if item is Ellipsis:
            masks["ellipsis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif item is None:
            masks["new_axis_mask"] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(item, builtins.slice):
            start, stop = _as_index(item.start), _as_index(item.stop)
            step = 1 if item.step is None else _as_index(item.step)
            masks["begin_mask"] |= bit if start is None else 0
            masks["end_mask"] |= bit if stop is None else 0
            begin.append(0 if start is None else start)
            end.append(0 if stop is None else stop)
            strides.append(step)
        else:
            index = _as_index(item)
            if index is None:
                raise _index_error(item)
            masks["shrink_axis_mask"] |= bit
            begin.append(index)
            end.append(index + 1 if isinstance(index, builtins.int) else index + 1)
            strides.append(1)
    if context.executing_eagerly():
        return apply_op("StridedSlice", [tensor] + [_packed(v) for v in (begin, end, strides)], masks)
    graph = context.get_default_graph()
    with graph.name_scope("strided_slice") as scope:
        vectors = [_packed(v, name) for v, name in zip((begin, end, strides), ("stack", "stack_1", "stack_2"))]
        return apply_op("StridedSlice", [tensor] + vectors, masks, name=scope)


def _packed(values: list, name: str = "stack") -> Any:
    """A 1-D index vector: a constant when every entry is a Python int, else a Pack of scalars."""
    tensors = [v for v in values if isinstance(v, TensorBase)]
    dtype = tensors[0].dtype.base_dtype if tensors else dtypes.int32
    if not tensors:
        from webflow.ops.constants import constant

        return constant(backend_values.array(values, dtypes.int32).reshape(-1), name=name)
    values = [v if isinstance(v, TensorBase) else np.array(v, dtype=dtype.as_numpy_dtype) for v in values]
    return concat_ops.stack(values, name=name)


OPERATORS["getitem"] = getitem


# --- Slice ----------------------------------------------------------------------------------------
def _slice_shape(inputs: list, attrs: dict) -> tuple:
    x, begin_t, size_t = inputs
    dtype = x.dtype.base_dtype
    begin, size = constant_value(begin_t), constant_value(size_t)
    rank = x.shape.rank
    length = size_t.shape.as_tuple()[0] if size_t.shape.rank == 1 else None
    if rank is None and length is None:
        return output_spec(None, dtype)
    rank = rank if rank is not None else length
    if length is not None and length != rank:
        raise ShapeError(f"Length of size ({length}) and rank of input ({rank}) must be equal")
    if size is None:  # what a ShapeN, Shape or Pack tells of it (TensorFlow's MakeShapeFromShapeTensor)
        partial = constant_value_as_shape(size_t)
        return output_spec(list(partial.as_tuple()) if partial.rank == rank else [None] * rank, dtype)
    dims = list(x.shape.as_tuple()) if x.shape.rank is not None else [None] * rank
    begins = _partial_begin(begin, begin_t, rank)
    result = []
    for i, (d, s) in enumerate(zip(dims, backend_values.flat_list(size))):
        b = begins[i]
        s = int(s)
        if s != -1:
            if d is not None and b is not None and not (0 <= b and 0 <= s <= d - b):
                raise ShapeError(f"Expected size[{i}] in [0, {max(d - b, 0)}], but got {s}")
            result.append(s)
        else:
            result.append(None if d is None or b is None else d - b)
    return output_spec(result, dtype)


def _partial_begin(begin: Any, begin_t: Any, rank: int) -> list:
    """begin's entries known at build time (None where not: a Pack of a run-time size and a 0 knows the 0)."""
    if begin is not None:
        return [int(b) for b in backend_values.flat_list(begin)]
    partial = constant_value_as_shape(begin_t)
    return list(partial.as_tuple()) if partial.rank == rank else [None] * rank


@register_op("Slice", "Slice", inputs=("input", "begin", "size"), shape=_slice_shape, same_dtype=(1, 2),
             portable=array_kernels.slice_)
def slice_kernel(x: Any, begin: Any, size: Any) -> Any:
    """y = x[begin_i : begin_i + size_i] along every axis i (size -1: to the end)."""
    items = []
    for i, (b, s, d) in enumerate(zip(begin, size, np.shape(x))):
        b, s = int(b), int(s)
        end = d if s == -1 else b + s
        if not 0 <= b <= d:  # TensorFlow's two checks, in its words
            raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if not b <= end <= d:
            raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {s}")
        items.append(builtins.slice(b, end))
    if len(items) != np.ndim(x):
        raise ValueError(f"Expected begin and size arguments to be 1-D tensors of size {np.ndim(x)}, "
                         f"but got shapes {list(np.shape(begin))} and {list(np.shape(size))} instead.")
    return np.array(x[tuple(items)])


@register_gradient("Slice")
def _slice_grad(op: Any, grad: Any) -> list:
    """dx = grad padded with zeros: begin before, (shape(x) - size - begin) after, on every axis (TensorFlow's
    nodes: Rank, Shape of the output, stack, Reshape the two [rank, 1] columns, concat, Pad)."""
    from webflow.ops.pad_ops import pad

    x, begin, _ = op.inputs
    index_dtype = begin.dtype.base_dtype
    input_rank = array_ops.rank(x)
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    column = concat_ops.stack([input_rank, 1])
    before = array_ops.reshape(begin, column)
    after = array_ops.reshape(array_ops.shape(x, out_type=index_dtype) - slice_size - begin, column)
    return [pad(grad, concat_ops.concat([before, after], 1)), None, None]


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Any:  # noqa: A001 - TF's name
    with op_scope(name or "Slice") as scope:  # a list holding tensors is packed as the input's name: "Slice/begin"
        begin = _index_vector(begin, "begin")  # (converted in order, as TensorFlow's op builder: begin, then size)
        begin = begin if isinstance(begin, TensorBase) else convert_to_tensor(begin, name="begin")
        size = _index_vector(size, "size")
        return apply_op("Slice", [input_, begin, size], name=scope or None)
