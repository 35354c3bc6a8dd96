"""Gathering by index tensors: `GatherV2` (tf.gather), `GatherNd`, its inverse `ScatterNd`, and
`boolean_mask` (a composite: reshape + Where + gather, as TensorFlow builds it).

The gradient of a gather along axis 0 is an `IndexedSlices` (the rows that were read, and their
incoming gradients) rather than a dense tensor mostly made of zeros: an embedding table with a
million rows gets a gradient the size of the batch.
"""

from __future__ import annotations

import builtins
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import gather as c_gather
from webflow.backends.portable import math_kernels
from webflow.framework import dtypes
from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, concat_ops
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
from webflow.ops.shapes import normalize_axis


def check_indices(indices: Any, limit: int) -> None:
    """Raises TensorFlow's message for the first index outside [0, limit)."""
    bad = np.argwhere((indices < 0) | (indices >= limit))
    if bad.size:
        position = builtins.tuple(int(i) for i in bad[0])
        where = ",".join(str(i) for i in position)
        raise IndexError(f"indices[{where}] = {int(indices[position])} is not in [0, {limit})")


# --- GatherV2 -------------------------------------------------------------------------------------
def _gather_shape(inputs: list, attrs: dict) -> tuple:
    params, indices, axis_t = inputs
    dtype = params.dtype.base_dtype
    axis = constant_value(axis_t)
    if attrs.get("batch_dims", 0) != 0:
        raise ShapeError("batch_dims other than 0 is not supported by webflow's GatherV2")
    if params.shape.rank is None or indices.shape.rank is None:
        return output_spec(None, dtype)
    if params.shape.rank == 0:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    if axis is None:
        return output_spec([None] * (params.shape.rank + indices.shape.rank - 1), dtype)
    dims = params.shape.as_tuple()
    axis = normalize_axis(int(axis), len(dims), "GatherV2")
    return output_spec(dims[:axis] + indices.shape.as_tuple() + dims[axis + 1:], dtype)


@register_op("GatherV2", "GatherV2", inputs=("params", "indices", "axis"), shape=_gather_shape, c=c_gather.gather,
             portable=math_kernels.gather)
def gather_kernel(params: Any, indices: Any, axis: Any, *, batch_dims: int = 0) -> Any:
    """y[a..., i..., b...] = params[a..., indices[i...], b...] (indices along `axis`)."""
    axis = int(axis) % np.ndim(params)
    check_indices(np.asarray(indices), np.shape(params)[axis])
    return np.take(params, indices, axis=axis)


@register_gradient("GatherV2")
def _gather_grad(op: Any, grad: Any) -> list:
    """Axis 0: IndexedSlices(values=grad rows, indices, dense_shape=shape(params)); else a segment sum."""
    from webflow.ops import manip_ops
    from webflow.ops.manip_ops import transpose

    params, indices, axis_t = op.inputs
    params_shape = array_ops.shape(params)
    axis = constant_value(axis_t)
    if axis is not None and int(axis) in (0, -params.shape.rank if params.shape.rank else 0):
        # TensorFlow's nodes: Size and ExpandDims of the indices' count, strided_slice of the shape's tail, concat,
        # Reshape of grad to [count, *tail] and Reshape_1 of the indices to [count]
        indices_size = manip_ops.expand_dims(array_ops.size(indices), 0)
        values_shape = concat_ops.concat([indices_size, params_shape[1:]], 0)
        values = array_ops.reshape(grad, values_shape)
        return [IndexedSlices(values, array_ops.reshape(indices, indices_size), params_shape), None, None]
    flat_indices = array_ops.reshape(indices, [-1])
    if axis is None or params.shape.rank is None or indices.shape.rank is None:
        raise ValueError(f"The gradient of {op.name} along a non-constant axis needs known ranks")
    # Move the indices' dims to the front, sum rows that share an index, move the axis back.
    axis = int(axis) % params.shape.rank
    rank_i, rank_p = indices.shape.rank, params.shape.rank
    grad_rank = rank_p + rank_i - 1
    front = list(builtins.range(axis, axis + rank_i)) + list(builtins.range(axis)) + \
        list(builtins.range(axis + rank_i, grad_rank))
    moved = transpose(grad, front)
    rows = array_ops.reshape(moved, concat_ops.concat([[-1], array_ops.shape(moved)[rank_i:]], 0))
    summed = array_ops.unsorted_segment_sum(rows, flat_indices, params_shape[axis])
    back = list(builtins.range(1, axis + 1)) + [0] + list(builtins.range(axis + 1, rank_p))
    return [transpose(summed, back), None, None]


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None, axis: Any = None,
           batch_dims: int = 0) -> Any:
    if batch_dims != 0:
        raise NotImplementedError("webflow's gather supports batch_dims=0 only")
    axis = backend_values.array(0 if axis is None else axis, dtypes.int32) if not hasattr(axis, "dtype") else axis
    return apply_op("GatherV2", [params, indices, axis], {"batch_dims": batch_dims}, name=name)


