"""Array ops: shapes, reshaping, joining, filling, indexing. One stanza per op (shape rule, NumPy
kernel with the math in its docstring, gradient rule, TensorFlow-named wrapper).
"""

from __future__ import annotations

import builtins
import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import gather as c_gather
from webflow.backends.portable import array_kernels, shape_kernels
from webflow.framework import context, dtypes
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import (
    constant_value,
    constant_value_as_shape,
    convert_to_tensor,
    is_tensor_like,
    to_numpy,
)
from webflow.ops.registry import (
    NotDifferentiable,
    ShapeError,
    apply_op,
    op_scope,
    output_spec,
    register_gradient,
    register_op,
)
from webflow.ops.shapes import broadcast_shapes, merged_shape, normalize_axis, same_as_input


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
    x = op.inputs[0]
    target = x.shape.as_list() if x.shape.is_fully_defined() else shape(x)
    return [reshape(grad, target), None]


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Any:  # noqa: A002
    if isinstance(shape, TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)) and not any(hasattr(d, "dtype") for d in shape):
        shape = backend_values.array([-1 if d is None else int(d) for d in shape], dtypes.int32)
    return apply_op("Reshape", [tensor, shape], name=name)


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
    shape_value = _shape_argument(shape_value)
    known = shape_value if isinstance(shape_value, (list, tuple)) and not any(
        hasattr(d, "dtype") for d in shape_value) else \
        constant_value(shape_value) if hasattr(shape_value, "dtype") else None
    if known is not None:
        return constant(backend_values.full([int(d) for d in backend_values.flat_list(known)], value, dtype), name=name)
    graph = None if context.executing_eagerly() else context.get_default_graph()
    if graph is None:
        return fill(shape_value, constant(value, dtype=dtype), name=name)
    with graph.name_scope(name) as scope:
        return fill(shape_value, constant(value, dtype=dtype, name=f"{name}/Const".split("/")[-1]), name=scope)


@register_op("ZerosLike", "ZerosLike", inputs=("x",), shape=same_as_input, portable=shape_kernels.zeros_like)
def zeros_like_kernel(x: Any) -> Any:
    """y = 0 with x's shape and dtype."""
    return np.zeros_like(x)


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


# --- helpers for gradients (here, not in math_ops, which imports this module) ------------------------
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


def reduction_axes(x: Any, axis: Any) -> Any:
    """The axes argument of a reduction: all axes when None, made before (outside) the reduction's
    name scope as TensorFlow does (a "Const" when the rank is known, else range(0, rank(x)))."""
    if axis is not None:
        return axis
    if x.shape.rank:  # as TF, a scalar (rank 0) also takes the range(0, Rank) path
        return convert_to_tensor(backend_values.vector(list(builtins.range(x.shape.rank)), dtypes.int32))
    return range(0, rank(x))


def _reduce_sum(input_tensor: Any, axis: Any = None) -> Any:
    """`math_ops.reduce_sum(input_tensor, axis)` for axis None, a non-empty list or a tensor: the same Sum op."""
    if axis is None and not is_tensor_like(input_tensor):
        return apply_op("Sum", [input_tensor, range(0, rank(input_tensor))], {"keep_dims": False})
    x = convert_to_tensor(input_tensor)
    return apply_op("Sum", [x, reduction_axes(x, axis)], {"keep_dims": False})


