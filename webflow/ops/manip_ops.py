"""Array ops that move elements around without doing arithmetic: Transpose, ExpandDims, Squeeze, Tile,
ReverseV2, plus ShapeN, IdentityN and sequence_mask (padding is in pad_ops.py).
(tf.clip_by_value is TF's Minimum/Maximum composite, in train/clip_ops.py.)
One stanza per op (shape rule, NumPy kernel with the math in its docstring, gradient, TF-named wrapper).
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import array_kernels, math_kernels, shape_kernels
from webflow.framework import dtypes
from webflow.ops import array_ops, concat_ops, sequence_ops
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
from webflow.ops.shapes import normalize_axis, same_as_input


def _known_vector(tensor: Any) -> list | None:
    value = constant_value(tensor)
    return None if value is None else [int(v) for v in backend_values.flat_list(value)]


def _int_vector(value: Any) -> Any:
    if isinstance(value, (list, builtins.tuple)) and not any(hasattr(v, "dtype") for v in value):
        return backend_values.array(value, dtypes.int32).reshape(-1)
    return value


# --- Transpose, InvertPermutation -----------------------------------------------------------------
def _transpose_shape(inputs: list, attrs: dict) -> tuple:
    x, perm_t = inputs
    perm = _known_vector(perm_t)
    rank = x.shape.rank
    if perm is None:
        return output_spec(None if rank is None else [None] * rank, x.dtype.base_dtype)
    if rank is not None and len(perm) != rank:
        raise ShapeError(f"Dimension must be {rank} but is {len(perm)}")
    if sorted(perm) != list(builtins.range(len(perm))):
        raise ShapeError(f"{perm} is not a permutation of 0..{len(perm) - 1}")
    dims = x.shape.as_tuple() if rank is not None else (None,) * len(perm)
    return output_spec([dims[p] for p in perm], x.dtype.base_dtype)


@register_op("Transpose", "transpose", inputs=("x", "perm"), shape=_transpose_shape, portable=array_kernels.transpose)
def transpose_kernel(x: Any, perm: Any) -> Any:
    """y[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_{n-1}] (dim k of y is dim perm[k] of x)."""
    return np.ascontiguousarray(np.transpose(x, [int(p) for p in perm]))


@register_gradient("Transpose")
def _transpose_grad(op: Any, grad: Any) -> list:
    """dx = transpose(grad, inverse of perm)."""
    return [transpose(grad, invert_permutation(op.inputs[1])), None]


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Any:
    a = convert_to_tensor(a)
    if perm is None:
        if a.shape.rank is not None:
            perm = backend_values.vector(list(builtins.range(a.shape.rank - 1, -1, -1)), dtypes.int32)
        else:
            from webflow.ops.math_ops import subtract

            rank = array_ops.rank(a)
            perm = subtract(subtract(rank, 1), sequence_ops.range(0, rank))
    return apply_op("Transpose", [a, _int_vector(perm)], name=name)


@register_op("InvertPermutation", "InvertPermutation", inputs=("x",), shape=same_as_input,
             portable=array_kernels.invert_permutation)
def invert_permutation_kernel(perm: Any) -> Any:
    """y[perm[i]] = i."""
    return np.argsort(perm).astype(perm.dtype)


NotDifferentiable("InvertPermutation")


def invert_permutation(x: Any, name: str | None = None) -> Any:
    return apply_op("InvertPermutation", [_int_vector(x)], name=name)


# --- ExpandDims, Squeeze --------------------------------------------------------------------------
def _expand_dims_shape(inputs: list, attrs: dict) -> tuple:
    x, axis_t = inputs
    axis = _known_vector(axis_t)
    if x.shape.rank is None:
        return output_spec(None, x.dtype.base_dtype)
    dims = list(x.shape.as_tuple())
    if axis is None:
        return output_spec([None] * (len(dims) + 1), x.dtype.base_dtype)
    if len(axis) != 1:
        raise ShapeError(f"'dim' must be a tensor with a single value, got {axis}")
    position = normalize_axis(axis[0], len(dims) + 1, "ExpandDims")
    dims.insert(position, 1)
    return output_spec(dims, x.dtype.base_dtype)


@register_op("ExpandDims", "ExpandDims", inputs=("input", "dim"), shape=_expand_dims_shape,
             portable=shape_kernels.expand_dims)
def expand_dims_kernel(x: Any, axis: Any) -> Any:
    """y = x with a new dimension of size 1 inserted at `axis`."""
    return np.expand_dims(x, int(np.asarray(axis).reshape(-1)[0]))


def _reshape_back_grad(op: Any, grad: Any) -> list:
    """dx = grad reshaped to x's shape."""
    x = op.inputs[0]
    target = x.shape.as_list() if x.shape.is_fully_defined() else array_ops.shape(x)
    return [array_ops.reshape(grad, target)] + [None] * (len(op.inputs) - 1)


