"""The direct convolution (webflow/wasm/conv_direct.c): C signatures, when it applies, and its threaded calls.

The Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter adapters (backends/c/conv.py) take this path when it
applies and fall back to im2col + GEMM otherwise. It reads each window in place from a zero-padded copy of
one image, so no patch matrix is built. Measured on the Deep MNIST CNN's conv2 (batch 50, 5x5x32 -> 64,
1 GFLOP per op, one thread, min of 12, native avx512 build on a 2-vCPU Xeon whose FMA loop peaks at 180
GFLOP/s per core): forward 6.0 ms (NumPy im2col + OpenBLAS: 9.6), input gradient 6.0 (OpenBLAS + C col2im:
9.5), filter gradient 7.6 (NumPy: 10.8); that is ~130-165 GFLOP/s against im2col + OpenBLAS
at ~60-90 GFLOP/s. It applies when
  - the output channels are a multiple of `lanes()` (16 floats natively with AVX-512, 8 with AVX2, 4 in
    wasm): a tile's columns are whole vectors;
  - for the input gradient, the strides are 1: it is then the convolution of the output gradient with the
    filter flipped in space and with its channel axes swapped;
  - for the filter gradient, rounding a window row's taps x channels up to whole tiles at most triples the
    sums (the CNN's conv1, 5 taps x 1 channel in half tiles of 7 rows: 1.4x; a 3x3 window of 1 channel in
    half tiles of 14 rows, 16 output channels: 4.7x, left to im2col + NumPy).
Threads: one C call runs on `parallel.threads()` threads of the C library (webflow/wasm/parallel.c), each
with its own workspace, all claiming work from one counter: the next image (forward, input gradient) or
the next fixed slice of the batch (filter gradient: each slice's gradient is kept apart and the slices are
added in order, so the result does not depend on which thread ran which). This replaced slices handed out
in Python, whose per-slice cost showed (conv2 forward, batch 50, 2 threads: 2 slices 3.32 ms, 8 slices
3.59, 16 slices 4.55), and then Python's thread pool, whose worker starts 40-70 us late (conv2 forward,
batch 50, 2 threads, min of 100 interleaved: 2.84-3.11 -> 2.76-3.04 ms); a thread that starts late or
runs slower simply takes fewer images.
Inside Pyodide (wasm, 4-float vectors, no NumPy, one thread) the forward and filter-gradient paths apply too
(output channels a multiple of 4), and the input gradient too (its flipped filter built by array slices).
Measured in Pyodide/Node, the MNIST page's conv net (TensorFlow.js's example: 5x5x1->8 and 5x5x8->16, batch
64, one SGD step, load average ~7 on 2 cores): im2col 22.9 ms -> direct forward and filter gradient 10.9 ms.
"""

from __future__ import annotations

import ctypes
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import parallel
from webflow.backends.c.adapters import aligned, check, empty, fn, ptr
from webflow.backends.c.conv_shape import Conv2DShape
from webflow.backends.c.library import INT, PTR, SIZE, declare
from webflow.framework import dtypes

declare("wf_conv2d_direct_lanes", [], SIZE)
declare("wf_conv2d_direct_workspace_f32", [PTR], SIZE)
declare("wf_conv2d_direct_filter_workspace_f32", [PTR], SIZE)
declare("wf_conv2d_direct_filter_rows", [PTR], SIZE)
declare("wf_conv2d_direct_f32", [PTR, PTR, PTR, PTR, PTR, SIZE, SIZE], INT)
declare("wf_conv2d_direct_bias_relu_f32", [PTR, PTR, PTR, PTR, INT, PTR, PTR, SIZE, SIZE], INT)
declare("wf_conv2d_direct_bias_relu_pool_f32", [PTR, PTR, PTR, PTR, INT, PTR, PTR, PTR, PTR, SIZE, SIZE], INT)
declare("wf_conv2d_direct_filter_grad_f32", [PTR, PTR, PTR, PTR, SIZE, PTR, SIZE, SIZE], INT)
declare("wf_conv2d_direct_filter_pool_workspace_f32", [PTR], SIZE)
declare("wf_conv2d_direct_filter_grad_pool_f32", [PTR, PTR, PTR, PTR, PTR, PTR, PTR, PTR, SIZE, PTR, SIZE, SIZE], INT)

