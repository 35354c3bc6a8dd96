"""Pure-Python image kernels on CArrays (Pyodide, no NumPy): PNG decode/encode (png_codec.py) and the resize ops
with their gradients. Same signatures as the NumPy kernels of ops/image_codec_ops.py and ops/image_resize_ops.py;
where each output pixel reads from is framework/resize_geometry.py, shared with them. Sums run in float64 and are
stored as float32 once, so a value may differ from TensorFlow's float32 steps in its last bit.
"""

from __future__ import annotations

import array
from typing import Any

from webflow.backends.arrays.carray import TYPECODES, CArray
from webflow.backends.portable import image_codecs
from webflow.framework import dtypes
from webflow.framework.resize_geometry import bilinear_weights, check_resize, nearest_indices


def _nhwc(x: CArray) -> tuple:
    return tuple(x.shape)


# --- resize ---------------------------------------------------------------------------------------------
def resize_bilinear(images: CArray, size: Any, *, align_corners: bool = False,
                    half_pixel_centers: bool = False) -> CArray:
    height, width = check_resize(images, size.data.tolist(), align_corners, half_pixel_centers)
    batch, in_h, in_w, channels = _nhwc(images)
    top, bottom, dy = bilinear_weights(in_h, height, align_corners, half_pixel_centers)
    left, right, dx = bilinear_weights(in_w, width, align_corners, half_pixel_centers)
    x, out = images.data, []
    for b in range(batch):
        for i in range(height):
            upper, lower = ((b * in_h + top[i]) * in_w), ((b * in_h + bottom[i]) * in_w)
            for j in range(width):
                for c in range(channels):
                    tl, tr = x[(upper + left[j]) * channels + c], x[(upper + right[j]) * channels + c]
                    bl, br = x[(lower + left[j]) * channels + c], x[(lower + right[j]) * channels + c]
                    top_value = tl + (tr - tl) * dx[j]
                    bottom_value = bl + (br - bl) * dx[j]
                    out.append(top_value + (bottom_value - top_value) * dy[i])
    return CArray(array.array("f", out), (batch, height, width, channels), dtypes.float32)


def resize_bilinear_grad(grads: CArray, original_image: CArray, *, align_corners: bool = False,
                         half_pixel_centers: bool = False) -> CArray:
    check_resize(original_image, list(grads.shape[1:3]), align_corners, half_pixel_centers)
    batch, height, width, channels = _nhwc(grads)
    in_h, in_w = original_image.shape[1], original_image.shape[2]
    top, bottom, dy = bilinear_weights(in_h, height, align_corners, half_pixel_centers)
    left, right, dx = bilinear_weights(in_w, width, align_corners, half_pixel_centers)
    out = [0.0] * (batch * in_h * in_w * channels)
    g = grads.data
    for b in range(batch):
        for i in range(height):
            for j in range(width):
                corners = ((top[i], left[j], (1 - dy[i]) * (1 - dx[j])), (top[i], right[j], (1 - dy[i]) * dx[j]),
                           (bottom[i], left[j], dy[i] * (1 - dx[j])), (bottom[i], right[j], dy[i] * dx[j]))
                source = ((b * height + i) * width + j) * channels
                for row, col, weight in corners:
                    target = ((b * in_h + row) * in_w + col) * channels
                    for c in range(channels):
                        out[target + c] += g[source + c] * weight
    dtype = original_image.dtype
    return CArray(array.array(TYPECODES[dtype.name], out), original_image.shape, dtype)


def resize_nearest(images: CArray, size: Any, *, align_corners: bool = False,
                   half_pixel_centers: bool = False) -> CArray:
    height, width = check_resize(images, size.data.tolist(), align_corners, half_pixel_centers)
    batch, in_h, in_w, channels = _nhwc(images)
    rows = nearest_indices(in_h, height, align_corners, half_pixel_centers)
    cols = nearest_indices(in_w, width, align_corners, half_pixel_centers)
    x, out = images.data, array.array(images.data.typecode)
    for b in range(batch):
        for i in range(height):
            base = (b * in_h + rows[i]) * in_w
            for j in range(width):
                start = (base + cols[j]) * channels
                out.extend(x[start:start + channels])
    return CArray(out, (batch, height, width, channels), images.dtype)


