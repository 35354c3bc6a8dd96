"""TensorFlow's sliding-window arithmetic (convolution and pooling) along one spatial axis, written once.

TensorFlow's GetWindowedOutputSize: a window of `window` cells dilated by `dilation` spans
effective = (window - 1) * dilation + 1 cells. With padding "SAME" the output has ceil(size / stride)
cells and pad_total = max((out - 1) * stride + effective - size, 0) cells of padding, pad_total // 2 of them
before (the odd one after). With "VALID" out = (size - effective + stride) / stride, truncating toward zero
as C++ does; "EXPLICIT" adds the given (before, after) pads to size first. The raw signed size is returned:
each caller raises its own TensorFlow-worded error (graph-build ShapeError, kernel InvalidArgumentError).

Kernels work in NHWC; `nhwc_dims` / `from_nhwc_dims` move a 4-entry dims tuple between NCHW and NHWC order
with the permutations `TO_NHWC` / `FROM_NHWC` (the backends' array transposes take them from here too), and
`spatial_hw` picks the (height, width) entries of a 4-entry attribute or shape; `get_sequence` makes such an
attribute (ksize, strides, dilations) from what the Python wrappers accept.

Plain Python, standard library only: the graph-build shape rules (ops/) and every backend use it.
"""

from __future__ import annotations

from typing import Any

TO_NHWC = (0, 2, 3, 1)     # NCHW -> NHWC: result axis i is source axis TO_NHWC[i]
FROM_NHWC = (0, 3, 1, 2)   # NHWC -> NCHW


def effective_window(window: int, dilation: int) -> int:
    """(window - 1) * dilation + 1: the cells a dilated window spans."""
    return (window - 1) * dilation + 1


def c_div(a: int, b: int) -> int:
    """a / b truncated toward zero, as C++ integer division (Python's // floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a >= 0) == (b > 0) else -quotient


def output_size(size: int, window: Any, stride: int, dilation: int, padding: str, pads: tuple = (0, 0)) -> int:
    """SAME: ceil(size / stride); VALID/EXPLICIT: trunc((size + pads - effective + stride) / stride), maybe < 0."""
    if padding == "SAME":
        return (size + stride - 1) // stride                  # the window does not matter (it may be unknown)
    before, after = pads if padding == "EXPLICIT" else (0, 0)
    return c_div(size + before + after - effective_window(window, dilation) + stride, stride)


def padding_before_after(size: int, window: int, stride: int, dilation: int, padding: str, out: int,
                         pads: tuple = (0, 0)) -> tuple:
    """SAME: t = max((out - 1) * stride + effective - size, 0) -> (t // 2, t - t // 2); EXPLICIT: pads; else (0, 0)."""
    if padding == "SAME":
        total = max((out - 1) * stride + effective_window(window, dilation) - size, 0)
        return total // 2, total - total // 2                 # the odd cell goes after, as in TensorFlow
    if padding == "EXPLICIT":
        return tuple(pads)
    return 0, 0


def nhwc_dims(dims: Any, data_format: str) -> tuple:
    """4 dims in NHWC order: NCHW (n, c, h, w) -> (n, h, w, c); NHWC, or not 4 dims, as they are."""
    dims = tuple(dims)
    return tuple(dims[i] for i in TO_NHWC) if data_format == "NCHW" and len(dims) == 4 else dims


def from_nhwc_dims(dims: Any, data_format: str) -> tuple:
    """4 NHWC dims in `data_format`'s order: (n, h, w, c) -> NCHW (n, c, h, w); NHWC, or not 4 dims, as they are."""
    dims = tuple(dims)
    return tuple(dims[i] for i in FROM_NHWC) if data_format == "NCHW" and len(dims) == 4 else dims


def spatial_hw(values: Any, data_format: str) -> tuple:
    """(height, width) entries of a 4-entry attribute or shape in `data_format` order: NCHW [2], [3]; NHWC [1], [2]."""
    return (values[2], values[3]) if data_format == "NCHW" else (values[1], values[2])


def get_sequence(value: Any, n: int, channel_index: int, name: str) -> list:
    """TF's _get_sequence: None, an int, or n or n + 2 ints as the n + 2 entries of a ksize/strides/dilations
    attribute (an int or n values apply to the spatial dims, 1 to the batch and channel dims)."""
    if value is None:
        return [1] * (n + 2)
    value = [value] if isinstance(value, int) else list(value)
    if len(value) == n + 2:
        return [int(v) for v in value]
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    value = [int(v) for v in value]
    return [1, 1] + value if channel_index == 1 else [1] + value + [1]
