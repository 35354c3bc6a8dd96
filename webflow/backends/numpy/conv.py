"""NumPy kernels for 2-D convolution: im2col / col2im around one GEMM, as TensorFlow's CPU kernels reduce conv to GEMM.

Layouts are TensorFlow's: input NHWC `[n, h, w, c]`, filter HWIO `[kh, kw, c, k]`, output NHWC `[n, oh, ow, k]`.
Output pixel (i, j) reads the padded input at rows i*sh + a*dh and columns j*sw + b*dw for a < kh, b < kw.

- im2col: a strided *view* of the padded input, shaped (n, oh, ow, kh, kw, c), becomes the patch matrix
  `cols` [n*oh*ow, kh*kw*c] with one copy (the reshape). The filter reshaped to [kh*kw*c, k] needs no copy,
  so the forward pass is one GEMM: y = cols @ w.
- backprop filter: dw = cols^T @ dy (NumPy hands the transposed view to sgemm as a transpose flag, no copy).
- backprop input: dcols = dy @ w^T, then col2im adds each kernel offset's slice of dcols back into a zero
  padded image: kh*kw vectorised slice-adds, no Python loop over pixels. dcols is computed offset by offset
  (kh*kw GEMMs dy @ w[p, q]^T in one batched matmul) so each offset's block is contiguous and the slice-adds
  run over long rows: with one GEMM the offsets interleave and col2im took longer than the GEMM itself.

With few input channels (the first layer of an image network has 1 or 3) the rows of `cols` are short runs
(kw*c numbers), and copying them one run at a time is slow. There the "channel-major" layout `cols_t`
[kh*kw*c, n*oh*ow] is used instead: each of its rows is one shifted copy of the image (runs of ow numbers),
and the GEMMs take it transposed. Timings: benchmarks/conv_kernels.py.
"""

from __future__ import annotations

import threading
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import parallel
from webflow.backends.numpy.pool_windows import from_nhwc, to_nhwc
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.windows import effective_window, nhwc_dims, output_size, padding_before_after, spatial_hw

_as_strided = np.lib.stride_tricks.as_strided
CHANNEL_MAJOR_MAX_DEPTH = 3   # input depth up to which the channel-major patch layout is used (see the timings)


