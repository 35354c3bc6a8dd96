"""Moving space into the batch or the depth and back: SpaceToBatchND / BatchToSpaceND (what dilated convolutions
run on: `tf.nn.with_space_to_batch`) and SpaceToDepth / DepthToSpace, each the other's gradient. One stanza per op
(shape rule, NumPy kernel with the math in its docstring, gradient rule); the element moves and run-time checks are
backends/portable/space_batch_kernels.py's plans, shared with the no-NumPy kernels.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import space_batch_kernels as portable
from webflow.framework import dtypes
from webflow.ops.convert import constant_value
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op

VALUE_TYPES = dtypes.NUMERIC + (dtypes.bool,)


def known_ints(tensor: Any) -> list | None:
    """A tensor's value as a flat list of ints when it is known at build time (a Const, a static Shape), else None."""
    value = constant_value(tensor)
    return None if value is None else [int(v) for v in backend_values.flat_list(value)]


def _apply_numpy_plan(x: Any, plan: portable.Plan) -> Any:
    if any(before or after for before, after in plan.pads):
        x = np.pad(x, plan.pads)
    moved = x.reshape(plan.split).transpose(plan.perm).reshape(plan.merged)
    if plan.begin is None:
        return moved
    return moved[tuple(slice(b, b + s) for b, s in zip(plan.begin, plan.size))]


# --- the shared shape rule of SpaceToBatchND and BatchToSpaceND -----------------------------------
def _block_geometry(inputs: list, what: str) -> tuple:
    """(input dims or None, M or None, blocks or None, pairs or None) after TensorFlow's static checks."""
    x, block_t, pairs_t = inputs
    if block_t.shape.rank != 1:  # (TensorFlow refuses an unknown rank here too)
        raise ShapeError("block_shape must have rank 1.")
    m = block_t.shape.as_tuple()[0]
    if m is None:
        raise ShapeError("block_shape must have known size.")
    if m is not None and pairs_t.shape.rank == 2 and pairs_t.shape.as_tuple()[0] not in (None, m):
        rows = pairs_t.shape.as_tuple()[0]
        raise ShapeError(f"Dimension 0 in both shapes must be equal, but are {rows} and {m}. "
                         f"Shapes are [{rows},2] and [{m},2].")
    dims = x.shape.as_tuple() if x.shape.rank is not None else None
    if dims is not None and m is not None and len(dims) < 1 + m:
        raise ShapeError(f"Shape must be at least rank {1 + m} but is rank {len(dims)}")
    blocks, flat = known_ints(block_t), known_ints(pairs_t)
    if blocks is not None and any(b < 1 for b in blocks):
        raise ShapeError("block_shape must be positive")
    if flat is not None and min(flat, default=0) < 0:
        raise ShapeError(f"{what} cannot be negative")
    return dims, m, blocks, None if flat is None else list(zip(flat[0::2], flat[1::2]))


def _evenly(size: int | None, block: int) -> int | None:
    if size is not None and size % block:
        raise ShapeError(f"Dimension size must be evenly divisible by {block} but is {size}")
    return None if size is None else size // block


def _divided(size: int | None, blocks: list) -> int | None:
    """size / prod(blocks), one block at a time as TensorFlow checks it (so its message names one block)."""
    for block in blocks:
        size = _evenly(size, block)
    return size


def _space_to_batch_shape(inputs: list, attrs: dict) -> tuple:
    dims, m, blocks, pairs = _block_geometry(inputs, "paddings")
    dtype = inputs[0].dtype.base_dtype
    if dims is None:
        return output_spec(None, dtype)
    spatial: list = [None] * m
    if blocks is not None and pairs is not None:
        spatial = [_evenly(None if d is None else d + before + after, block)
                   for d, block, (before, after) in zip(dims[1:1 + m], blocks, pairs)]
    batch = None if blocks is None or dims[0] is None else dims[0] * math.prod(blocks)
    return output_spec([batch, *spatial, *dims[1 + m:]], dtype)


