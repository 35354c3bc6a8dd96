"""C kernel adapters for the nn ops: Conv2D and its backprops, pooling, softmax, cross-entropy, gather.

Each adapter has its NumPy kernel's signature (ops/conv_ops.py, pool_ops.py, nn_ops.py, gather_ops.py,
array_ops.py). The C kernels take the common case (NHWC, float32, SAME/VALID, non-empty); anything else
raises `Unsupported` and the NumPy kernel runs, which also raises TensorFlow's errors for bad arguments.
"""

from __future__ import annotations

import array
import ctypes
import threading
from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import conv_direct as c_conv_direct  # noqa: F401  (C signatures)
from webflow.backends.c import gather as c_gather  # noqa: F401  (C signatures)
from webflow.backends.c import parallel  # noqa: F401  (C signatures)
from webflow.backends.c import pool as c_pool  # noqa: F401  (C signatures)
from webflow.backends.c import softmax as c_softmax  # noqa: F401  (C signatures)
from webflow.backends.c.adapters import (
    FLOATS,
    NUMBERS,
    Unsupported,
    c_kernel,
    check,
    contiguous,
    empty,
    empty_like,
    flat_ints,
    fn,
    prod,
    ptr,
    suffix,
    zeros,
)
from webflow.backends.c.conv import Conv2DShape, conv2d_shape
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

F32 = ("float32",)
_GATHER_TYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "bool")


def _unravel(flat_index: int, shape: tuple) -> tuple:
    """The multi-index of element `flat_index` in a row-major array of `shape` (numpy.unravel_index)."""
    position = []
    for dim in reversed(shape):
        position.append(flat_index % dim)
        flat_index //= dim
    return tuple(reversed(position))
INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}
_MIN_IMAGES_PER_THREAD = 4  # below this a conv is too small for a thread hand-off to pay
_MIN_POOL_IMAGES = 8  # MaxPool: ~5 us an image (conv1's, 28x28x32), so fewer per thread do not pay a hand-off


# --- convolution geometry ---------------------------------------------------------------------------
def _window_geometry(input_shape: tuple, window: tuple, out_channels: int, attrs: dict) -> Conv2DShape:
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


def _conv_call(name: str, shape: Conv2DShape, first: Any, second: Any, out: Any) -> Any:
    work_len = fn("wf_conv2d_workspace_f32")(ctypes.byref(shape))
    work = empty(work_len, dtypes.float32)
    check(fn(name)(ctypes.byref(shape), ptr(first), ptr(second), ptr(out), ptr(work), work_len), name)
    return out


