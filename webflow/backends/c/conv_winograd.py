"""Winograd convolution (webflow/wasm/conv_winograd.c): C signature, when it applies, and its threaded calls.

For stride-1 convolutions with square 3x3 or 5x5 filters and enough channels, the Conv2D,
Conv2DBackpropInput and Conv2DBackpropFilter adapters (backends/c/conv.py) and the fused conv + bias + relu
(+ MaxPool) kernels and fused pooling + filter gradient take this path instead of the direct convolution
(conv_direct.py): it does 2.8x (5x5) or 4x (3x3) fewer multiply-adds, in 36 batched matrix products, at the
cost of transforming inputs, filter and outputs. `applies(shape)` is the choice. The input gradient is the
forward convolution of the output gradient with the filter flipped in space and transposed in channels (as
conv_direct.input_grad builds it); the filter gradient has its own C kernel on the forward's input tiles.
"""

from __future__ import annotations

import ctypes
import math
import os
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c.adapters import check, empty, fn, ptr
from webflow.backends.c.conv_direct import flipped_filter
from webflow.backends.c.conv_shape import Conv2DShape
from webflow.backends.c.library import INT, PTR, SIZE, declare
from webflow.backends.c.reduce import whole_sum_f32
from webflow.framework import dtypes

declare("wf_conv2d_winograd_tile", [PTR], SIZE)
declare("wf_conv2d_winograd_filter_floats", [PTR], SIZE)
declare("wf_conv2d_winograd_workspace_f32", [PTR], SIZE)
declare("wf_conv2d_winograd_f32", [PTR, PTR, PTR, PTR, INT, PTR, PTR, PTR, PTR, PTR, SIZE, SIZE], INT)

ENABLED = os.environ.get("WEBFLOW_WINOGRAD", "1") != "0"  # 0: the direct convolution only (before/after timings)
# Below these the transforms cost more than the multiply-adds they save: with few input channels a tile's
# products are short (the CNNs' first layers, 1 channel, stay direct), with few output channels the input
# transform is shared by too few of them (timings: benchmarks/FIGURES.md, "Winograd convolution").
MIN_IN_CHANNELS = 16
MIN_OUT_CHANNELS = 16
MIN_IMAGES_PER_THREAD = 2
MIN_TILE_USE = 0.5  # outputs inside the image / outputs the tiles compute (a 3x3 output in one 4x4 tile: 0.56)
# A thread transforms whole images: one image's transformed inputs and products (36 x tiles x channels each)
# should stay in its core's cache. Larger images keep the direct convolution (cutting an image into bands of
# tiles would lift this).
MAX_TILES_PER_IMAGE = 256