def gather_v2(params: Any, indices: Any, validate_indices: Any = None, axis: Any = None, batch_dims: int = 0,
              name: str | None = None) -> Any:
    return gather(params, indices, validate_indices, name, axis, batch_dims)


# --- GatherNd -------------------------------------------------------------------------------------
def _gather_nd_shape(inputs: list, attrs: dict) -> tuple:
    params, indices = inputs
    dtype = params.dtype.base_dtype
    if params.shape.rank is None or indices.shape.rank is None:
        return output_spec(None, dtype)
    depth = indices.shape.as_tuple()[-1] if indices.shape.rank else None
    if indices.shape.rank == 0:
        raise ShapeError("Shape must be at least rank 1 but is rank 0")
    if depth is None:
        return output_spec(None, dtype)
    if depth > params.shape.rank:
        raise ShapeError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: {indices.shape} "
                         f"and params shape: {params.shape}")
    return output_spec(indices.shape.as_tuple()[:-1] + params.shape.as_tuple()[depth:], dtype)


def _check_nd_indices(indices: Any, shape: tuple, op_type: str) -> None:
    depth = indices.shape[-1]
    flat = indices.reshape(-1, depth)
    bad = np.argwhere(((flat < 0) | (flat >= np.array(shape[:depth]))).any(axis=1))
    if bad.size:
        row = int(bad[0][0])
        position = ",".join(str(i) for i in np.unravel_index(row, indices.shape[:-1])) if indices.ndim > 1 else ""
        raise IndexError(f"indices[{position}] = [{', '.join(str(int(v)) for v in flat[row])}] does not index into "
                         f"param shape [{','.join(str(d) for d in shape)}]")


@register_op("GatherNd", "GatherNd", inputs=("params", "indices"), shape=_gather_nd_shape,
             portable=math_kernels.gather_nd)
def gather_nd_kernel(params: Any, indices: Any) -> Any:
    """y[i...] = params[indices[i..., 0], ..., indices[i..., K-1], ...]."""
    indices = np.asarray(indices)
    _check_nd_indices(indices, np.shape(params), "GatherNd")
    return np.array(params[builtins.tuple(np.moveaxis(indices, -1, 0))])


@register_gradient("GatherNd")
def _gather_nd_grad(op: Any, grad: Any) -> list:
    """dparams = scatter_nd(indices, grad, shape(params)) (repeated indices add up)."""
    params, indices = op.inputs
    return [scatter_nd(indices, grad, array_ops.shape(params, out_type=indices.dtype.base_dtype)), None]


def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0) -> Any:
    if batch_dims != 0:
        raise NotImplementedError("webflow's gather_nd supports batch_dims=0 only")
    return apply_op("GatherNd", [params, indices], name=name)


# --- ScatterNd ------------------------------------------------------------------------------------
def _scatter_nd_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(constant_value_as_shape(inputs[2]), inputs[1].dtype.base_dtype)


@register_op("ScatterNd", "ScatterNd", inputs=("indices", "updates", "shape"), shape=_scatter_nd_shape,
             same_dtype=(0, 2), portable=math_kernels.scatter_nd)
