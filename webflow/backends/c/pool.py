"""C signatures of the pooling kernels (webflow/wasm/pool.c).

All take a pointer to a `Conv2DShape` (webflow/backends/c/conv_shape.py; window in filter_height/width,
channels in in_channels, build it with `conv2d_shape(input_shape, ksize, channels, strides, padding=...)`)
and return 0 (WF_OK) or -1 (bad argument):
    wf_max_pool_f32(shape, input, output)                       MaxPool
    wf_max_pool_grad_f32(shape, input, output_grad, input_grad) MaxPoolGrad (first max in scan order)
    wf_max_pool_grad_relu_f32(...the same...)                   MaxPoolGrad, then ReluGrad on the input (fusion)
    wf_avg_pool_f32(shape, input, output)                       AvgPool (SAME: mean of in-bounds pixels)
    wf_avg_pool_grad_f32(shape, output_grad, input_grad)        AvgPoolGrad
    wf_max_pool_grad_grad_f32(shape, input, grad, output)       MaxPoolGradGrad (grad shaped as the input)
each also as _f64 (double buffers). And float32 MaxPool passes on the C library's threads (wasm/parallel.c):
    wf_max_pool_parallel_f32(shape, input, output, threads)
    wf_max_pool_grad_parallel_f32(shape, input, output_grad, input_grad, relu, sums, partials, threads)
        sums (or None): also the gradient summed over all but the channel axis, as wf_sum_blocks_f32 sums it
        (partials: batch x channels floats of scratch): a conv layer's bias gradient, fused (runtime/fusion.py)
"""

from __future__ import annotations

import ctypes
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c.adapters import (
    Unsupported,
    c_kernel,
    check,
    contiguous,
    empty,
    fn,
    ptr,
    suffix,
)
from webflow.backends.c.conv import F32, pool_geometry, sizes_of
from webflow.backends.c.conv_shape import Conv2DShape
from webflow.backends.c.library import INT, PTR, SIZE, declare
from webflow.framework import dtypes

for _suffix in ("f32", "f64"):  # the same kernels in float and double (pool_template.h)
    declare(f"wf_max_pool_{_suffix}", [PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_relu_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_max_pool_grad_grad_{_suffix}", [PTR, PTR, PTR, PTR], INT)
    declare(f"wf_avg_pool_{_suffix}", [PTR, PTR, PTR], INT)
    declare(f"wf_avg_pool_grad_{_suffix}", [PTR, PTR, PTR], INT)
declare("wf_max_pool_parallel_f32", [PTR, PTR, PTR, SIZE], INT)
declare("wf_max_pool_grad_parallel_f32", [PTR, PTR, PTR, PTR, INT, PTR, PTR, SIZE], INT)


_MIN_POOL_IMAGES = 8  # MaxPool: ~5 us an image (conv1's, 28x28x32), so fewer per thread do not pay a hand-off

# --- pooling ----------------------------------------------------------------------------------------
def _pooled(shape: Conv2DShape) -> tuple:
    return (shape.batch, shape.out_height, shape.out_width, shape.in_channels)


@c_kernel(dtypes=F32, min_size=8192)
def max_pool(x: Any, **attrs: Any) -> Any:
    """wf_max_pool_parallel_f32: y = max over each window (TF: starts at the lowest finite float)."""
    suffix(x, F32)
    shape = pool_geometry(x.shape, attrs)
    out = empty(_pooled(shape), dtypes.float32)
    x = contiguous(x)  # a name holds the copy while C reads it (a bare ptr(contiguous(x)) frees it first)
    check(fn("wf_max_pool_parallel_f32")(ctypes.byref(shape), ptr(x), ptr(out), _pool_threads(shape)), "max_pool")
    return out


@c_kernel(dtypes=F32, min_size=8192)
def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, *, relu: bool = False, sums: bool = False,
                  **attrs: Any) -> Any:
    """wf_max_pool_grad_parallel_f32: each window's gradient goes to its first maximal input cell. With `relu`
    (runtime/fusion.py), then ReluGrad with orig_input as the features: 0 where orig_input <= 0. With `sums`,
    returns (that gradient, its sum over all but the channel axis) with the bits of reduce.sum_blocks
    (a conv layer's bias gradient, fused)."""
    suffix(orig_input, F32)
    shape = pool_geometry(orig_input.shape, attrs)
    if orig_output.shape != _pooled(shape) or grad.shape != _pooled(shape) or grad.dtype != orig_input.dtype:
        raise Unsupported("shapes")
    out = empty(orig_input.shape, dtypes.float32)
    orig_input, grad = contiguous(orig_input), contiguous(grad)  # held here while C reads them
    channels = orig_input.shape[-1]
    summed = empty((channels,), dtypes.float32) if sums else None
    partials = empty((shape.batch, channels), dtypes.float32) if sums else None
    status = fn("wf_max_pool_grad_parallel_f32")(ctypes.byref(shape), ptr(orig_input), ptr(grad), ptr(out),
                                                 int(relu), ptr(summed) if sums else None,
                                                 ptr(partials) if sums else None, _pool_threads(shape))
    check(status, "max_pool_grad")
    return (out, summed) if sums else out


def _pool_threads(shape: Conv2DShape) -> int:
    """Threads of the C library for a MaxPool pass: images are independent, each thread claims 4 at a time
    (wasm/pool.c); at least _MIN_POOL_IMAGES images per thread, as a hand-off costs ~20 us, ~4 images' work."""
    return max(1, min(parallel.threads(), shape.batch // _MIN_POOL_IMAGES)) if HAVE_NUMPY else 1


@c_kernel(dtypes=F32, min_size=8192)
def avg_pool(x: Any, **attrs: Any) -> Any:
    """wf_avg_pool_f32: y = mean of each window's in-bounds cells."""
    suffix(x, F32)
    shape = pool_geometry(x.shape, attrs)
    out = empty(_pooled(shape), dtypes.float32)
    x = contiguous(x)  # a name holds the copy while C reads it (a bare ptr(contiguous(x)) frees it first)
    check(fn("wf_avg_pool_f32")(ctypes.byref(shape), ptr(x), ptr(out)), "avg_pool")
    return out


@c_kernel(dtypes=F32, min_size=8192, size_input=1)
def avg_pool_grad(orig_input_shape: Any, grad: Any, **attrs: Any) -> Any:
    """wf_avg_pool_grad_f32: each window's gradient shared among its in-bounds cells."""
    suffix(grad, F32)
    x_shape = sizes_of(orig_input_shape)
    shape = pool_geometry(x_shape, attrs)
    if grad.shape != _pooled(shape):
        raise Unsupported("shapes")
    out = empty(x_shape, dtypes.float32)
    grad = contiguous(grad)  # a name holds the copy while C reads it
    check(fn("wf_avg_pool_grad_f32")(ctypes.byref(shape), ptr(grad), ptr(out)), "avg_pool_grad")
    return out
