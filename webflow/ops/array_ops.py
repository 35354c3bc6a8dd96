"""Array ops: identity, shapes, reshaping, filling. One stanza per op (shape rule, NumPy kernel with the
math in its docstring, gradient rule, TensorFlow-named wrapper), plus the helpers every gradient that sums
over axes shares (`reduction_axes`, `_reduce_sum`, UnsortedSegmentSum).

TensorFlow's array_ops continues in sibling modules, each reachable as `array_ops.<name>` (end of this file):
concat_ops.py (concat, stack, unstack, split), broadcast_ops.py (broadcast_to, unbroadcast), sequence_ops.py
(range, one_hot), manip_ops.py, pad_ops.py, indexing_ops.py and gather_ops.py.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import gather as c_gather
from webflow.backends.portable import shape_kernels
from webflow.framework import context, dtypes
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import sequence_ops
from webflow.ops.convert import constant_value, constant_value_as_shape, convert_to_tensor, is_tensor_like
from webflow.ops.registry import (
    NotDifferentiable,
    ShapeError,
    apply_op,
    op_scope,
    output_spec,
    register_gradient,
    register_op,
)
from webflow.ops.shapes import same_as_input


# --- Identity, StopGradient ----------------------------------------------------------------------------
@register_op("Identity", "Identity", inputs=("input",), shape=same_as_input, portable=shape_kernels.identity)
def identity_kernel(x: Any) -> Any:
    """y = x."""
    return x


@register_gradient("Identity")
def _identity_grad(op: Any, grad: Any) -> Any:
    """dy/dx = 1."""
    return grad


def identity(input: Any, name: str | None = None) -> Any:  # noqa: A002 - TensorFlow's argument name
    if hasattr(input, "_is_variable") and not context.executing_eagerly():
        input = input.value() if not hasattr(input, "_ref") else input._ref()  # noqa: A001
    return apply_op("Identity", [input], name=name)


@register_op("StopGradient", "StopGradient", inputs=("input",), shape=same_as_input, portable=shape_kernels.identity)
def stop_gradient_kernel(x: Any) -> Any:
    """y = x, but no gradient flows back through it."""
    return x


NotDifferentiable("StopGradient")


def stop_gradient(input: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("StopGradient", [input], name=name)


# --- Shape, Size, Rank ----------------------------------------------------------------------------------
def _shape_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec([inputs[0].shape.rank], attrs["out_type"])


@register_op("Shape", "Shape", inputs=("input",), shape=_shape_shape, portable=shape_kernels.shape)
def shape_kernel(x: Any, *, out_type: Any) -> Any:
    """y = the dimensions of x, as a vector."""
    return np.array(np.shape(x), dtype=out_type.as_numpy_dtype)


def shape(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Any:  # noqa: A002
    """The shape of `input` as a 1-D tensor: a Const when it is fully known (as TF folds it), else a Shape op."""
    return _static_or_op("Shape", input, name, lambda s: s.as_list() if s.is_fully_defined() else None, out_type)


def _static_or_op(op_type: str, input: Any, name: str | None, static: Any, out_type: Any) -> Any:  # noqa: A002
    """A Const named like the op when `static(shape)` knows the answer at build time, else the op."""
    from webflow.ops.constants import constant

    out_type = dtypes.as_dtype(out_type)
    with _name_scope(name or op_type) as scope:
        x = convert_to_tensor(input)
        known = static(x.shape)
        if known is not None:
            return constant(backend_values.array(known, out_type), name=scope or op_type)
        attrs = {"out_type": out_type} if op_type != "Rank" else {}
        return apply_op(op_type, [x], attrs, name=scope or None)


@register_op("Size", "Size", inputs=("input",), shape=lambda inputs, attrs: output_spec((), attrs["out_type"]),
             portable=shape_kernels.size)
def size_kernel(x: Any, *, out_type: Any) -> Any:
    """y = number of elements of x."""
    return np.array(np.size(x), dtype=out_type.as_numpy_dtype)


def size(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Any:  # noqa: A002
    return _static_or_op("Size", input, name, lambda s: s.num_elements(), out_type)


@register_op("Rank", "Rank", inputs=("input",), shape=lambda inputs, attrs: output_spec((), dtypes.int32),
             portable=shape_kernels.rank)
def rank_kernel(x: Any) -> Any:
    """y = number of dimensions of x."""
    return np.array(np.ndim(x), dtype=np.int32)


def rank(input: Any, name: str | None = None) -> Any:  # noqa: A002
    return _static_or_op("Rank", input, name, lambda s: s.rank, dtypes.int32)


for _op_type in ("Shape", "Size", "Rank"):
    NotDifferentiable(_op_type)


# --- Reshape ----------------------------------------------------------------------------------------
def _reshape_shape(inputs: list, attrs: dict) -> tuple:
    x, shape_tensor = inputs
    target = constant_value(shape_tensor)
    dtype = x.dtype.base_dtype
    if target is None:
        return output_spec(constant_value_as_shape(shape_tensor), dtype)
    target = [int(d) for d in backend_values.flat_list(target)]
    if target.count(-1) > 1:
        raise ShapeError(f"Cannot infer multiple unknown dimensions in shape {target}")
    count = x.shape.num_elements()
    known = int(math.prod([d for d in target if d != -1])) if target else 1
    if -1 in target:
        if count is None or known == 0:
            return output_spec([None if d == -1 else d for d in target], dtype)
        if count % known:
            raise ShapeError(f"Cannot reshape a tensor with {count} elements to shape {target} "
                             f"({known} elements)")
        return output_spec([count // known if d == -1 else d for d in target], dtype)
    if count is not None and count != known:
        raise ShapeError(f"Cannot reshape a tensor with {count} elements to shape {target} ({known} elements)")
    return output_spec(target, dtype)


@register_op("Reshape", "Reshape", inputs=("tensor", "shape"), shape=_reshape_shape, portable=shape_kernels.reshape)
def reshape_kernel(x: Any, new_shape: Any) -> Any:
    """y = x with its elements laid out in `shape` (one -1 is inferred)."""
    return np.reshape(x, [int(d) for d in new_shape])


@register_gradient("Reshape")
def _reshape_grad(op: Any, grad: Any) -> list:
    """dy/dx = reshape grad back to x's shape."""
    dims = op.inputs[0].shape.as_list() if op.inputs[0].shape.rank is not None else None
    if dims is not None and dims.count(None) == 1 and 0 not in dims:  # one unknown dim: -1, no Shape op
        return [reshape(grad, [-1 if d is None else d for d in dims]), None]
    return [reshape(grad, shape(op.inputs[0])), None]  # (a Const "Shape" when x's shape is known, as TF)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Any:  # noqa: A002
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not shape and not context.executing_eagerly():
        return _reshape_to_scalar(tensor, name)
    if isinstance(shape, (list, tuple)) and not any(hasattr(d, "dtype") for d in shape):
        shape = backend_values.array([-1 if d is None else int(d) for d in shape], dtypes.int32)
    return apply_op("Reshape", [tensor, shape], name=name)