register_gradient("ExpandDims")(_reshape_back_grad)


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Any:  # noqa: A002
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    axis = backend_values.array(axis, dtypes.int32) if isinstance(axis, (builtins.int, np.integer)) else axis
    return apply_op("ExpandDims", [input, axis], name=name)


def _squeeze_shape(inputs: list, attrs: dict) -> tuple:
    x = inputs[0]
    axes = attrs["squeeze_dims"]
    if x.shape.rank is None:
        return output_spec(None, x.dtype.base_dtype)
    dims = x.shape.as_tuple()
    if not axes:
        if any(d is None for d in dims):
            return output_spec(None, x.dtype.base_dtype)
        return output_spec([d for d in dims if d != 1], x.dtype.base_dtype)
    chosen = {normalize_axis(a, len(dims), "Squeeze") for a in axes}
    for a in sorted(chosen):
        if dims[a] is not None and dims[a] != 1:
            raise ShapeError(f"Can not squeeze dim[{a}], expected a dimension of 1, got {dims[a]}")
    return output_spec([d for i, d in enumerate(dims) if i not in chosen], x.dtype.base_dtype)


@register_op("Squeeze", "Squeeze", inputs=("input",), shape=_squeeze_shape, portable=shape_kernels.squeeze)
def squeeze_kernel(x: Any, *, squeeze_dims: list) -> Any:
    """y = x without the size-1 dimensions listed in squeeze_dims (all of them if empty)."""
    for a in squeeze_dims:
        if np.shape(x)[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a % np.ndim(x)}], expected a dimension of 1, got {np.shape(x)[a]}")
    return np.squeeze(x, axis=builtins.tuple(squeeze_dims) if squeeze_dims else None)


register_gradient("Squeeze")(_reshape_back_grad)


def squeeze(input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None) -> Any:  # noqa: A002
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'")
    axis = squeeze_dims if axis is None else axis
    axis = [] if axis is None else [int(axis)] if isinstance(axis, (builtins.int, np.integer)) else \
        [int(a) for a in axis]
    return apply_op("Squeeze", [input], {"squeeze_dims": axis}, name=name)


# --- Tile -----------------------------------------------------------------------------------------
def _tile_shape(inputs: list, attrs: dict) -> tuple:
    x, multiples_t = inputs
    multiples = _known_vector(multiples_t)
    length = multiples_t.shape.as_tuple()[0] if multiples_t.shape.rank == 1 else None
    rank = x.shape.rank if x.shape.rank is not None else length
    if rank is None:
        return output_spec(None, x.dtype.base_dtype)
    if length is not None and length != rank:
        raise ShapeError(f"Expected multiples argument to be a vector of length {rank} but got length {length}")
    dims = x.shape.as_tuple() if x.shape.rank is not None else (None,) * rank
    if multiples is None:  # what a Shape or Pack of partly known dims tells (TensorFlow's MakeShapeFromShapeTensor)
        partial = constant_value_as_shape(multiples_t)
        multiples = partial.as_tuple() if partial.rank == rank else (None,) * rank
    return output_spec([_times(d, m) for d, m in zip(dims, multiples)], x.dtype.base_dtype)


def _times(dim: Any, multiple: Any) -> Any:
    """dim * multiple where either may be unknown (None): 1 times anything is that thing, as TF's shape Multiply."""
    if dim == 1 or multiple == 1:
        return multiple if dim == 1 else dim
    return None if dim is None or multiple is None else dim * multiple


@register_op("Tile", "Tile", inputs=("input", "multiples"), shape=_tile_shape, portable=array_kernels.tile)
def tile_kernel(x: Any, multiples: Any) -> Any:
    """y = x repeated multiples[i] times along each axis i."""
    if len(multiples) != np.ndim(x):
        raise ValueError(f"Expected multiples argument to be a vector of length {np.ndim(x)} but got length "
                         f"{len(multiples)}")
    return np.tile(x, [int(m) for m in multiples])