def applies(shape: Conv2DShape) -> bool:
    """Whether the forward convolution `shape` runs as Winograd: stride 1, no dilation, 3x3 or 5x5 filters,
    enough channels, and tiles that mostly fall inside the output."""
    if not ENABLED or shape.in_channels < MIN_IN_CHANNELS or shape.out_channels < MIN_OUT_CHANNELS:
        return False
    side = fn("wf_conv2d_winograd_tile")(ctypes.byref(shape))
    if side <= 0:
        return False
    tiles = -(-shape.out_height // side) * -(-shape.out_width // side)
    return tiles <= MAX_TILES_PER_IMAGE and shape.out_height * shape.out_width >= MIN_TILE_USE * tiles * side * side


def all_finite(*arrays: Any) -> bool:
    """Whether every value of these float32 arrays is finite (their sums are; an overflowing sum only sends a
    call to the direct path). Winograd's transforms mix the values of a whole tile (d0 - d2, ...), so one Inf or
    NaN input would make up to 16 outputs NaN, where TensorFlow's direct convolution spoils only the outputs
    whose windows hold it: such calls take the direct path."""
    return all(math.isfinite(whole_sum_f32(array)) for array in arrays)


def filter_grad_applies(shape: Conv2DShape) -> bool:
    """Whether the filter gradient of the forward convolution `shape` runs as Winograd (the same tiles)."""
    return applies(shape)


def input_grad_applies(shape: Conv2DShape) -> bool:
    """Whether the input gradient of the forward convolution `shape` runs as Winograd."""
    return shape.stride_height == 1 and shape.stride_width == 1 and shape.dilation_height == 1 \
        and shape.dilation_width == 1 and applies(input_grad_shape(shape))


def input_grad_shape(shape: Conv2DShape) -> Conv2DShape:
    """The forward geometry of the input gradient of the stride-1 convolution `shape`: the output gradient
    convolved with the flipped, transposed filter, padded by (k - 1) - pad before (conv_direct.input_grad)."""
    kh, kw = shape.filter_height, shape.filter_width
    return Conv2DShape(
        shape.batch, shape.out_height, shape.out_width, shape.out_channels, kh, kw, shape.in_channels, 1, 1,
        shape.dilation_height, shape.dilation_width, (kh - 1) * shape.dilation_height - shape.pad_top,
        (kw - 1) * shape.dilation_width - shape.pad_left, shape.in_height, shape.in_width)


def _threads(shape: Conv2DShape) -> int:
    return max(1, min(parallel.threads(), shape.batch // MIN_IMAGES_PER_THREAD)) if HAVE_NUMPY else 1


def forward(shape: Conv2DShape, input: Any, filter: Any, out: Any, bias: Any = None,  # noqa: A002 - TF's names
            relu: bool = False, pool: Conv2DShape | None = None, pooled: Any = None) -> Any:
    """out = conv2d(input, filter) (C-contiguous float32); with a `bias`, + bias then max(., 0) if `relu`; with
    a `pool` geometry also pooled = MaxPool(out): the same contract as conv_direct.forward."""
    geometry = ctypes.byref(shape)
    threads, work_len = _threads(shape), fn("wf_conv2d_winograd_workspace_f32")(geometry)
    work = empty(threads * work_len, dtypes.float32)
    transformed = empty(fn("wf_conv2d_winograd_filter_floats")(geometry), dtypes.float32)
    check(fn("wf_conv2d_winograd_f32")(
        geometry, ptr(input), ptr(filter), None if bias is None else ptr(bias), int(relu),
        None if pool is None else ctypes.byref(pool), ptr(out), None if pooled is None else ptr(pooled),
        ptr(transformed), ptr(work), work_len, threads), "wf_conv2d_winograd_f32")
    return out


def input_grad(shape: Conv2DShape, filter: Any, out_backprop: Any, out: Any) -> Any:  # noqa: A002
    """dx of the stride-1 convolution `shape` (C-contiguous float32 filter and output gradient): the forward
    Winograd convolution of out_backprop with the filter flipped and transposed (conv_direct.flipped_filter)."""
    return forward(input_grad_shape(shape), out_backprop, flipped_filter(filter), out)


declare("wf_conv2d_winograd_grad_floats", [PTR], SIZE)
declare("wf_conv2d_winograd_filter_workspace_f32", [PTR], SIZE)
declare("wf_conv2d_winograd_filter_grad_f32",
        [PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, SIZE, PTR, PTR, SIZE, SIZE], INT)
FILTER_SLICES_PER_THREAD = 2  # fixed slices of the batch, summed in order (as conv_direct.filter_grad)


def filter_grad(shape: Conv2DShape, input: Any, out_backprop: Any, filter_shape: tuple,  # noqa: A002
                pool: tuple | None = None) -> Any:
    """dfilter [kh, kw, in, out] of the convolution `shape`; the same contract as conv_direct.filter_grad: with
    `pool` = (its geometry, the conv's Relu output, the pooled output's gradient), out_backprop is None and the
    result is (dfilter, the output gradient's per-channel sums)."""
    geometry = ctypes.byref(shape)
    threads, work_len = _threads(shape), fn("wf_conv2d_winograd_filter_workspace_f32")(geometry)
    slices = max(1, min(threads * FILTER_SLICES_PER_THREAD, shape.batch)) if HAVE_NUMPY else 1
    grads = empty(slices * fn("wf_conv2d_winograd_grad_floats")(geometry), dtypes.float32)
    work = empty(threads * work_len, dtypes.float32)
    out = empty(filter_shape, dtypes.float32)
    sums = partials = None
    if pool is None:
        sources: tuple = (ptr(out_backprop), None, None, None, None, None)
    else:
        pool_shape, pool_input, pooled_grad = pool
        sums = empty((shape.out_channels,), dtypes.float32)
        partials = empty((shape.batch, shape.out_channels), dtypes.float32)
        sources = (None, ctypes.byref(pool_shape), ptr(pool_input), ptr(pooled_grad), ptr(sums), ptr(partials))
    check(fn("wf_conv2d_winograd_filter_grad_f32")(geometry, ptr(input), *sources, ptr(grads), slices, ptr(out),
                                                   ptr(work), work_len, threads), "wf_conv2d_winograd_filter_grad_f32")
    return out if pool is None else (out, sums)