def _batch_to_space_shape(inputs: list, attrs: dict) -> tuple:
    dims, m, blocks, pairs = _block_geometry(inputs, "crops")
    dtype = inputs[0].dtype.base_dtype
    if dims is None:
        return output_spec(None, dtype)
    batch = None if blocks is None else _divided(dims[0], blocks)
    spatial: list = [None] * m
    if blocks is not None and pairs is not None:
        spatial = [None if d is None else d * block - before - after
                   for d, block, (before, after) in zip(dims[1:1 + m], blocks, pairs)]
        for i, size in enumerate(spatial):
            if size is not None and size < 0:
                raise ShapeError(f"cropped_shape[{i}]={size} must be non-negative")
    return output_spec([batch, *spatial, *dims[1 + m:]], dtype)


# --- SpaceToBatchND, BatchToSpaceND --------------------------------------------------------------------
@register_op("SpaceToBatchND", "SpaceToBatchND", inputs=("input", "block_shape", "paddings"),
             shape=_space_to_batch_shape, allowed=VALUE_TYPES, portable=portable.space_to_batch_nd)
def space_to_batch_nd_kernel(x: Any, block_shape: Any, paddings: Any) -> Any:
    """y[(b_1..b_M, n), s_1..s_M, ...] = pad(x)[n, s_1*B_1 + b_1, ..., s_M*B_M + b_M, ...] (B = block_shape)."""
    return _apply_numpy_plan(x, portable.space_to_batch_plan(x.shape, block_shape, paddings))


@register_gradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op: Any, grad: Any) -> list:
    """dx = BatchToSpaceND(dy, block_shape, crops=paddings): the same elements moved back, the padding dropped."""
    return [apply_op("BatchToSpaceND", [grad, op.inputs[1], op.inputs[2]]), None, None]


@register_op("BatchToSpaceND", "BatchToSpaceND", inputs=("input", "block_shape", "crops"),
             shape=_batch_to_space_shape, allowed=VALUE_TYPES, portable=portable.batch_to_space_nd)
def batch_to_space_nd_kernel(x: Any, block_shape: Any, crops: Any) -> Any:
    """y = crop(z), z[n, s_1*B_1 + b_1, ..., ...] = x[(b_1..b_M, n), s_1, ..., s_M, ...]: SpaceToBatchND undone."""
    return _apply_numpy_plan(x, portable.batch_to_space_plan(x.shape, block_shape, crops))


@register_gradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op: Any, grad: Any) -> list:
    """dx = SpaceToBatchND(dy, block_shape, paddings=crops): the cropped positions get zero gradient."""
    return [apply_op("SpaceToBatchND", [grad, op.inputs[1], op.inputs[2]]), None, None]


# --- SpaceToDepth, DepthToSpace ------------------------------------------------------------------------
def _depth_shape(to_depth: bool) -> Any:
    def rule(inputs: list, attrs: dict) -> tuple:
        x, b = inputs[0], attrs["block_size"]
        dtype = x.dtype.base_dtype
        if x.shape.rank is None:
            return output_spec([None] * 4, dtype)
        if x.shape.rank != 4:
            raise ShapeError(f"Shape must be rank 4 but is rank {x.shape.rank}")
        n, h, w, c = x.shape.as_tuple()
        if to_depth:
            return output_spec([n, _evenly(h, b), _evenly(w, b), None if c is None else c * b * b], dtype)
        return output_spec([n, None if h is None else h * b, None if w is None else w * b, _evenly(c, b * b)],
                           dtype)

    return rule


@register_op("SpaceToDepth", "SpaceToDepth", inputs=("input",), shape=_depth_shape(True), allowed=VALUE_TYPES,
             portable=portable.space_to_depth)
def space_to_depth_kernel(x: Any, *, block_size: int, data_format: str = "NHWC") -> Any:
    """y[n, i, j, (p*B + q)*C + c] = x[n, i*B + p, j*B + q, c] (B = block_size)."""
    return _apply_numpy_plan(x, portable.space_to_depth_plan(x.shape, block_size, data_format))