def _reshape_to_scalar(tensor: Any, name: str | None) -> Any:
    """reshape(x, []): TensorFlow's op builder first converts `[]` with no dtype (a float32 Const "shape", left
    unused), then as int32 ("shape_1"): the graph has both."""
    from webflow.ops.constants import constant

    with _name_scope(name or "Reshape") as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        constant(backend_values.vector([], dtypes.float32), name="shape")
        target = convert_to_tensor(backend_values.vector([], dtypes.int32), name="shape")
        return apply_op("Reshape", [tensor, target], name=scope)


# --- Fill, zeros, ones ----------------------------------------------------------------------------
def _fill_shape(inputs: list, attrs: dict) -> tuple:
    dims, value = inputs
    known = constant_value(dims)
    if value.shape.rank not in (None, 0):
        raise ShapeError(f"Shape must be rank 0 but is rank {value.shape.rank}")
    if known is None:
        return output_spec(constant_value_as_shape(dims), value.dtype.base_dtype)
    return output_spec([int(d) for d in backend_values.flat_list(known)], value.dtype.base_dtype)


@register_op("Fill", "Fill", inputs=("dims", "value"), shape=_fill_shape, portable=shape_kernels.fill)
def fill_kernel(dims: Any, value: Any) -> Any:
    """y[...] = value, with shape dims."""
    return np.full([int(d) for d in dims], value, dtype=value.dtype)