# --- output sizes and padding (TensorFlow's GetWindowedOutputSizeVerboseV2: framework/windows.py) --------
def windowed_output_size(size: int, kernel: int, stride: int, dilation: int, padding: str,
                         explicit: tuple = (0, 0)) -> tuple:
    """(output size, pad before, pad after) of one spatial dimension, as TensorFlow computes them."""
    if stride <= 0:
        raise InvalidArgumentError(None, None, f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise InvalidArgumentError(None, None, f"Dilation rate must be >= 1, but got {dilation}")
    out = output_size(size, kernel, stride, dilation, padding, explicit)
    if out < 0:
        raise InvalidArgumentError(None, None, f"Computed output size would be negative: {out} [input_size: {size}, "
                                               f"effective_filter_size: {effective_window(kernel, dilation)}, "
                                               f"stride: {stride}]")
    before, after = padding_before_after(size, kernel, stride, dilation, padding, out, explicit)
    return out, before, after


def conv_geometry(in_shape: tuple, filter_shape: tuple, strides: tuple, dilations: tuple, padding: str,
                  explicit: tuple = ((0, 0), (0, 0))) -> tuple:
    """((oh, ow), ((top, bottom), (left, right))) for an NHWC input and HWIO filter; strides/dilations are (h, w)."""
    rows = windowed_output_size(in_shape[1], filter_shape[0], strides[0], dilations[0], padding, explicit[0])
    cols = windowed_output_size(in_shape[2], filter_shape[1], strides[1], dilations[1], padding, explicit[1])
    return (rows[0], cols[0]), (rows[1:], cols[1:])


# --- im2col ---------------------------------------------------------------------------------------------
def _pad(x: Any, pads: tuple) -> Any:
    """x with zero rows/columns around it (a fresh array), or x itself when there is no padding."""
    (top, bottom), (left, right) = pads
    if not (top or bottom or left or right):
        return x
    n, h, w, c = x.shape
    padded = np.zeros((n, h + top + bottom, w + left + right, c), x.dtype)
    padded[:, top:top + h, left:left + w, :] = x
    return padded


def _windows(padded: Any, kernel: tuple, out_size: tuple, strides: tuple, dilations: tuple) -> Any:
    """Read-only view (n, oh, ow, kh, kw, c): [b, i, j, p, q] = padded[b, i*sh + p*dh, j*sw + q*dw]."""
    n, _, _, c = padded.shape
    s_n, s_h, s_w, s_c = padded.strides
    shape = (n, out_size[0], out_size[1], kernel[0], kernel[1], c)
    steps = (s_n, s_h * strides[0], s_w * strides[1], s_h * dilations[0], s_w * dilations[1], s_c)
    return _as_strided(padded, shape, steps, writeable=False)


def _channel_major(depth: int) -> bool:
    return depth <= CHANNEL_MAJOR_MAX_DEPTH


def im2col(x: Any, kernel: tuple, out_size: tuple, pads: tuple, strides: tuple, dilations: tuple) -> Any:
    """The patch matrix: [n*oh*ow, kh*kw*c] (rows = output pixels), or its transpose when the depth is small."""
    windows = _windows(_pad(x, pads), kernel, out_size, strides, dilations)
    n, oh, ow, kh, kw, c = windows.shape
    if _channel_major(c):
        # rows = (p, q, channel), columns = pixels; returned as the transposed view of that C-ordered array
        return np.ascontiguousarray(windows.transpose(3, 4, 5, 0, 1, 2)).reshape(kh * kw * c, n * oh * ow).T
    return windows.reshape(n * oh * ow, kh * kw * c)


# --- im2col a few images at a time, into a reused buffer ------------------------------------------------
# The whole patch matrix of the CNN's second layer is 9800 x 800 floats (31 MB) at batch 50: a fresh array
# that size costs page faults and lives in DRAM. Building it a few images at a time into one reused buffer
# that stays in cache, with a GEMM per block, measured (one thread, min of 9, shared noisy machine):
# Conv2D 11.1 -> 9.6 ms, Conv2DBackpropFilter 12.2 -> 10.3 ms. The GEMMs stay large enough for OpenBLAS.
CHUNK_FLOATS = 1 << 20   # ~4 MB of patches per block (blocks of 5 to 25 images measured the same)
MIN_IMAGES_PER_THREAD = 4  # the images are split over threads (backends/c/parallel.py), each its own blocks
_SCRATCH = threading.local()


def _scratch(rows: int, width: int, dtype: Any) -> Any:
    """A [rows, width] work array of this thread, reused from call to call (never returned to callers)."""
    buffer = getattr(_SCRATCH, "buffer", None)
    if buffer is None or buffer.dtype != dtype or buffer.size < rows * width:
        buffer = _SCRATCH.buffer = np.empty(rows * width, dtype)
    return buffer[:rows * width].reshape(rows, width)


def _image_blocks(x: Any, kernel: tuple, out_size: tuple, pads: tuple, strides: tuple, dilations: tuple,
                  start: int, stop: int) -> Any:
    """Yields (first image, last image + 1, patch rows of those images) over images [start, stop), in blocks."""
    windows = _windows(_pad(x, pads), kernel, out_size, strides, dilations)
    n, oh, ow, kh, kw, c = windows.shape
    per_image, width = oh * ow, kh * kw * c
    block = max(1, CHUNK_FLOATS // max(1, per_image * width))
    for first in range(start, stop, block):
        last = min(stop, first + block)
        cols = _scratch((last - first) * per_image, width, x.dtype)
        np.copyto(cols.reshape(last - first, oh, ow, kh, kw, c), windows[first:last])
        yield first, last, cols


def _conv2d_chunked(x: Any, w: Any, out_size: tuple, pads: tuple, strides: tuple, dilations: tuple) -> Any:
    kh, kw, c, k = w.shape
    per_image = out_size[0] * out_size[1]
    y = np.empty((x.shape[0] * per_image, k), np.result_type(x, w))
    w2d = w.reshape(kh * kw * c, k)

    def run(start: int, stop: int) -> None:
        for first, last, cols in _image_blocks(x, (kh, kw), out_size, pads, strides, dilations, start, stop):
            np.matmul(cols, w2d, out=y[first * per_image:last * per_image])

    parallel.split(x.shape[0], run, min_part=MIN_IMAGES_PER_THREAD)
    return y.reshape(x.shape[0], out_size[0], out_size[1], k)


def _backprop_filter_chunked(x: Any, filter_shape: tuple, dy: Any, out_size: tuple, pads: tuple, strides: tuple,
                             dilations: tuple) -> Any:
    kh, kw, c, k = filter_shape
    per_image = out_size[0] * out_size[1]
    dy2d = dy.reshape(-1, k)
    dtype = np.result_type(x, dy)

    def run(start: int, stop: int) -> Any:
        dw, part = np.zeros((kh * kw * c, k), dtype), np.empty((kh * kw * c, k), dtype)
        for first, last, cols in _image_blocks(x, (kh, kw), out_size, pads, strides, dilations, start, stop):
            np.matmul(cols.T, dy2d[first * per_image:last * per_image], out=part)
            dw += part
        return dw

    parts = parallel.split(x.shape[0], run, min_part=MIN_IMAGES_PER_THREAD)
    return sum(parts[1:], parts[0]).reshape(kh, kw, c, k)


# --- the three kernels ----------------------------------------------------------------------------------
def conv2d(x: Any, w: Any, strides: tuple, dilations: tuple, padding: str, explicit: tuple) -> Any:
    """y[b, i, j, k] = sum_{p, q, c} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * w[p, q, c, k], as one GEMM."""
    kh, kw, c, k = w.shape
    out_size, pads = conv_geometry(x.shape, w.shape, strides, dilations, padding, explicit)
    if not _channel_major(c) and x.dtype == w.dtype:
        return _conv2d_chunked(x, w, out_size, pads, strides, dilations)
    per_image, w2d = out_size[0] * out_size[1], w.reshape(kh * kw * c, k)
    y = np.empty((x.shape[0] * per_image, k), np.result_type(x, w))

    def run(start: int, stop: int) -> None:  # images are independent: split over threads (backends/c/parallel.py)
        cols = im2col(x[start:stop], (kh, kw), out_size, pads, strides, dilations)
        np.matmul(cols, w2d, out=y[start * per_image:stop * per_image])

    parallel.split(x.shape[0], run, min_part=MIN_IMAGES_PER_THREAD)
    return y.reshape(x.shape[0], out_size[0], out_size[1], k)


def conv2d_backprop_filter(x: Any, filter_shape: tuple, dy: Any, strides: tuple, dilations: tuple,
                           padding: str, explicit: tuple) -> Any:
    """dw[p, q, c, k] = sum_{b, i, j} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * dy[b, i, j, k] = cols^T @ dy."""
    kh, kw, c, k = filter_shape
    out_size, pads = conv_geometry(x.shape, filter_shape, strides, dilations, padding, explicit)
    if x.size == 0 or dy.size == 0:   # no images, channels or filters: an empty sum (dy.reshape(-1, 0) fails)
        return np.zeros(filter_shape, np.result_type(x, dy))
    if not _channel_major(c) and x.dtype == dy.dtype:
        return _backprop_filter_chunked(x, filter_shape, dy, out_size, pads, strides, dilations)
    per_image, dy2d = out_size[0] * out_size[1], dy.reshape(-1, k)

    def run(start: int, stop: int) -> Any:  # each thread's images give a partial sum of dw
        cols = im2col(x[start:stop], (kh, kw), out_size, pads, strides, dilations)
        return np.matmul(cols.T, dy2d[start * per_image:stop * per_image])

    parts = parallel.split(x.shape[0], run, min_part=MIN_IMAGES_PER_THREAD)
    return sum(parts[1:], parts[0]).reshape(kh, kw, c, k)


def conv2d_backprop_input(input_shape: tuple, w: Any, dy: Any, strides: tuple, dilations: tuple,
                          padding: str, explicit: tuple) -> Any:
    """dx = col2im(dy @ w^T): each output pixel's gradient flows back to the input pixels its window read."""
    n, h, width, c = input_shape
    kh, kw, _, k = w.shape
    (oh, ow), pads = conv_geometry(input_shape, w.shape, strides, dilations, padding, explicit)
    (top, bottom), (left, right) = pads
    dy2d = dy.reshape(n * oh * ow, k)
    dx = np.zeros((n, h + top + bottom, width + left + right, c), np.result_type(w, dy))
    rows_end, cols_end = (oh - 1) * strides[0] + 1, (ow - 1) * strides[1] + 1
    if _channel_major(c):
        # one GEMM: rows (p, q, c), columns = output pixels; row (p, q, c) is one image of gradients
        dcols = np.matmul(w.reshape(kh * kw * c, k), dy2d.T).reshape(kh, kw, c, n, oh, ow).transpose(0, 1, 3, 4, 5, 2)
    else:
        # kh*kw GEMMs dy @ w[p, q]^T: for each kernel offset a contiguous [n, oh, ow, c] block, so the
        # slice-adds below run over long contiguous rows (one GEMM dy @ w^T would interleave the offsets)
        w_offsets = w.transpose(0, 1, 3, 2).reshape(kh * kw, k, c)
        dcols = np.matmul(dy2d, w_offsets).reshape(kh, kw, n, oh, ow, c)
    for p in range(kh):
        for q in range(kw):
            top_p, left_q = p * dilations[0], q * dilations[1]
            dx[:, top_p:top_p + rows_end:strides[0], left_q:left_q + cols_end:strides[1], :] += dcols[p, q]
    if top or bottom or left or right:
        dx = np.ascontiguousarray(dx[:, top:top + h, left:left + width, :])   # drop the gradient of the zeros
    return dx


# --- the ops' run-time side: TensorFlow's attributes and data formats, its CPU kernels' checks ---------------
def explicit_hw(attrs: dict) -> tuple:
    """((top, bottom), (left, right)) from explicit_paddings (8 numbers in data-format order; empty = zeros)."""
    pads = list(attrs.get("explicit_paddings") or [0] * 8)
    return spatial_hw([tuple(pads[i:i + 2]) for i in range(0, 8, 2)], attrs["data_format"])


def _error(op_type: str, message: str, shapes: dict, error: type = InvalidArgumentError) -> Exception:
    """TensorFlow's message, prefixed with the kernel's name and followed by the shapes it was given."""
    listed = ", ".join(f"{name} {list(shape)}" for name, shape in shapes.items())
    return error(None, None, f"{op_type}: {message} (shapes: {listed})")


def _geometry(op_type: str, attrs: dict, shapes: dict) -> dict:
    """NHWC keyword arguments for the kernels, refusing what TensorFlow's CPU kernels refuse."""
    from webflow.framework.errors import UnimplementedError

    strides, dilations, data_format = list(attrs["strides"]), list(attrs["dilations"]), attrs["data_format"]
    if len(strides) != 4 or len(dilations) != 4:
        raise _error(op_type, "Sliding window strides and dilations fields must specify 4 dimensions", shapes)
    batch_and_depth = (0, 1) if data_format == "NCHW" else (0, 3)
    if any(strides[i] != 1 for i in batch_and_depth):
        raise _error(op_type, "Current implementation does not yet support strides in the batch and depth "
                              "dimensions.", shapes, UnimplementedError)
    if any(dilations[i] != 1 for i in batch_and_depth):
        raise _error(op_type, "Current implementation does not yet support dilations in the batch and depth "
                              "dimensions.", shapes)
    return {"strides": spatial_hw(strides, data_format), "dilations": spatial_hw(dilations, data_format),
            "padding": attrs["padding"], "explicit": explicit_hw(attrs)}


def _check_ranks(op_type: str, shapes: dict) -> None:
    for name, shape in shapes.items():
        if len(shape) != 4:
            raise _error(op_type, f"{name} must be 4-dimensional", shapes)


def _check_depths(op_type: str, x_shape: tuple, w_shape: tuple, shapes: dict, dy_shape: tuple | None = None) -> None:
    from webflow.framework.errors import UnimplementedError

    if x_shape[3] != w_shape[2]:
        if w_shape[2] == 0 or x_shape[3] % w_shape[2]:
            depths = f"input depth must be evenly divisible by filter depth: {x_shape[3]} vs {w_shape[2]}"
            if op_type == "Conv2D":  # TensorFlow's Conv2D says just this, on every backend (no kernel name)
                raise InvalidArgumentError(None, None, depths)
            raise _error(op_type, depths, shapes)
        raise _error(op_type, "grouped convolutions (input depth a multiple of the filter's) are not supported by "
                              "webflow's CPU kernels", shapes, UnimplementedError)
    if dy_shape is None:
        return
    if x_shape[0] != dy_shape[0]:
        raise _error(op_type, f"input and out_backprop must have the same batch size. Input batch: {x_shape[0]}, "
                              f"outbackprop batch: {dy_shape[0]}", shapes)
    if w_shape[3] != dy_shape[3]:
        raise _error(op_type, "filter and out_backprop must have the same out_depth", shapes)


def _check_out_size(op_type: str, x_shape: tuple, w_shape: tuple, dy_shape: tuple, geometry: dict,
                    shapes: dict) -> None:
    (oh, ow), _ = conv_geometry(x_shape, w_shape, **geometry)
    for axis, computed in ((1, oh), (2, ow)):
        if dy_shape[axis] != computed:
            raise _error(op_type, f"Size of out_backprop doesn't match computed: actual = {dy_shape[axis]}, "
                                  f"computed = {computed} spatial_dim: {axis} input: {x_shape[axis]} "
                                  f"filter: {w_shape[axis - 1]}", shapes)


def _sizes(op_type: str, sizes: Any, name: str, shapes: dict) -> tuple:
    sizes = np.asarray(sizes).reshape(-1)
    if sizes.size != 4:
        raise _error(op_type, f"{name} must contain 4 values, but got {sizes.tolist()}", shapes)
    return tuple(int(v) for v in sizes)


def run_conv2d(x: Any, w: Any, attrs: dict) -> Any:
    """Conv2D with TensorFlow's attributes (any data format), after its CPU kernel's checks."""
    shapes = {"input": np.shape(x), "filter": np.shape(w)}
    _check_ranks("Conv2D", shapes)
    geometry = _geometry("Conv2D", attrs, shapes)
    x = to_nhwc(x, attrs["data_format"])
    _check_depths("Conv2D", x.shape, w.shape, shapes)
    return from_nhwc(conv2d(x, w, **geometry), attrs["data_format"])


def run_conv2d_backprop_input(sizes: Any, w: Any, dy: Any, attrs: dict) -> Any:
    """Conv2DBackpropInput (TensorFlow's kernel label: Conv2DCustomBackpropInput)."""
    op_type, shapes = "Conv2DCustomBackpropInput", {"filter": np.shape(w), "out_backprop": np.shape(dy)}
    _check_ranks(op_type, shapes)
    geometry = _geometry(op_type, attrs, shapes)
    x_shape = nhwc_dims(_sizes(op_type, sizes, "input_sizes", shapes), attrs["data_format"])
    dy = to_nhwc(dy, attrs["data_format"])
    _check_depths(op_type, x_shape, w.shape, shapes, dy.shape)
    _check_out_size(op_type, x_shape, w.shape, dy.shape, geometry, shapes)
    return from_nhwc(conv2d_backprop_input(x_shape, w, dy, **geometry), attrs["data_format"])


def run_conv2d_backprop_filter(x: Any, sizes: Any, dy: Any, attrs: dict) -> Any:
    """Conv2DBackpropFilter (TensorFlow's kernel label: Conv2DCustomBackpropFilter); filter_sizes are HWIO."""
    op_type, shapes = "Conv2DCustomBackpropFilter", {"input": np.shape(x), "out_backprop": np.shape(dy)}
    _check_ranks(op_type, shapes)
    geometry = _geometry(op_type, attrs, shapes)
    w_shape = _sizes(op_type, sizes, "filter_sizes", shapes)
    x, dy = to_nhwc(x, attrs["data_format"]), to_nhwc(dy, attrs["data_format"])
    _check_depths(op_type, x.shape, w_shape, shapes, dy.shape)
    _check_out_size(op_type, x.shape, w_shape, dy.shape, geometry, shapes)
    return conv2d_backprop_filter(x, w_shape, dy, **geometry)