@register_gradient("SpaceToDepth")
def _space_to_depth_grad(op: Any, grad: Any) -> list:
    """dx = DepthToSpace(dy): each element goes back where it came from."""
    return [depth_to_space(grad, op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


@register_op("DepthToSpace", "DepthToSpace", inputs=("input",), shape=_depth_shape(False), allowed=VALUE_TYPES,
             portable=portable.depth_to_space)
def depth_to_space_kernel(x: Any, *, block_size: int, data_format: str = "NHWC") -> Any:
    """y[n, i*B + p, j*B + q, c] = x[n, i, j, (p*B + q)*C' + c] with C' = C / B^2."""
    return _apply_numpy_plan(x, portable.depth_to_space_plan(x.shape, block_size, data_format))


@register_gradient("DepthToSpace")
def _depth_to_space_grad(op: Any, grad: Any) -> list:
    """dx = SpaceToDepth(dy)."""
    return [space_to_depth(grad, op.get_attr("block_size"), data_format=op.get_attr("data_format"))]


# --- TensorFlow-named wrappers -------------------------------------------------------------------------
def space_to_batch_nd(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("SpaceToBatchND", [input, block_shape, paddings], name=name)


def batch_to_space_nd(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("BatchToSpaceND", [input, block_shape, crops], name=name)


def _square_block(block_size: Any, block_shape: Any) -> Any:
    """TF1's one `block_size` for both spatial axes, as the int64 vector TensorFlow passes."""
    if block_size is not None and block_shape is not None:
        raise ValueError("Cannot specify both 'block_shape' and 'block_size'")
    size = block_size if block_size is not None else block_shape
    return backend_values.array([size, size], dtypes.int64) if isinstance(size, int) else size


def space_to_batch(input: Any, paddings: Any, block_size: Any = None, name: str | None = None,  # noqa: A002
                   block_shape: Any = None) -> Any:
    """TF1 `tf.space_to_batch`: 4-D input, one block size for height and width."""
    result = space_to_batch_nd(input, _square_block(block_size, block_shape), paddings, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def space_to_batch_v2(input: Any, block_shape: Any, paddings: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF2 `tf.space_to_batch`: SpaceToBatchND."""
    return space_to_batch_nd(input, block_shape, paddings, name=name)


def batch_to_space(input: Any, crops: Any, block_size: Any, name: str | None = None,  # noqa: A002
                   block_shape: Any = None) -> Any:
    """TF1 `tf.batch_to_space`: 4-D input, one block size for height and width."""
    result = batch_to_space_nd(input, _square_block(block_size, block_shape), crops, name=name)
    result.set_shape(result.shape.with_rank(4))
    return result


def batch_to_space_v2(input: Any, block_shape: Any, crops: Any, name: str | None = None) -> Any:  # noqa: A002
    """TF2 `tf.batch_to_space`: BatchToSpaceND (an int block_shape means the same block on both axes)."""
    if isinstance(block_shape, int):
        block_shape = backend_values.array([block_shape, block_shape], dtypes.int64)
    return batch_to_space_nd(input, block_shape, crops, name=name)


def _depth_op(op_type: str, input: Any, block_size: int, data_format: str, name: str | None) -> Any:  # noqa: A002
    if int(block_size) < 2:
        raise ValueError(f"Attr 'block_size' of '{op_type}' Op passed {block_size} less than minimum 2.")
    return apply_op(op_type, [input], {"block_size": int(block_size), "data_format": data_format}, name=name)


def space_to_depth(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Any:
    """TF1 `tf.space_to_depth` (TF2's `tf.nn.space_to_depth` takes data_format before name)."""
    return _depth_op("SpaceToDepth", input, block_size, data_format, name)


def space_to_depth_v2(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                      name: str | None = None) -> Any:
    return _depth_op("SpaceToDepth", input, block_size, data_format, name)


def depth_to_space(input: Any, block_size: int, name: str | None = None,  # noqa: A002
                   data_format: str = "NHWC") -> Any:
    """TF1 `tf.depth_to_space` (TF2's `tf.nn.depth_to_space` takes data_format before name)."""
    return _depth_op("DepthToSpace", input, block_size, data_format, name)


def depth_to_space_v2(input: Any, block_size: int, data_format: str = "NHWC",  # noqa: A002
                      name: str | None = None) -> Any:
    return _depth_op("DepthToSpace", input, block_size, data_format, name)