def resize_nearest_grad(grads: CArray, size: Any, *, align_corners: bool = False,
                        half_pixel_centers: bool = False) -> CArray:
    in_h, in_w = (int(v) for v in size.data.tolist())
    batch, height, width, channels = _nhwc(grads)
    rows = nearest_indices(in_h, height, align_corners, half_pixel_centers)
    cols = nearest_indices(in_w, width, align_corners, half_pixel_centers)
    out = [0] * (batch * in_h * in_w * channels)
    g = grads.data
    for b in range(batch):
        for i in range(height):
            for j in range(width):
                source, target = ((b * height + i) * width + j) * channels, ((b * in_h + rows[i]) * in_w + cols[j])
                for c in range(channels):
                    out[target * channels + c] += g[source + c]
    return CArray(array.array(g.typecode, out), (batch, in_h, in_w, channels), grads.dtype)


# --- image files ----------------------------------------------------------------------------------------
def _bytes_of(contents: CArray) -> bytes:
    value = contents.data[0]
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _wrap(shape: tuple, samples: Any, dtype: Any) -> CArray:
    return CArray(array.array(TYPECODES[dtype.name], samples), shape, dtype)


def _string_scalar(data: bytes) -> CArray:
    from webflow.backends.arrays import carray

    return carray.from_value(data, dtypes.string)


def decode_png(contents: CArray, *, channels: int = 0, dtype: Any = dtypes.uint8) -> CArray:
    dtype = dtypes.as_dtype(dtype)
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, dtype.name, "single")
    return _wrap(shape, samples, dtype)


def decode_image(contents: CArray, *, channels: int = 0, dtype: Any = dtypes.uint8,
                 expand_animations: bool = True) -> CArray:
    dtype = dtypes.as_dtype(dtype)
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, dtype.name,
                                         "all" if expand_animations else "first")
    return _wrap(shape, samples, dtype)


def decode_gif(contents: CArray) -> CArray:
    shape, samples = image_codecs.decode(_bytes_of(contents), 0, "uint8", "gif-op")
    return _wrap(shape, samples, dtypes.uint8)


def decode_jpeg(contents: CArray, *, channels: int = 0, ratio: int = 1, **unused: Any) -> CArray:
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, "uint8", "single", ratio)
    return _wrap(shape, samples, dtypes.uint8)


def encode_png(image: CArray, *, compression: int = -1) -> CArray:
    sixteen = image.dtype == dtypes.uint16
    samples = image.data.tolist() if sixteen else image.data.tobytes()
    return _string_scalar(image_codecs.encode_png(samples, tuple(image.shape), sixteen, compression))


def encode_jpeg(image: CArray, *, quality: int = 95, progressive: bool = False, optimize_size: bool = False,
                chroma_downsampling: bool = True, x_density: int = 300, y_density: int = 300,
                **unused: Any) -> CArray:
    height, width, channels = image.shape
    return _string_scalar(image_codecs.encode_jpeg(image.data.tobytes(), height, width, channels, quality,
                                                   chroma_downsampling, progressive, optimize_size,
                                                   (x_density, y_density)))


# --- contrast -------------------------------------------------------------------------------------------
def adjust_contrast(images: CArray, contrast_factor: CArray) -> CArray:
    """AdjustContrastv2: y = (x - mean) * factor + mean per image and channel (sums in float64 here)."""
    height, width, channels = images.shape[-3:]
    plane, x, factor = height * width * channels, images.data, contrast_factor.data[0]
    out = array.array(x.typecode, bytes(len(x) * x.itemsize))
    for start in range(0, len(x), plane):
        for c in range(channels):
            indices = range(start + c, start + plane, channels)
            mean = sum(x[i] for i in indices) / (height * width)
            for i in indices:
                out[i] = (x[i] - mean) * factor + mean
    return CArray(out, images.shape, images.dtype)