MIN_IMAGES_PER_THREAD = 2      # conv2 of the CNN: ~0.12 ms per image per op, a thread hand-off ~0.03 ms
FILTER_SLICES_PER_THREAD = 2  # filter gradient: fixed slices of the batch, each one's gradient summed after
MAX_ROW_PADDING = 3.0          # filter gradient: rows summed / taps x channels wanted above this -> im2col path


def lanes() -> int:
    """Floats per vector of the loaded library's direct convolution."""
    return fn("wf_conv2d_direct_lanes")()


def _whole_vectors(channels: int) -> bool:
    return channels % lanes() == 0


def forward_applies(shape: Conv2DShape) -> bool:
    return _whole_vectors(shape.out_channels)


def input_grad_applies(shape: Conv2DShape) -> bool:
    return shape.stride_height == 1 and shape.stride_width == 1 and _whole_vectors(shape.in_channels)


def filter_grad_applies(shape: Conv2DShape) -> bool:
    if not _whole_vectors(shape.out_channels):
        return False
    summed = fn("wf_conv2d_direct_filter_rows")(ctypes.byref(shape))
    return summed <= MAX_ROW_PADDING * shape.filter_width * shape.in_channels


def _threads(shape: Conv2DShape) -> int:
    """Threads for one call: at most one per MIN_IMAGES_PER_THREAD images (one without NumPy: Pyodide)."""
    return max(1, min(parallel.threads(), shape.batch // MIN_IMAGES_PER_THREAD)) if HAVE_NUMPY else 1


def forward(shape: Conv2DShape, input: Any, filter: Any, out: Any, bias: Any = None,  # noqa: A002 - TF's names
            relu: bool = False, pool: Conv2DShape | None = None, pooled: Any = None) -> Any:
    """out = conv2d(input, filter) for the geometry `shape` (C-contiguous float32 arrays); with a `bias` (one
    per output channel), out = conv2d + bias and then max(out, 0) if `relu`: TensorFlow's _FusedConv2D. With a
    `pool` geometry (and a bias), also pooled = MaxPool(out), each image pooled just after it is computed."""
    name = "wf_conv2d_direct_f32" if bias is None else "wf_conv2d_direct_bias_relu_f32"
    threads, work_len = _threads(shape), fn("wf_conv2d_direct_workspace_f32")(ctypes.byref(shape))
    work = empty(threads * work_len, dtypes.float32)  # one workspace per thread
    epilogue = () if bias is None else (ptr(bias), int(relu))
    outputs: tuple = (ptr(out),)
    if pool is not None:
        name, epilogue, outputs = "wf_conv2d_direct_bias_relu_pool_f32", epilogue + (ctypes.byref(pool),), \
            (ptr(out), ptr(pooled))
    filter = aligned(filter)  # noqa: A001 - its vectors are loaded in the innermost loop
    check(fn(name)(ctypes.byref(shape), ptr(input), ptr(filter), *epilogue, *outputs, ptr(work), work_len,
                   threads), name)
    return out


def input_grad(shape: Conv2DShape, filter: Any, out_backprop: Any, out: Any) -> Any:  # noqa: A002
    """dx for the stride-1 forward geometry `shape`: out_backprop convolved with the flipped, transposed filter.

    Output pixel i of that convolution reads out_backprop rows i - pad_top ... i - pad_top + (kh-1)*dh, which
    is the forward windows that read input row i, with the taps in reverse order: so the padding before is
    (kh-1)*dh - pad_top, and tap a of the flipped filter is tap kh-1-a of the original."""
    kh, kw, channels, out_channels = filter.shape
    flipped = flipped_filter(filter)
    transposed = Conv2DShape(
        shape.batch, shape.out_height, shape.out_width, out_channels, kh, kw, channels, 1, 1,
        shape.dilation_height, shape.dilation_width, (kh - 1) * shape.dilation_height - shape.pad_top,
        (kw - 1) * shape.dilation_width - shape.pad_left, shape.in_height, shape.in_width)
    return forward(transposed, out_backprop, flipped, out)


def flipped_filter(filter: Any) -> Any:  # noqa: A002
    """The filter [kh, kw, in, out] flipped in space with its channel axes swapped: [kh, kw, out, in]."""
    kh, kw, channels, out_channels = filter.shape
    flipped = empty((kh, kw, out_channels, channels), dtypes.float32)
    if HAVE_NUMPY and type(filter) is np.ndarray:
        flipped[...] = filter[::-1, ::-1].transpose(0, 1, 3, 2)
        return flipped
    values, out, taps = filter.data, flipped.data, channels * out_channels   # CArrays: flat array.array("f")
    for a in range(kh):
        for b in range(kw):
            source, target = ((kh - 1 - a) * kw + (kw - 1 - b)) * taps, (a * kw + b) * taps
            for o in range(out_channels):   # column o of the tap's [in, out] block is row o of [out, in]
                out[target + o * channels:target + (o + 1) * channels] = values[source + o:source + taps:out_channels]
    return flipped


def filter_grad(shape: Conv2DShape, input: Any, out_backprop: Any, filter_shape: tuple,  # noqa: A002
                pool: tuple | None = None) -> Any:
    """dfilter [kh, kw, in_channels, out_channels] = the sum over the batch of window values x output gradients.

    The batch is cut into fixed slices (FILTER_SLICES_PER_THREAD per thread) that the threads claim; their
    gradients are added in slice order, so the sum does not depend on which thread ran which slice.
    With `pool` = (its geometry, the conv's Relu output, the pooled output's gradient), out_backprop is None:
    each image's output gradient is that MaxPoolGrad -> ReluGrad, made just before it is used; returns
    (dfilter, the output gradient's per-channel sums) (wf_conv2d_direct_filter_grad_pool_f32)."""
    name = "wf_conv2d_direct_filter_grad_f32" if pool is None else "wf_conv2d_direct_filter_grad_pool_f32"
    workspace = "wf_conv2d_direct_filter_workspace_f32" if pool is None else \
        "wf_conv2d_direct_filter_pool_workspace_f32"
    threads, work_len = _threads(shape), fn(workspace)(ctypes.byref(shape))
    # Without NumPy (Pyodide: one thread) one slice, so no sum of slices is needed.
    slices = max(1, min(threads * FILTER_SLICES_PER_THREAD, shape.batch)) if HAVE_NUMPY else 1
    grads = empty((slices, *filter_shape), dtypes.float32)
    work = empty(threads * work_len, dtypes.float32)
    if pool is None:
        sources: tuple = (ptr(out_backprop),)
    else:
        geometry, pool_input, pooled_grad = pool
        sums, partials = empty((shape.out_channels,), dtypes.float32), \
            empty((shape.batch, shape.out_channels), dtypes.float32)
        sources = (ctypes.byref(geometry), ptr(pool_input), ptr(pooled_grad), ptr(sums), ptr(partials))
    check(fn(name)(ctypes.byref(shape), ptr(input), *sources, ptr(grads), slices, ptr(work), work_len, threads),
          name)
    if slices == 1:
        total = grads.reshape(filter_shape)  # a CArray too (no NumPy: one slice)
    else:
        for part in grads[1:]:
            np.add(grads[0], part, out=grads[0])
        total = grads[0]
    return total if pool is None else (total, sums)
