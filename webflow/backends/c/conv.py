"""C signatures of the convolution kernels (webflow/wasm/conv.c) and the geometry they share with pooling.

`Conv2DShape` mirrors the C struct `wf_conv2d_shape` (webflow_kernels.h): NHWC input, HWIO filter,
explicit padding (TF's SAME: pad_top = total // 2, the extra row/column goes to the bottom/right).
`conv2d_shape(...)` builds it from TensorFlow-style arguments. Kernels take a pointer to it
(`ctypes.byref(shape)`) and, for the GEMM-based ones, a workspace of at least
`wf_conv2d_workspace_f32(shape)` floats; they return 0 (WF_OK), -1 (bad argument) or -2 (workspace too small).
Every kernel also exists as `_f64` (double buffers; the workspace size is in elements either way).
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import conv_direct as c_conv_direct  # noqa: F401  (C signatures)
from webflow.backends.c import conv_winograd, parallel
from webflow.backends.c.adapters import (
    Unsupported,
    c_kernel,
    check,
    contiguous,
    empty,
    flat_ints,
    fn,
    prod,
    ptr,
    suffix,
)
from webflow.backends.c.conv_shape import _FIELDS, Conv2DShape, conv2d_shape, output_size_and_pad  # noqa: F401
from webflow.backends.c.library import INT, PTR, SIZE, VOID, declare
from webflow.framework import dtypes

for _suffix in ("f32", "f64"):  # the same kernels in float and double (conv_template.h)
    declare(f"wf_im2col_{_suffix}", [PTR, PTR, PTR], VOID)
    declare(f"wf_col2im_{_suffix}", [PTR, PTR, PTR], VOID)
    declare(f"wf_conv2d_workspace_{_suffix}", [PTR], SIZE)
    declare(f"wf_conv2d_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_backprop_input_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_backprop_filter_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_direct_c1_{_suffix}", [PTR, PTR, PTR, PTR], INT)


F32 = ("float32",)
_MIN_IMAGES_PER_THREAD = 4  # below this a conv is too small for a thread hand-off to pay


# --- convolution geometry ---------------------------------------------------------------------------
def window_geometry(input_shape: tuple, window: tuple, out_channels: int, attrs: dict) -> Conv2DShape:
    """The C geometry for NHWC attrs TensorFlow's CPU kernels accept; Unsupported for the rest."""
    strides, padding = list(attrs["strides"]), attrs["padding"]
    dilations = list(attrs.get("dilations", (1, 1, 1, 1)))
    if attrs.get("data_format", "NHWC") != "NHWC" or padding not in ("SAME", "VALID") or len(input_shape) != 4 \
            or len(strides) != 4 or len(dilations) != 4 or strides[0] != 1 or strides[3] != 1 \
            or dilations[0] != 1 or dilations[3] != 1 or min(strides + dilations) < 1:
        raise Unsupported("window attrs")
    if min(input_shape) < 1 or min(window) < 1 or out_channels < 1:
        raise Unsupported("empty")
    shape = conv2d_shape(tuple(input_shape), tuple(window), out_channels, tuple(strides[1:3]),
                         tuple(dilations[1:3]), padding)
    if shape.out_height < 1 or shape.out_width < 1:
        raise Unsupported("empty output")
    return shape


def pool_geometry(input_shape: tuple, attrs: dict) -> Conv2DShape:
    """The C geometry of a MaxPool / AvgPool (window in filter_height/width, channels in in_channels)."""
    ksize = list(attrs["ksize"])
    if len(ksize) != 4 or ksize[0] != 1 or ksize[3] != 1 or attrs.get("explicit_paddings"):
        raise Unsupported("ksize")
    return window_geometry(input_shape, ksize[1:3], input_shape[3] if len(input_shape) == 4 else 1,
                           {**attrs, "dilations": (1, 1, 1, 1)})


def _conv_call(name: str, shape: Conv2DShape, first: Any, second: Any, out: Any) -> Any:
    work_len = fn("wf_conv2d_workspace_f32")(ctypes.byref(shape))
    work = empty(work_len, dtypes.float32)
    check(fn(name)(ctypes.byref(shape), ptr(first), ptr(second), ptr(out), ptr(work), work_len), name)
    return out