def _cast(x: Any, dtype: Any, name: str | None = None) -> Any:
    """`math_ops.cast(x, dtype)`: the same Cast op (none when x already has the dtype)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, IndexedSlices):
        return IndexedSlices(_cast(x.values, dtype, name=name), x.indices, x.dense_shape)
    x = convert_to_tensor(x)
    if x.dtype.base_dtype is dtype:
        return x
    return apply_op("Cast", [x], {"SrcT": x.dtype.base_dtype, "DstT": dtype, "Truncate": False}, name=name)


def reduced_shape_dynamic(input_shape: Any, axes: Any) -> Any:
    """input_shape with the entries at `axes` replaced by 1, computed in the graph."""
    axes = _cast(convert_to_tensor(axes), dtypes.int32)
    rank_ = size(input_shape)
    positive_axes = apply_op("FloorMod", [axes, rank_]) if "FloorMod" in _ops() else axes
    one_hot_axes = reshape(positive_axes, [-1])
    mask = apply_op("UnsortedSegmentSum", [ones_like(one_hot_axes), one_hot_axes, rank_])
    keep = apply_op("Sub", [1, mask])  # math_ops.subtract, multiply, add
    return apply_op("AddV2", [apply_op("Mul", [input_shape, keep]), mask])


def _ops() -> dict:
    from webflow.ops.registry import OPS

    return OPS


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
    """Each input gets its slice of grad along the axis."""
    values, axis = op.inputs[:-1], op.inputs[-1]
    sizes = [v.shape.as_tuple()[int(constant_value(axis))] if constant_value(axis) is not None and
             v.shape.rank is not None else None for v in values]
    if None in sizes:
        sizes = stack([apply_op("GatherV2", [shape(v), axis, backend_values.array(0, dtypes.int32)], {"batch_dims": 0})
                       for v in values])
    return split(grad, sizes, axis=axis) + [None]


def concat(values: list, axis: Any, name: str = "concat") -> Any:
    values = list(values)
    if len(values) == 1:
        with _name_scope(name) as scope:
            return identity(values[0], name=scope)
    return apply_op("ConcatV2", values + [_as_axis(axis)], {"N": len(values)}, name=name)


def _as_axis(axis: Any) -> Any:
    return backend_values.array(axis, dtypes.int32) if isinstance(axis, int) else axis


def _name_scope(name: str | None) -> Any:
    return op_scope(name)


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
    return apply_op("Pack", values, {"N": len(values), "axis": axis}, name=name)


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
    specs = []
    for i in builtins.range(num):
        dims = list(x.shape.as_tuple())
        dims[axis] = None if known_sizes is None else int(backend_values.flat_list(known_sizes)[i])
        specs.append(output_spec(dims, x.dtype.base_dtype))
    if known_sizes is not None and x.shape.as_tuple()[axis] is not None:
        total = sum(int(s) for s in backend_values.flat_list(known_sizes) if s != -1)
        if -1 not in backend_values.flat_list(known_sizes) and total != x.shape.as_tuple()[axis]:
            raise ShapeError(f"Determined shape must either match input shape along split_dim exactly if fully "
                             f"specified, or be less than the size of the input along split_dim if not fully "
                             f"specified.  Got: {total}")
    return specs


@register_op("SplitV", "split", inputs=("value", "size_splits", "axis"), shape=_split_v_shape,
             portable=shape_kernels.split_v)
def split_v_kernel(x: Any, sizes: Any, axis: Any, *, num_split: int) -> list:
    """y_i = consecutive slices of x along axis with sizes size_splits[i]."""
    bounds = np.cumsum([int(s) for s in sizes])[:-1]
    return [np.array(part) for part in np.split(x, bounds, axis=int(axis))]


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


# --- Range, OneHot (used by reductions and jacobians) -------------------------------------------------
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
    with _name_scope(name) as scope:  # TF names the arguments range/start, range/limit, range/delta
        values = [_cast_if_needed(v, dtype) if is_tensor_like(v) else convert_to_tensor(v, dtype=dtype, name=arg)
                  for v, arg in zip(values, ("start", "limit", "delta"))]
        return apply_op("Range", values, name=scope or None)


def _cast_if_needed(value: Any, dtype: Any) -> Any:
    return _cast(value, dtype)


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
    hot = np.arange(depth) == np.asarray(indices)[..., None]
    result = np.where(hot, on_value, off_value).astype(on_value.dtype)
    return result if axis == -1 else np.moveaxis(result, -1, axis)


NotDifferentiable("OneHot")


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: int | None = None,
            dtype: Any = None, name: str | None = None) -> Any:
    dtype = dtypes.as_dtype(dtype) if dtype is not None else (
        on_value.dtype if hasattr(on_value, "dtype") else dtypes.float32)
    on = convert_to_tensor(1 if on_value is None else on_value, dtype=dtype)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype=dtype)
    return apply_op("OneHot", [indices, depth, on, off], {"axis": -1 if axis is None else axis, "dtype": dtype},
                    name=name)


def to_dense_tensor(value: Any) -> Any:
    return convert_to_tensor(value)


# --- ops that live in sibling modules, reachable as array_ops.<name> as in TensorFlow -------------
_SIBLINGS = {
    "webflow.ops.manip_ops": ("transpose", "invert_permutation", "expand_dims", "squeeze", "tile", "pad", "reverse",
                              "shape_n", "identity_n", "sequence_mask"),
    "webflow.ops.indexing_ops": ("strided_slice", "slice"),
    "webflow.ops.gather_ops": ("gather", "gather_nd", "scatter_nd", "boolean_mask"),
}


def __getattr__(name: str) -> Any:
    """`array_ops.transpose` etc.: imported on first use (those modules import this one)."""
    import importlib

    for module, names in _SIBLINGS.items():
        if name in names:
            return getattr(importlib.import_module(module), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