def _per_image_call(name: str, shape: Conv2DShape, shared: Any, images: Any, out: Any, image_in: int,
                    image_out: int) -> Any:
    """A conv kernel whose images are independent (forward, backprop input), split by image over threads
    (backends/parallel.py): `images` and `out` hold `image_in` / `image_out` floats per image, `shared`
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


def _sizes(sizes: Any) -> tuple:
    sizes = flat_ints(sizes)
    if len(sizes) != 4:
        raise Unsupported("sizes")
    return tuple(sizes)


def _out_dims(shape: Conv2DShape) -> tuple:
    return (shape.batch, shape.out_height, shape.out_width, shape.out_channels)


@c_kernel(dtypes=F32, min_size=0)
def conv2d(input: Any, filter: Any, **attrs: Any) -> Any:  # noqa: A002 - TensorFlow's input names
    """wf_conv2d_direct_f32 (windows read in place) when it applies; else with NumPy, NumPy's im2col + BLAS
    (faster than the C GEMM), and without it wf_conv2d_f32: im2col + packed GEMM in blocks of rows."""
    suffix(input, F32)
    if filter.dtype != input.dtype or filter.ndim != 4 or input.ndim != 4 or filter.shape[2] != input.shape[3]:
        raise Unsupported("operands")
    shape = _window_geometry(input.shape, filter.shape[:2], filter.shape[3], attrs)
    out = empty(_out_dims(shape), dtypes.float32)
    if c_conv_direct.forward_applies(shape):
        return c_conv_direct.forward(shape, contiguous(input), contiguous(filter), out)
    if HAVE_NUMPY:
        raise Unsupported("im2col + BLAS")
    per_in, per_out = prod(input.shape[1:]), prod(out.shape[1:])
    return _per_image_call("wf_conv2d_f32", shape, contiguous(filter), contiguous(input), out, per_in, per_out)


def conv2d_bias_relu(input: Any, filter: Any, bias: Any, *, relu: bool, **attrs: Any) -> Any:  # noqa: A002
    """wf_conv2d_direct_bias_relu_f32: conv2d + bias (then max(., 0) if relu) with the epilogue applied before
    the store (runtime/fusion.py's _FusedConv2D); Unsupported where the direct convolution does not apply."""
    suffix(input, F32)
    if filter.dtype != input.dtype or bias.dtype != input.dtype or filter.ndim != 4 or input.ndim != 4 \
            or filter.shape[2] != input.shape[3] or bias.shape != filter.shape[3:]:
        raise Unsupported("operands")
    shape = _window_geometry(input.shape, filter.shape[:2], filter.shape[3], attrs)
    if not c_conv_direct.forward_applies(shape):
        raise Unsupported("direct convolution")
    out = empty(_out_dims(shape), dtypes.float32)
    return c_conv_direct.forward(shape, contiguous(input), contiguous(filter), out, contiguous(bias), relu)


@c_kernel(dtypes=F32, min_size=0, size_input=2, dtype_input=1)
def conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """The direct convolution of dy with the flipped filter when it applies (stride 1), else dx = col2im(dy
    filter^T): the GEMM in NumPy's BLAS from 100k elements of dy (NumPy's kernel below), all C without NumPy."""
    suffix(filter, F32)
    x_shape = _sizes(input_sizes)
    if out_backprop.dtype != filter.dtype or filter.ndim != 4 or out_backprop.ndim != 4 \
            or filter.shape[2] != x_shape[3]:
        raise Unsupported("operands")
    shape = _window_geometry(x_shape, filter.shape[:2], filter.shape[3], attrs)
    if _out_dims(shape) != out_backprop.shape:
        raise Unsupported("out_backprop shape")  # the NumPy kernel raises TensorFlow's message
    out = empty(x_shape, dtypes.float32)
    if c_conv_direct.input_grad_applies(shape):
        return c_conv_direct.input_grad(shape, contiguous(filter), contiguous(out_backprop), out)
    if HAVE_NUMPY and type(out_backprop) is np.ndarray and type(filter) is np.ndarray:
        if out_backprop.size < _BLAS_MIN_SIZE:
            raise Unsupported("small: NumPy")
        return _backprop_input_blas(shape, contiguous(filter), contiguous(out_backprop), out)
    per_in, per_out = prod(out_backprop.shape[1:]), prod(x_shape[1:])
    return _per_image_call("wf_conv2d_backprop_input_f32", shape, contiguous(filter), contiguous(out_backprop), out,
                           per_in, per_out)


_SCRATCH = threading.local()
_BLAS_MIN_SIZE = 100000  # elements of dy from which the GEMM + C col2im beats NumPy's kernel (selection.py)
_BLOCK_FLOATS = 1 << 20  # ~4 MB of column gradients per block: stays in cache between the GEMM and col2im


def _backprop_input_blas(shape: Conv2DShape, filter: Any, out_backprop: Any, out: Any) -> Any:  # noqa: A002
    """dx = col2im(dy filter^T) with the GEMM in NumPy's BLAS and the scatter in C (wf_col2im_f32), a block of
    images at a time into a reused buffer, the blocks split over threads (backends/parallel.py).
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
    """wf_conv2d_direct_filter_grad_f32 when it applies; else NumPy's im2col + BLAS, or without NumPy
    wf_conv2d_backprop_filter_f32: dfilter = im2col(x)^T dy."""
    suffix(input, F32)
    w_shape = _sizes(filter_sizes)
    if out_backprop.dtype != input.dtype or input.ndim != 4 or out_backprop.ndim != 4 or w_shape[2] != input.shape[3]:
        raise Unsupported("operands")
    shape = _window_geometry(input.shape, w_shape[:2], w_shape[3], attrs)
    if _out_dims(shape) != out_backprop.shape:
        raise Unsupported("out_backprop shape")
    if c_conv_direct.filter_grad_applies(shape):
        return c_conv_direct.filter_grad(shape, contiguous(input), contiguous(out_backprop), w_shape)
    if HAVE_NUMPY:
        raise Unsupported("im2col + BLAS")
    out = empty(w_shape, dtypes.float32)
    return _conv_call("wf_conv2d_backprop_filter_f32", shape, contiguous(input), contiguous(out_backprop), out)


# --- pooling ----------------------------------------------------------------------------------------
def _pool_geometry(input_shape: tuple, attrs: dict) -> Conv2DShape:
    ksize = list(attrs["ksize"])
    if len(ksize) != 4 or ksize[0] != 1 or ksize[3] != 1 or attrs.get("explicit_paddings"):
        raise Unsupported("ksize")
    return _window_geometry(input_shape, ksize[1:3], input_shape[3] if len(input_shape) == 4 else 1,
                            {**attrs, "dilations": (1, 1, 1, 1)})


def _pooled(shape: Conv2DShape) -> tuple:
    return (shape.batch, shape.out_height, shape.out_width, shape.in_channels)


@c_kernel(dtypes=F32, min_size=8192)
def max_pool(x: Any, **attrs: Any) -> Any:
    """wf_max_pool_parallel_f32: y = max over each window (TF: starts at the lowest finite float)."""
    suffix(x, F32)
    shape = _pool_geometry(x.shape, attrs)
    out = empty(_pooled(shape), dtypes.float32)
    x = contiguous(x)  # a name holds the copy while C reads it (a bare ptr(contiguous(x)) frees it first)
    check(fn("wf_max_pool_parallel_f32")(ctypes.byref(shape), ptr(x), ptr(out), _pool_threads(shape)), "max_pool")
    return out


@c_kernel(dtypes=F32, min_size=8192)
def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, *, relu: bool = False, sums: bool = False,
                  **attrs: Any) -> Any:
    """wf_max_pool_grad_parallel_f32: each window's gradient goes to its first maximal input cell. With `relu`
    (runtime/fusion.py), then ReluGrad with orig_input as the features: 0 where orig_input <= 0. With `sums`,
    returns (that gradient, its sum over all but the channel axis) with the bits of c_kernels_math.sum_blocks
    (a conv layer's bias gradient, fused)."""
    suffix(orig_input, F32)
    shape = _pool_geometry(orig_input.shape, attrs)
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
    shape = _pool_geometry(x.shape, attrs)
    out = empty(_pooled(shape), dtypes.float32)
    x = contiguous(x)  # a name holds the copy while C reads it (a bare ptr(contiguous(x)) frees it first)
    check(fn("wf_avg_pool_f32")(ctypes.byref(shape), ptr(x), ptr(out)), "avg_pool")
    return out


@c_kernel(dtypes=F32, min_size=8192, size_input=1)
def avg_pool_grad(orig_input_shape: Any, grad: Any, **attrs: Any) -> Any:
    """wf_avg_pool_grad_f32: each window's gradient shared among its in-bounds cells."""
    suffix(grad, F32)
    x_shape = _sizes(orig_input_shape)
    shape = _pool_geometry(x_shape, attrs)
    if grad.shape != _pooled(shape):
        raise Unsupported("shapes")
    out = empty(x_shape, dtypes.float32)
    grad = contiguous(grad)  # a name holds the copy while C reads it
    check(fn("wf_avg_pool_grad_f32")(ctypes.byref(shape), ptr(grad), ptr(out)), "avg_pool_grad")
    return out


# --- softmax and cross-entropy: rows x classes --------------------------------------------------------
def _rows_op(stem: str) -> Any:
    def adapter(logits: Any) -> Any:
        c_suffix = suffix(logits)
        if logits.ndim < 1 or logits.size == 0:
            raise Unsupported("empty")
        logits = contiguous(logits)
        out = empty_like(logits)
        classes = logits.shape[-1]
        fn(f"wf_{stem}_{c_suffix}")(ptr(logits), ptr(out), logits.size // classes, classes)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t> over the last axis."
    return adapter


# measured: C wins below ~4k elements by 1-4 us only, NumPy's AVX-512 exp wins above: NumPy unless forced.
softmax = c_kernel()(_rows_op("softmax"))
log_softmax = c_kernel()(_rows_op("log_softmax"))


@c_kernel()
def softmax_xent(features: Any, labels: Any) -> list:
    """wf_softmax_xent_<t>: loss and backprop in one pass over each row (labels may be one broadcast row)."""
    c_suffix = suffix(features)
    if labels.dtype != features.dtype or features.ndim != 2 or labels.ndim != 2 or features.size == 0 \
            or labels.shape[1] != features.shape[1] or labels.shape[0] not in (1, features.shape[0]):
        raise Unsupported("shapes")
    features, labels = contiguous(features), contiguous(labels)
    rows, classes = features.shape
    loss, backprop = empty(rows, features.dtype), empty_like(features)
    stride = 0 if labels.shape[0] == 1 and rows != 1 else classes
    fn(f"wf_softmax_xent_{c_suffix}")(ptr(features), ptr(labels), stride, ptr(loss), ptr(backprop), rows, classes)
    return [loss, backprop]


@c_kernel()
def sparse_softmax_xent(features: Any, labels: Any) -> list:
    """wf_sparse_xent_<t>_<i>: loss and backprop; a bad label is TF's InvalidArgumentError."""
    c_suffix = suffix(features)
    index = INDEX_SUFFIX.get(labels.dtype.name)
    if index is None or features.ndim != 2 or labels.ndim != 1 or labels.shape[0] != features.shape[0] \
            or features.size == 0:
        raise Unsupported("shapes")
    features, labels = contiguous(features), contiguous(labels)
    rows, classes = features.shape
    loss, backprop = empty(rows, features.dtype), empty_like(features)
    bad = fn(f"wf_sparse_xent_{c_suffix}_{index}")(ptr(features), ptr(labels), ptr(loss), ptr(backprop), rows, classes)
    if bad:
        raise InvalidArgumentError(None, None, f"Received a label value of {labels[bad - 1]} which is outside the "
                                               f"valid range of [0, {classes}).  Label values: "
                                               + " ".join(str(v) for v in labels.tolist()))
    return [loss, backprop]


# --- gather / scatter-add ---------------------------------------------------------------------------
@c_kernel(dtypes=None)
def gather(params: Any, indices: Any, axis: Any, *, batch_dims: int = 0) -> Any:
    """wf_gather_<i>: rows of params copied as bytes; a bad index raises the NumPy kernel's error."""
    index = INDEX_SUFFIX.get(indices.dtype.name)
    if index is None or batch_dims or params.ndim == 0 or params.dtype.name not in _GATHER_TYPES:
        raise Unsupported("arguments")
    axis = int(axis)
    if not -params.ndim <= axis < params.ndim:  # TF's run-time error (the NumPy kernel would wrap the axis)
        raise InvalidArgumentError(None, None, f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} "
                                               f"but is rank {params.ndim}")
    axis %= params.ndim
    params, indices = contiguous(params), contiguous(indices)
    out = empty(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)
    outer = int(prod(params.shape[:axis]))
    inner_bytes = int(prod(params.shape[axis + 1:])) * params.itemsize
    bad = fn(f"wf_gather_{index}")(ptr(params), ptr(indices), ptr(out), outer, params.shape[axis], inner_bytes,
                                   indices.size)
    if bad:
        position = _unravel(bad - 1, indices.shape)
        where = ",".join(str(int(i)) for i in position)
        raise IndexError(f"indices[{where}] = {int(indices[position])} is not in [0, {params.shape[axis]})")
    return out


@c_kernel(dtypes=NUMBERS)
def unsorted_segment_sum(data: Any, ids: Any, num: Any) -> Any:
    """wf_scatter_add_<t>_<i>: y[ids[i]] += data[i]; rows with a negative id are dropped (as in TensorFlow)."""
    c_suffix = suffix(data, NUMBERS)
    index = INDEX_SUFFIX.get(ids.dtype.name)
    if index is None or data.shape[:ids.ndim] != ids.shape:
        raise Unsupported("ids")
    rows = contiguous(data).reshape((ids.size,) + data.shape[ids.ndim:])
    if ids.size and min(flat_ints(ids)) < 0:
        rows, ids = _drop_negative_ids(rows, ids)
    out = zeros((int(num),) + rows.shape[1:], data.dtype)
    inner = int(prod(rows.shape[1:]))
    ids = contiguous(ids)  # a name holds the copy while C reads it
    bad = fn(f"wf_scatter_add_{c_suffix}_{index}")(ptr(rows), ptr(ids), ptr(out), ids.size, inner,
                                                   int(num))
    if bad:
        raise IndexError(f"index {int(ids.reshape(-1)[bad - 1])} is out of bounds for axis 0 with size {int(num)}")
    return out


def _drop_negative_ids(rows: Any, ids: Any) -> tuple:
    """The rows (and their ids) whose segment id is not negative, as TF's kernel skips the others."""
    keep = [i for i, v in enumerate(flat_ints(ids)) if v >= 0]
    if HAVE_NUMPY:
        return np.take(rows, keep, axis=0), np.take(np.asarray(ids).reshape(-1), keep)
    inner = int(prod(rows.shape[1:]))
    kept = array.array(rows.data.typecode)
    for i in keep:
        kept += rows.data[i * inner:(i + 1) * inner]
    return (CArray(kept, (len(keep),) + rows.shape[1:], rows.dtype),
            CArray(array.array(ids.data.typecode, [ids.data[i] for i in keep]), (len(keep),), ids.dtype))


__all__ = ["FLOATS"]
