"""SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace as one reshape, one transpose and one reshape
(plus zero padding before or a crop after), and their checks in TensorFlow's words.

The *plans* (pure Python on shapes) are shared by the NumPy kernels (ops/space_batch_ops.py) and the no-NumPy
kernels below, so both backends move the same elements and refuse the same inputs with the same messages.

    space_to_batch_plan((1, 4, 4, 1), [2, 2], [(0, 0), (0, 0)]).perm == [2, 4, 0, 1, 3, 5]
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import flat_ints
from webflow.backends.portable import array_kernels
from webflow.framework.errors import InvalidArgumentError


class Plan(NamedTuple):
    """x (padded by `pads`, one (before, after) per axis) -> reshape(split) -> transpose(perm) -> reshape(merged),
    then cropped to `begin` / `size` (None: no crop)."""

    pads: list
    split: list
    perm: list
    merged: list
    begin: list | None = None
    size: list | None = None


def _refuse(message: str) -> None:
    raise InvalidArgumentError(None, None, message)


def _block_and_pairs(shape: tuple, block_shape: Any, pairs: Any, name: str) -> tuple:
    """block_shape as a list of M ints and `pairs` (paddings or crops) as M (before, after) pairs, checked."""
    blocks, flat = flat_ints(block_shape), flat_ints(pairs)
    if len(getattr(block_shape, "shape", (len(blocks),))) != 1:
        _refuse(f"block_shape rank should be 1 instead of {len(block_shape.shape)}")
    if len(flat) != 2 * len(blocks) or tuple(getattr(pairs, "shape", (len(blocks), 2))) != (len(blocks), 2):
        shown = ",".join(str(d) for d in getattr(pairs, "shape", (len(flat) // 2, 2)))
        _refuse(f"{name} should have shape [{len(blocks)}, 2] instead of [{shown}]")
    if len(shape) < 1 + len(blocks):
        _refuse(f"input rank should be >= {1 + len(blocks)} instead of {len(shape)}")
    return blocks, list(zip(flat[0::2], flat[1::2]))


def space_to_batch_plan(shape: tuple, block_shape: Any, paddings: Any) -> Plan:
    """y[(b_1..b_M, n), s_1..s_M, rest] = xpad[n, s_1*B_1 + b_1, ..., s_M*B_M + b_M, rest]."""
    blocks, pairs = _block_and_pairs(shape, block_shape, paddings, "paddings")
    for i, block in enumerate(blocks):
        if block < 1:
            _refuse(f"All values in block_shape must be positive, got value, {block} at index {i}.")
    if any(before < 0 or after < 0 for before, after in pairs):
        _refuse("Paddings must be non-negative")
    m, rest = len(blocks), list(shape[1 + len(blocks):])
    padded = [shape[1 + i] + before + after for i, (before, after) in enumerate(pairs)]
    for i, (size, block) in enumerate(zip(padded, blocks)):
        if size % block:
            _refuse(f"padded_shape[{i}]={size} is not divisible by block_shape[{i}]={block}")
    split = [shape[0]] + [d for size, block in zip(padded, blocks) for d in (size // block, block)] + rest
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        [1 + 2 * m + j for j in range(len(rest))]
    merged = [shape[0] * math.prod(blocks)] + [size // block for size, block in zip(padded, blocks)] + rest
    return Plan([(0, 0)] + pairs + [(0, 0)] * len(rest), split, perm, merged)


def batch_to_space_plan(shape: tuple, block_shape: Any, crops: Any) -> Plan:
    """The inverse of SpaceToBatchND: y = crop(x moved back from the batch into s_i*B_i + b_i)."""
    blocks, pairs = _block_and_pairs(shape, block_shape, crops, "crops")
    product = math.prod(blocks)
    if product <= 0:
        _refuse(f"Product of block sizes must be positive, got {product}")
    if any(before < 0 or after < 0 for before, after in pairs):
        _refuse("Crops must be non-negative")
    if shape[0] % product:
        _refuse(f"Input batch dimension ({shape[0]}) is not divisible by product of block sizes ({product})")
    m, rest, batch = len(blocks), list(shape[1 + len(blocks):]), shape[0] // product
    spatial = [shape[1 + i] * block for i, block in enumerate(blocks)]
    for i, (size, (before, after)) in enumerate(zip(spatial, pairs)):
        if size - before - after < 0:
            _refuse(f"cropped_shape[{i}]={size - before - after} must be non-negative")
    split = blocks + [batch] + list(shape[1:1 + m]) + rest
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)] + [1 + 2 * m + j for j in range(len(rest))]
    merged = [batch] + spatial + rest
    begin = [0] + [before for before, _ in pairs] + [0] * len(rest)
    size = [batch] + [s - before - after for s, (before, after) in zip(spatial, pairs)] + rest
    return Plan([(0, 0)] * len(shape), split, perm, merged, begin, size)


def _nhwc(shape: tuple, block_size: int, data_format: str) -> tuple:
    if data_format != "NHWC":
        _refuse(f"Only NHWC data_format is supported on CPU, got {data_format}")
    if len(shape) != 4:
        _refuse(f"Input rank should be 4 instead of {len(shape)}")
    return tuple(shape)


def space_to_depth_plan(shape: tuple, block_size: int, data_format: str) -> Plan:
    """y[n, i, j, (p*B + q)*C + c] = x[n, i*B + p, j*B + q, c]."""
    n, h, w, c = _nhwc(shape, block_size, data_format)
    if h % block_size or w % block_size:
        _refuse(f"Image width {w} and height {h} should be divisible by block_size: {block_size}")
    b = block_size
    return Plan([(0, 0)] * 4, [n, h // b, b, w // b, b, c], [0, 1, 3, 2, 4, 5], [n, h // b, w // b, b * b * c])


def depth_to_space_plan(shape: tuple, block_size: int, data_format: str) -> Plan:
    """y[n, i*B + p, j*B + q, c] = x[n, i, j, (p*B + q)*C' + c] with C' = C / B^2."""
    n, h, w, c = _nhwc(shape, block_size, data_format)
    b = block_size
    if c % (b * b):
        _refuse(f"Input depth dimension {c} should be divisible by: {b * b}")
    return Plan([(0, 0)] * 4, [n, h, w, b, b, c // (b * b)], [0, 1, 3, 2, 4, 5], [n, h * b, w * b, c // (b * b)])


def apply_plan(x: CArray, plan: Plan) -> CArray:
    """The plan's pad, reshape, transpose, reshape and crop on a CArray."""
    if any(before or after for before, after in plan.pads):
        x = array_kernels.pad(x, [v for pair in plan.pads for v in pair])
    moved = array_kernels.transpose(x.reshape(plan.split), plan.perm).reshape(plan.merged)
    return moved if plan.begin is None else array_kernels.slice_(moved, plan.begin, plan.size)


def space_to_batch_nd(x: Any, block_shape: Any, paddings: Any) -> CArray:
    return apply_plan(x, space_to_batch_plan(x.shape, block_shape, paddings))


def batch_to_space_nd(x: Any, block_shape: Any, crops: Any) -> CArray:
    return apply_plan(x, batch_to_space_plan(x.shape, block_shape, crops))


def space_to_depth(x: Any, *, block_size: int, data_format: str = "NHWC") -> CArray:
    return apply_plan(x, space_to_depth_plan(x.shape, block_size, data_format))


def depth_to_space(x: Any, *, block_size: int, data_format: str = "NHWC") -> CArray:
    return apply_plan(x, depth_to_space_plan(x.shape, block_size, data_format))