@register_gradient("Tile")
def _tile_grad(op: Any, grad: Any) -> list:
    """dx = grad viewed as [m0, d0, m1, d1, ...] and summed over the m axes (every copy of x adds up)."""
    from webflow.ops.sum_mean_ops import reduce_sum

    x, multiples = op.inputs
    x_shape = array_ops.shape(x, out_type=multiples.dtype.base_dtype)
    split_shape = array_ops.reshape(transpose(concat_ops.stack([multiples, x_shape])), [-1])
    axes = sequence_ops.range(0, array_ops.size(split_shape), 2)
    summed = reduce_sum(array_ops.reshape(grad, split_shape), axes)
    return [array_ops.reshape(summed, x.shape.as_list() if x.shape.is_fully_defined() else x_shape), None]


def tile(input: Any, multiples: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("Tile", [input, _int_vector(multiples)], name=name)


# --- ReverseV2 ------------------------------------------------------------------------------------
@register_op("ReverseV2", "ReverseV2", inputs=("tensor", "axis"), shape=same_as_input, portable=math_kernels.reverse)
def reverse_kernel(x: Any, axis: Any) -> Any:
    """y = x with the order of elements reversed along each axis in `axis`."""
    return np.ascontiguousarray(np.flip(x, builtins.tuple(int(a) for a in np.asarray(axis).reshape(-1))))


@register_gradient("ReverseV2")
def _reverse_grad(op: Any, grad: Any) -> list:
    """dx = reverse(grad, axis)."""
    return [reverse(grad, op.inputs[1]), None]


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Any:
    return apply_op("ReverseV2", [tensor, _int_vector(axis)], name=name)


# --- ShapeN, IdentityN ----------------------------------------------------------------------------
@register_op("ShapeN", "ShapeN", inputs=("*input",),
             shape=lambda inputs, attrs: [output_spec([t.shape.rank], attrs["out_type"]) for t in inputs],
             portable=array_kernels.shape_n)
def shape_n_kernel(*values: Any, N: int, out_type: Any) -> list:  # noqa: N803 - TensorFlow's attr name
    """y_i = the shape of x_i."""
    return [np.array(np.shape(v), dtype=out_type.as_numpy_dtype) for v in values]


NotDifferentiable("ShapeN")


def shape_n(input: list, out_type: Any = dtypes.int32, name: str | None = None) -> list:  # noqa: A002
    values = list(input)
    return apply_op("ShapeN", values, {"N": len(values), "out_type": dtypes.as_dtype(out_type)}, name=name)


@register_op("IdentityN", "IdentityN", inputs=("*input",),
             shape=lambda inputs, attrs: [output_spec(t.shape, t.dtype.base_dtype) for t in inputs])
def identity_n_kernel(*values: Any) -> list:
    """y_i = x_i."""
    return list(values)


@register_gradient("IdentityN")
def _identity_n_grad(op: Any, *grads: Any) -> list:
    """dx_i = dy_i."""
    return list(grads)


def identity_n(input: list, name: str | None = None) -> list:  # noqa: A002
    return apply_op("IdentityN", list(input), name=name)


# --- sequence_mask --------------------------------------------------------------------------------
def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes.bool, name: str | None = None) -> Any:
    """mask[i..., j] = j < lengths[i...], with j in [0, maxlen) (maxlen defaults to max(lengths))."""
    from webflow.ops.logic_ops import less
    from webflow.ops.math_ops import cast

    with op_scope(name or "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            axes = backend_values.vector(list(builtins.range(lengths.shape.rank)), dtypes.int32)
            maxlen = apply_op("Max", [lengths, axes], {"keep_dims": False}) if "Max" in _ops() else None
            if maxlen is None:
                raise NotImplementedError("sequence_mask without maxlen needs reduce_max (Max op)")
        maxlen = cast(convert_to_tensor(maxlen), lengths.dtype.base_dtype)
        index_type = lengths.dtype.base_dtype
        row = sequence_ops.range(backend_values.scalar(0, index_type), maxlen, backend_values.scalar(1, index_type))
        mask = less(row, expand_dims(lengths, -1))
        return mask if dtypes.as_dtype(dtype) is dtypes.bool else cast(mask, dtype)


def _ops() -> dict:
    from webflow.ops.registry import OPS

    return OPS


# --- TF2 signatures (argument order differs from TF1's) ---------------------------------------------
def transpose_v2(a: Any, perm: Any = None, conjugate: bool = False, name: str = "transpose") -> Any:
    return transpose(a, perm, name, conjugate)


def expand_dims_v2(input: Any, axis: Any, name: str | None = None) -> Any:  # noqa: A002
    return expand_dims(input, axis, name)


def squeeze_v2(input: Any, axis: Any = None, name: str | None = None) -> Any:  # noqa: A002
    return squeeze(input, axis, name)