def scatter_nd_kernel(indices: Any, updates: Any, shape: Any) -> Any:
    """y = zeros(shape); y[indices[i..., :]] += updates[i...]."""
    shape = builtins.tuple(int(d) for d in shape)
    indices = np.asarray(indices)
    _check_nd_indices(indices, shape, "ScatterNd")
    out = np.zeros(shape, dtype=updates.dtype)
    np.add.at(out, builtins.tuple(np.moveaxis(indices, -1, 0)), updates)
    return out


@register_gradient("ScatterNd")
def _scatter_nd_grad(op: Any, grad: Any) -> list:
    """dupdates = gather_nd(grad, indices)."""
    return [None, gather_nd(grad, op.inputs[0]), None]


def scatter_nd(indices: Any, updates: Any, shape: Any, name: str | None = None) -> Any:
    if isinstance(shape, (list, builtins.tuple, TensorShape)):
        shape = backend_values.array(list(shape), dtypes.int32)
    return apply_op("ScatterNd", [indices, updates, shape], name=name)


# --- boolean_mask ---------------------------------------------------------------------------------
def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Any:
    """tensor's entries (along axis..axis+rank(mask)) where mask is True, flattened into one dim."""
    with op_scope(name):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        mask_rank = mask.shape.rank
        if mask_rank is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        if mask_rank == 0:
            raise ValueError("mask cannot be scalar.")
        axis = 0 if axis is None else int(axis)
        tensor_shape = tensor.shape
        if tensor_shape.rank is not None:
            axis = axis % tensor_shape.rank if axis < 0 else axis
            part = TensorShape(tensor_shape.as_tuple()[axis:axis + mask_rank])
            if not part.is_compatible_with(mask.shape):
                raise ValueError(f"Shapes {part} and {mask.shape} are incompatible")
        flat = _merge_mask_dims(tensor, axis, mask_rank)
        flat_mask = array_ops.reshape(mask, [-1])
        from webflow.ops import logic_ops  # noqa: F401 - registers the Where op

        indices = _squeeze_column(apply_op("Where", [flat_mask]))
        return gather(flat, indices, axis=axis)


def _merge_mask_dims(tensor: Any, axis: int, mask_rank: int) -> Any:
    """tensor with dims axis..axis+mask_rank-1 merged into one (TF reshapes the same way)."""
    dims = tensor.shape.as_tuple()
    if dims is not None and all(d is not None for i, d in enumerate(dims) if not axis <= i < axis + mask_rank):
        return array_ops.reshape(tensor, list(dims[:axis]) + [-1] + list(dims[axis + mask_rank:]))
    shape = array_ops.shape(tensor)
    target = concat_ops.concat([shape[:axis], [-1], shape[axis + mask_rank:]], 0)
    return array_ops.reshape(tensor, target)


def _squeeze_column(coordinates: Any) -> Any:
    from webflow.ops.manip_ops import squeeze

    return squeeze(coordinates, axis=[1])


# --- TF2 signatures (argument order differs from TF1's) ---------------------------------------------
def gather_nd_v2(params: Any, indices: Any, batch_dims: int = 0, name: str | None = None) -> Any:
    return gather_nd(params, indices, name, batch_dims)


def boolean_mask_v2(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    return boolean_mask(tensor, mask, name, axis)


# --- Unique (de-duplicates the indices of sparse gradients) ---------------------------------------------
def _unique_shape(inputs: list, attrs: dict) -> list:
    x = inputs[0]
    return [output_spec([None], x.dtype.base_dtype), output_spec(x.shape, attrs["out_idx"])]


@register_op("Unique", "Unique", inputs=("x",), shape=_unique_shape, portable=math_kernels.unique)
def unique_kernel(x: Any, *, out_idx: Any) -> list:
    """y = the distinct values of x in order of first appearance; idx[i] = position of x[i] in y."""
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # sorted position -> first-appearance position
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return [values[order], rank[inverse.reshape(-1)].astype(out_idx.as_numpy_dtype)]


NotDifferentiable("Unique")


def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> list:
    """`tf.unique`: (distinct values in order of first appearance, index of each x in them)."""
    return apply_op("Unique", [x], {"out_idx": dtypes.as_dtype(out_idx)}, name=name)