def _per_image_call(name: str, shape: Conv2DShape, shared: Any, images: Any, out: Any, image_in: int,
                    image_out: int) -> Any:
    """A conv kernel whose images are independent (forward, backprop input), split by image over threads
    (backends/c/parallel.py): `images` and `out` hold `image_in` / `image_out` floats per image, `shared`
    (the filter) is read by every part. Measured (conv2 of the Deep MNIST CNN, batch 50, backprop input,
    2 threads, shared noisy machine): 14.5 -> 8 ms."""
    work_len = fn("wf_conv2d_workspace_f32")(ctypes.byref(shape))
    kernel, images_at, out_at, shared_at = fn(name), ptr(images), ptr(out), ptr(shared)

    def run(start: int, stop: int) -> int:
        part = Conv2DShape.from_buffer_copy(shape)
        part.batch = stop - start
        work = empty(work_len, dtypes.float32)
        first, second = (images_at + 4 * start * image_in, shared_at) if name == "wf_conv2d_f32" \
            else (shared_at, images_at + 4 * start * image_in)
        return kernel(ctypes.byref(part), first, second, out_at + 4 * start * image_out, ptr(work), work_len)

    for status in parallel.split(shape.batch, run, min_part=_MIN_IMAGES_PER_THREAD):
        check(status, name)
    return out


def sizes_of(sizes: Any) -> tuple:
    sizes = flat_ints(sizes)
    if len(sizes) != 4:
        raise Unsupported("sizes")
    return tuple(sizes)


def _out_dims(shape: Conv2DShape) -> tuple:
    return (shape.batch, shape.out_height, shape.out_width, shape.out_channels)


@c_kernel(dtypes=F32, min_size=0)
def conv2d(input: Any, filter: Any, **attrs: Any) -> Any:  # noqa: A002 - TensorFlow's input names
    """wf_conv2d_winograd_f32 (conv_winograd.py) or wf_conv2d_direct_f32 (windows read in place) when one applies;
    else with NumPy, NumPy's im2col + BLAS
    (faster than the C GEMM), and without it wf_conv2d_f32: im2col + packed GEMM in blocks of rows."""
    suffix(input, F32)
    if filter.dtype != input.dtype or filter.ndim != 4 or input.ndim != 4 or filter.shape[2] != input.shape[3]:
        raise Unsupported("operands")
    shape = window_geometry(input.shape, filter.shape[:2], filter.shape[3], attrs)
    out = empty(_out_dims(shape), dtypes.float32)
    input, filter = contiguous(input), contiguous(filter)  # noqa: A001 - TensorFlow's input names
    if conv_winograd.applies(shape) and conv_winograd.all_finite(input, filter):
        return conv_winograd.forward(shape, input, filter, out)
    if c_conv_direct.forward_applies(shape):
        return c_conv_direct.forward(shape, input, filter, out)
    if HAVE_NUMPY:
        raise Unsupported("im2col + BLAS")
    per_in, per_out = prod(input.shape[1:]), prod(out.shape[1:])
    return _per_image_call("wf_conv2d_f32", shape, filter, input, out, per_in, per_out)


def conv2d_bias_relu(input: Any, filter: Any, bias: Any, *, relu: bool, **attrs: Any) -> Any:  # noqa: A002
    """wf_conv2d_direct_bias_relu_f32: conv2d + bias (then max(., 0) if relu) with the epilogue applied before
    the store (runtime/fusion.py's _FusedConv2D), by Winograd or the direct convolution; Unsupported where neither
    applies."""
    suffix(input, F32)
    if filter.dtype != input.dtype or bias.dtype != input.dtype or filter.ndim != 4 or input.ndim != 4 \
            or filter.shape[2] != input.shape[3] or bias.shape != filter.shape[3:]:
        raise Unsupported("operands")
    shape = window_geometry(input.shape, filter.shape[:2], filter.shape[3], attrs)
    input, filter = contiguous(input), contiguous(filter)  # noqa: A001 - TensorFlow's input names
    forward = _forward_kernel(shape, input, filter)
    out = empty(_out_dims(shape), dtypes.float32)
    return forward(shape, input, filter, out, contiguous(bias), relu)


def _forward_kernel(shape: Conv2DShape, input: Any, filter: Any) -> Any:  # noqa: A002
    """The forward convolution for `shape`: Winograd where it applies (conv_winograd.py) and the operands are
    finite, else the direct one; Unsupported if neither does."""
    if conv_winograd.applies(shape) and conv_winograd.all_finite(input, filter):
        return conv_winograd.forward
    if c_conv_direct.forward_applies(shape):
        return c_conv_direct.forward
    raise Unsupported("direct convolution")


