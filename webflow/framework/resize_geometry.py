"""Where each output pixel of a resize reads from: TensorFlow's rules (core/kernels/image/image_resizer_state.h,
resize_bilinear_op.cc, resize_nearest_neighbor_op.cc), in float32 as TensorFlow computes them, for every backend.

scale = (in - 1) / (out - 1) with align_corners (and out > 1), else in / out.
Bilinear: source = (i + 0.5) * scale - 0.5 with half_pixel_centers, else i * scale; it reads rows
max(floor(source), 0) and min(ceil(source), in - 1), weighted by lerp = source - floor(source).
Nearest: source = (i + 0.5) * scale with half_pixel_centers (no - 0.5), else i * scale; it reads
min(round(source) if align_corners else floor(source), in - 1), at least 0.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from webflow.framework.errors import InvalidArgumentError

_FLOAT32 = struct.Struct("f")


def f32(value: float) -> float:
    """`value` rounded to float32 (each step of TensorFlow's computation is a float32 operation)."""
    return _FLOAT32.unpack(_FLOAT32.pack(value))[0]


def resize_scale(in_size: int, out_size: int, align_corners: bool) -> float:
    if align_corners and out_size > 1:
        return f32(f32(in_size - 1) / f32(out_size - 1))
    return f32(f32(in_size) / f32(out_size))


def bilinear_weights(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> tuple:
    """(lower, upper, lerp): per output index, the two source indices and the weight of the upper one."""
    scale = resize_scale(in_size, out_size, align_corners)
    lower, upper, lerp = [], [], []
    for i in range(out_size):
        source = f32(f32(f32(i + 0.5) * scale) - 0.5) if half_pixel_centers else f32(i * scale)
        floor = math.floor(source)
        lower.append(max(floor, 0))
        upper.append(min(math.ceil(source), in_size - 1))
        lerp.append(f32(source - floor))
    return lower, upper, lerp


def nearest_indices(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> list:
    """Per output index, the source index nearest neighbour resizing copies."""
    scale = resize_scale(in_size, out_size, align_corners)
    indices = []
    for i in range(out_size):
        source = f32(f32(i + 0.5) * scale) if half_pixel_centers else f32(i * scale)
        # roundf rounds halves away from zero; sources are never negative here
        index = math.floor(source + 0.5) if align_corners else math.floor(source)
        index = min(index, in_size - 1)
        indices.append(max(index, 0) if half_pixel_centers else index)
    return indices


def check_resize(images: Any, size: Any, align_corners: bool, half_pixel_centers: bool) -> tuple:
    """(height, width) of the output, or TensorFlow's run-time InvalidArgumentError."""
    if half_pixel_centers and align_corners:
        raise InvalidArgumentError(None, None, "If half_pixel_centers is True, align_corners must be False.")
    if len(images.shape) != 4:
        dims = ",".join(str(d) for d in images.shape)
        raise InvalidArgumentError(None, None, f"input must be 4-dimensional[{dims}]")
    sizes = [int(v) for v in (size.tolist() if hasattr(size, "tolist") else size)]
    if len(sizes) != 2:
        raise InvalidArgumentError(None, None, f"shape_t must have two elements[{len(sizes)}]")
    if sizes[0] <= 0 or sizes[1] <= 0:
        raise InvalidArgumentError(None, None, "output dimensions must be positive")
    return sizes[0], sizes[1]