@register_gradient("Fill")
def _fill_grad(op: Any, grad: Any) -> list:
    """dy/dvalue = sum of grad."""
    return [None, _reduce_sum(grad)]


def fill(dims: Any, value: Any, name: str | None = None) -> Any:
    if isinstance(dims, TensorShape):
        dims = dims.as_list()
    if isinstance(dims, (list, tuple)) and not any(hasattr(d, "dtype") for d in dims):
        dims = backend_values.vector(list(dims), dtypes.int32)
    return apply_op("Fill", [dims, value], name=name)


def _shape_argument(shape_value: Any) -> Any:
    if isinstance(shape_value, TensorShape):
        return shape_value.as_list()
    if isinstance(shape_value, int):
        return [shape_value]
    return shape_value


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Any:  # noqa: A002
    return _filled(shape, 0, dtype, name or "zeros")


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Any:  # noqa: A002
    return _filled(shape, 1, dtype, name or "ones")


def _filled(shape_value: Any, value: Any, dtype: Any, name: str) -> Any:
    """A constant when the shape is static (as TF does for small shapes), else a Fill op."""
    from webflow.ops.constants import constant

    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype is dtypes.string and value == 0:
        value = b""  # tf.zeros of strings: empty strings
    shape_value = _shape_argument(shape_value)
    known = shape_value if isinstance(shape_value, (list, tuple)) and not any(
        hasattr(d, "dtype") for d in shape_value) else \
        constant_value(shape_value) if hasattr(shape_value, "dtype") else None
    graph = None if context.executing_eagerly() else context.get_default_graph()
    if known is not None:
        dims = [int(d) for d in backend_values.flat_list(known)]
        if graph is None or _element_count(dims) < 1000:
            # (bfloat16's float32 storage cannot say its dtype: constant is told)
            return constant(backend_values.full(dims, value, dtype), name=name,
                            dtype=dtype if dtype is dtypes.bfloat16 else None)
    if graph is None:
        return fill(shape_value, constant(value, dtype=dtype), name=name)
    with graph.name_scope(name) as scope:
        if known is not None:
            # TF makes a Fill of a big static shape rather than a Const, so that a GraphDef (and a .meta or a
            # SavedModel) does not carry a million zeros: Fill(zeros/shape_as_tensor, zeros/Const)
            shape_value = constant(backend_values.vector(dims, dtypes.int32), name="shape_as_tensor")
        return fill(shape_value, constant(value, dtype=dtype, name="Const"), name=scope)


def _element_count(dims: list) -> int:
    count = 1
    for dim in dims:
        count *= dim
    return count


@register_op("ZerosLike", "ZerosLike", inputs=("x",), shape=same_as_input, portable=shape_kernels.zeros_like)
def zeros_like_kernel(x: Any) -> Any:
    """y = 0 with x's shape and dtype (a string tensor's zero is b"")."""
    return np.full(np.shape(x), b"", dtype=object) if x.dtype == object else np.zeros_like(x)


@register_op("OnesLike", "OnesLike", inputs=("x",), shape=same_as_input, portable=shape_kernels.ones_like)
def ones_like_kernel(x: Any) -> Any:
    """y = 1 with x's shape and dtype."""
    return np.ones_like(x)


NotDifferentiable("ZerosLike")
NotDifferentiable("OnesLike")


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Any:
    """Zeros shaped like `tensor`: node "zeros_like" (a Const when the shape is static, as TF1 does)."""
    return _filled_like(tensor, dtype, name or "zeros_like", optimize, "ZerosLike", zeros)


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Any:
    """Ones shaped like `tensor`: node "ones_like"."""
    return _filled_like(tensor, dtype, name or "ones_like", optimize, "OnesLike", ones)