def conv2d_bias_relu_max_pool(input: Any, filter: Any, bias: Any, *, relu: bool, pool_attrs: dict,  # noqa: A002
                              **attrs: Any) -> tuple:
    """(conv2d_bias_relu's output, its MaxPool with `pool_attrs`) in one wf_conv2d_direct_bias_relu_pool_f32 call:
    each image pooled by wf_max_pool_f32 (the MaxPool kernel's own code) while it is in cache. Unsupported where
    the direct convolution does not apply, or for a pooling not in NHWC."""
    suffix(input, F32)
    if filter.dtype != input.dtype or bias.dtype != input.dtype or filter.ndim != 4 or input.ndim != 4 \
            or filter.shape[2] != input.shape[3] or bias.shape != filter.shape[3:] \
            or pool_attrs.get("data_format", "NHWC") != "NHWC":
        raise Unsupported("operands")
    shape = window_geometry(input.shape, filter.shape[:2], filter.shape[3], attrs)
    input, filter = contiguous(input), contiguous(filter)  # noqa: A001 - TensorFlow's input names
    forward = _forward_kernel(shape, input, filter)
    pool = pool_geometry(_out_dims(shape), pool_attrs)
    out = empty(_out_dims(shape), dtypes.float32)
    pooled = empty((shape.batch, pool.out_height, pool.out_width, pool.in_channels), dtypes.float32)
    forward(shape, input, filter, out, contiguous(bias), relu, pool, pooled)
    return out, pooled


@c_kernel(dtypes=F32, min_size=0, size_input=2, dtype_input=1)
def conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """wf_conv2d_winograd_f32 or wf_conv2d_direct_f32 (the convolution of dy with the flipped filter) when one applies
    (stride 1), else dx = col2im(dy filter^T): the GEMM in NumPy's BLAS from 100k elements of dy (NumPy's kernel
    below), all C without NumPy (wf_conv2d_backprop_input_f32)."""
    suffix(filter, F32)
    x_shape = sizes_of(input_sizes)
    if out_backprop.dtype != filter.dtype or filter.ndim != 4 or out_backprop.ndim != 4 \
            or filter.shape[2] != x_shape[3]:
        raise Unsupported("operands")
    shape = window_geometry(x_shape, filter.shape[:2], filter.shape[3], attrs)
    if _out_dims(shape) != out_backprop.shape:
        raise Unsupported("out_backprop shape")  # the NumPy kernel raises TensorFlow's message
    out = empty(x_shape, dtypes.float32)
    filter, out_backprop = contiguous(filter), contiguous(out_backprop)  # noqa: A001
    if conv_winograd.input_grad_applies(shape) and conv_winograd.all_finite(filter, out_backprop):
        return conv_winograd.input_grad(shape, filter, out_backprop, out)
    if c_conv_direct.input_grad_applies(shape):
        return c_conv_direct.input_grad(shape, filter, out_backprop, out)
    if HAVE_NUMPY and type(out_backprop) is np.ndarray and type(filter) is np.ndarray:
        if out_backprop.size < _BLAS_MIN_SIZE:
            raise Unsupported("small: NumPy")
        return _backprop_input_blas(shape, contiguous(filter), contiguous(out_backprop), out)
    per_in, per_out = prod(out_backprop.shape[1:]), prod(x_shape[1:])
    return _per_image_call("wf_conv2d_backprop_input_f32", shape, contiguous(filter), contiguous(out_backprop), out,
                           per_in, per_out)


def conv2d_backprop_filter_max_pool(pool_input: Any, pooled_grad: Any, input: Any, filter_sizes: Any, *,  # noqa: A002
                                    pool_attrs: dict, **attrs: Any) -> tuple:
    """(the conv's Conv2DBackpropFilter, its output gradient's per-channel sums) where that output gradient is
    MaxPoolGrad(pool_input, pooled_grad) -> ReluGrad(features = pool_input), made image by image inside the
    Winograd or the direct filter gradient and never stored (wf_conv2d_winograd_filter_grad_f32 with a pool,
    wf_conv2d_direct_filter_grad_pool_f32): the bits of the separate ops on the C backend. Unsupported where
    neither applies."""
    suffix(input, F32)
    w_shape = sizes_of(filter_sizes)
    if input.ndim != 4 or w_shape[2] != input.shape[3] or pool_input.dtype != input.dtype \
            or pooled_grad.dtype != input.dtype or pool_attrs.get("data_format", "NHWC") != "NHWC":
        raise Unsupported("operands")
    shape = window_geometry(input.shape, w_shape[:2], w_shape[3], attrs)
    input, pooled_grad = contiguous(input), contiguous(pooled_grad)  # noqa: A001
    winograd = conv_winograd.filter_grad_applies(shape) and conv_winograd.all_finite(input, pooled_grad)
    if not (winograd or c_conv_direct.filter_grad_applies(shape)) or pool_input.shape != _out_dims(shape):
        raise Unsupported("direct filter gradient")
    pool = pool_geometry(pool_input.shape, pool_attrs)
    if pooled_grad.shape != (shape.batch, pool.out_height, pool.out_width, pool.in_channels):
        raise Unsupported("pooled gradient shape")
    return (conv_winograd if winograd else c_conv_direct).filter_grad(shape, input, None, w_shape,
                                                                      (pool, contiguous(pool_input), pooled_grad))