def _filled_like(tensor: Any, dtype: Any, name: str, optimize: bool, op_type: str, filled: Any) -> Any:
    if context.executing_eagerly():
        tensor = convert_to_tensor(tensor)
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype is not tensor.dtype.base_dtype:
            return filled(tensor.shape, dtype)
        return apply_op(op_type, [tensor])
    with context.get_default_graph().name_scope(name) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        dtype = tensor.dtype.base_dtype if dtype is None else dtypes.as_dtype(dtype).base_dtype
        if op_type == "OnesLike" and optimize:
            # TF's graph-mode ones_like is Fill(shape, 1): the shape a Const `Shape/shape_as_tensor` when
            # static, else a Shape op, and the one a Const named `Const`
            return _ones_like_fill(tensor, dtype, scope)
        if optimize and tensor.shape.is_fully_defined():
            return filled(tensor.shape.as_list(), dtype, name=scope)
        if dtype is not tensor.dtype.base_dtype:
            return filled(shape(tensor), dtype, name=scope)
        return apply_op(op_type, [tensor], name=scope)


def _ones_like_fill(tensor: Any, dtype: Any, scope: str) -> Any:
    from webflow.ops.constants import constant

    if tensor.shape.is_fully_defined():
        with _name_scope("Shape"):
            dims = constant(backend_values.array(tensor.shape.as_list(), dtypes.int32), name="shape_as_tensor")
    else:
        dims = apply_op("Shape", [tensor], {"out_type": dtypes.int32}, name="Shape")
    result = fill(dims, constant(1, dtype=dtype, name="Const"), name=scope or None)
    result.set_shape(tensor.shape)
    return result


# --- helpers for gradients that sum over axes (here, below math_ops, which imports this module) ----------
def reduction_axes(x: Any, axis: Any) -> Any:
    """The axes argument of a reduction: all axes when None, made before (outside) the reduction's
    name scope as TensorFlow does (a "Const" when the rank is known, else range(0, rank(x)))."""
    if axis is not None:
        return axis
    if x.shape.rank:  # as TF, a scalar (rank 0) also takes the range(0, Rank) path
        return convert_to_tensor(backend_values.vector(list(builtins.range(x.shape.rank)), dtypes.int32))
    return sequence_ops.range(0, rank(x))


def _reduce_sum(input_tensor: Any, axis: Any = None) -> Any:
    """`math_ops.reduce_sum(input_tensor, axis)` for axis None, a non-empty list or a tensor: the same Sum op."""
    if axis is None and not is_tensor_like(input_tensor):
        return apply_op("Sum", [input_tensor, sequence_ops.range(0, rank(input_tensor))], {"keep_dims": False})
    x = convert_to_tensor(input_tensor)
    return apply_op("Sum", [x, reduction_axes(x, axis)], {"keep_dims": False})


# --- UnsortedSegmentSum (densifies sparse gradients) ------------------------------------------------
def _segment_sum_shape(inputs: list, attrs: dict) -> tuple:
    data, ids, num = inputs
    known = constant_value(num)
    if data.shape.rank is None or ids.shape.rank is None:
        return output_spec(None, data.dtype.base_dtype)
    tail = list(data.shape.as_tuple()[ids.shape.rank:])
    return output_spec([None if known is None else int(known)] + tail, data.dtype.base_dtype)


@register_op("UnsortedSegmentSum", "UnsortedSegmentSum", inputs=("data", "segment_ids", "num_segments"),
             shape=_segment_sum_shape, c=c_gather.unsorted_segment_sum)
def unsorted_segment_sum_kernel(data: Any, ids: Any, num: Any) -> Any:
    """y[k] = sum of data[i] over i with segment_ids[i] == k."""
    rows = np.asarray(data).reshape((np.size(ids),) + data.shape[np.ndim(ids):])
    ids = np.asarray(ids).reshape(-1)
    out = np.zeros((int(num),) + rows.shape[1:], dtype=data.dtype)
    np.add.at(out, ids, rows)
    return out


@register_gradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: Any, grad: Any) -> list:
    """d data[i] = grad[segment_ids[i]]."""
    zero = backend_values.array(0, dtypes.int32)
    return [apply_op("GatherV2", [grad, op.inputs[1], zero], {"batch_dims": 0}), None, None] \
        if "GatherV2" in _ops() else [None, None, None]


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Any:
    return apply_op("UnsortedSegmentSum", [data, segment_ids, num_segments], name=name)


def _name_scope(name: str | None) -> Any:
    return op_scope(name)


def _ops() -> dict:
    from webflow.ops.registry import OPS

    return OPS


def to_dense_tensor(value: Any) -> Any:
    return convert_to_tensor(value)