_SCRATCH = threading.local()
_BLAS_MIN_SIZE = 100000  # elements of dy from which the GEMM + C col2im beats NumPy's kernel (selection.py)
_BLOCK_FLOATS = 1 << 20  # ~4 MB of column gradients per block: stays in cache between the GEMM and col2im


def _backprop_input_blas(shape: Conv2DShape, filter: Any, out_backprop: Any, out: Any) -> Any:  # noqa: A002
    """dx = col2im(dy filter^T) with the GEMM in NumPy's BLAS and the scatter in C (wf_col2im_f32), a block of
    images at a time into a reused buffer, the blocks split over threads (backends/c/parallel.py).
    OpenBLAS's GEMM beats the C GEMM (AVX-512 vs AVX2: 7.5 vs ~12 ms for conv2 at batch 50) and C's
    col2im beats NumPy's 25 slice-adds; measured one thread, conv2 of the Deep MNIST CNN at batch 50
    (shared noisy machine): 14.6 (all C) -> 9.5 ms."""
    taps, out_channels = prod(filter.shape[:3]), filter.shape[3]
    pixels = shape.out_height * shape.out_width
    image = shape.in_height * shape.in_width * shape.in_channels
    filter_t = np.ascontiguousarray(filter.reshape(taps, out_channels).T)   # [out_channels, taps], small
    dy = out_backprop.reshape(-1, out_channels)
    block = max(1, _BLOCK_FLOATS // max(1, pixels * taps))
    col2im, out_at = fn("wf_col2im_f32"), ptr(out)

    def run(start: int, stop: int) -> None:
        part = Conv2DShape.from_buffer_copy(shape)
        for first in range(start, stop, block):
            last = min(stop, first + block)
            rows = (last - first) * pixels
            buffer = getattr(_SCRATCH, "buffer", None)
            if buffer is None or buffer.size < rows * taps:
                buffer = _SCRATCH.buffer = np.empty(rows * taps, np.float32)
            cols = buffer[:rows * taps].reshape(rows, taps)
            np.matmul(dy[first * pixels:last * pixels], filter_t, out=cols)
            part.batch = last - first
            col2im(ctypes.byref(part), ptr(cols), out_at + 4 * first * image)

    parallel.split(shape.batch, run, min_part=_MIN_IMAGES_PER_THREAD)
    return out


@c_kernel(dtypes=F32, min_size=0)
def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """wf_conv2d_winograd_filter_grad_f32 or wf_conv2d_direct_filter_grad_f32 when one applies; else NumPy's
    im2col + BLAS, or without NumPy
    wf_conv2d_backprop_filter_f32: dfilter = im2col(x)^T dy."""
    suffix(input, F32)
    w_shape = sizes_of(filter_sizes)
    if out_backprop.dtype != input.dtype or input.ndim != 4 or out_backprop.ndim != 4 or w_shape[2] != input.shape[3]:
        raise Unsupported("operands")
    shape = window_geometry(input.shape, w_shape[:2], w_shape[3], attrs)
    if _out_dims(shape) != out_backprop.shape:
        raise Unsupported("out_backprop shape")
    input, out_backprop = contiguous(input), contiguous(out_backprop)  # noqa: A001
    if conv_winograd.filter_grad_applies(shape) and conv_winograd.all_finite(input, out_backprop):
        return conv_winograd.filter_grad(shape, input, out_backprop, w_shape)
    if c_conv_direct.filter_grad_applies(shape):
        return c_conv_direct.filter_grad(shape, input, out_backprop, w_shape)
    if HAVE_NUMPY:
        raise Unsupported("im2col + BLAS")
    out = empty(w_shape, dtypes.float32)
    return _conv_call("wf_conv2d_backprop_filter_f32", shape, input, out_backprop, out)
