"""The bodies of TensorFlow's summary kernels (ops/summary_ops.py) and of TF2's summary data (summary/): the
histogram of tensorflow/core/lib/histogram/histogram.cc, the float-to-uint8 image scaling of
tensorflow/core/kernels/summary_image_op.cc and TF2's `convert_image_dtype`, and a PNG encoder.

Histogram (HistogramSummary). The bucket limits are fixed: 0, then +-1e-12 growing by 10% (`v *= 1.1`) while
below 1e20 (775 of each sign with DBL_MAX), 1551 limits in all. A value falls in the first bucket whose limit is greater
(`std::upper_bound`); bucket i counts the values in [limit[i-1], limit[i]). `sum` and `sum_squares` add in
float64 one value after another, as the C++ loop does (NumPy's `sum` adds pairwise, which can differ in the last
bits). The proto lists each non-empty bucket with its limit; a run of empty buckets collapses into one entry with
the run's last limit and count 0 (EncodeToProto with preserve_zero_buckets=false).

PNG (what a Summary.Image holds). Signature, IHDR (8-bit; grey, grey+alpha, RGB or RGBA by channel count),
one IDAT with the zlib stream (default level, as TensorFlow's compression -1) of the rows, each prefixed by
filter byte 0 (none), and IEND; each chunk ends with the CRC-32 of its type and data. Pure Python: no PIL.
TensorFlow's libpng picks other row filters, so the bytes differ from TensorFlow's; the pixels do not.
"""

from __future__ import annotations

import functools
import struct
import sys
import zlib
from typing import Any

from webflow.backends.arrays.numpy_arrays import np

DBL_MAX = sys.float_info.max


@functools.lru_cache(maxsize=1)
def default_bucket_limits() -> tuple:
    """histogram.cc's InitDefaultBucketsInner: -DBL_MAX, -1e20ish ... -1e-12, 0, 1e-12 ... 1e20ish, DBL_MAX."""
    positive = []
    value = 1.0e-12
    while value < 1.0e20:
        positive.append(value)
        value *= 1.1
    positive.append(DBL_MAX)
    return tuple([-v for v in reversed(positive)] + [0.0] + positive)


def histogram(values: Any) -> dict:
    """The fields of TensorFlow's HistogramProto for `values` (any shape, finite: the kernel checks):
    min, max, num, sum, sum_squares, bucket_limit, bucket."""
    x = np.asarray(values).astype(np.float64).reshape(-1)
    limits = default_bucket_limits()
    indices = np.minimum(np.searchsorted(np.asarray(limits), x, side="right"), len(limits) - 1)
    counts = np.bincount(indices, minlength=len(limits)).tolist()
    fields = {
        "min": float(x.min()) if x.size else DBL_MAX,        # histogram.cc's Clear(): min = the last limit
        "max": float(x.max()) if x.size else -DBL_MAX,
        "num": float(x.size),
        "sum": float(np.cumsum(x)[-1]) if x.size else 0.0,  # cumsum adds in order, as the C++ loop
        "sum_squares": float(np.cumsum(x * x)[-1]) if x.size else 0.0,
    }
    bucket_limit, bucket = [], []
    i = 0
    while i < len(counts):
        end, count = limits[i], counts[i]
        i += 1
        if count <= 0:  # a run of empty buckets becomes one entry
            while i < len(counts) and counts[i] <= 0:
                end, count = limits[i], counts[i]
                i += 1
        bucket_limit.append(end)
        bucket.append(float(count))
    fields["bucket_limit"] = bucket_limit
    fields["bucket"] = bucket
    return fields


# --- images ---------------------------------------------------------------------------------------------------
def normalize_image(pixels: Any, bad_color: Any) -> Any:
    """summary_image_op.cc's NormalizeFloatImage: one float image, as (height * width, depth), to uint8.

    Only positive values: scaled by 255 / max. Negative values too: scaled by 127 / max(|min|, |max|) and
    offset by 128. Min and max ignore pixels with a non-finite channel; such pixels become `bad_color`. The
    scale is a float32 quotient, the arithmetic is in the image's own float type, and the cast truncates."""
    dtype = pixels.dtype.type
    finite = np.isfinite(pixels).all(axis=1)
    good = pixels[finite].astype(np.float32)  # C++ compares `float value(values(i, j))`
    image_min = np.float32(good.min()) if good.size else np.float32(np.inf)
    image_max = np.float32(good.max()) if good.size else np.float32(-np.inf)
    threshold = np.float32(1e-6)
    if image_min < 0:
        max_val = max(abs(image_min), abs(image_max))
        scale = dtype(0.0 if max_val < threshold else np.float32(127.0) / max_val)
        offset = dtype(128.0)
    else:
        scale = dtype(0.0 if image_max < threshold else np.float32(255.0) / image_max)
        offset = dtype(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = (pixels * scale + offset).astype(np.uint8)
    scaled[~finite] = np.asarray(bad_color, np.uint8)[:pixels.shape[1]]
    return scaled


def convert_image_to_uint8(images: Any) -> Any:
    """TF2's `tf.image.convert_image_dtype(images, tf.uint8, saturate=True)`: floats (meant in [0, 1]) times
    255.5 in their own type, clipped to [0, 255] and truncated; wider integers divided by 2^(bits - 8)."""
    images = np.asarray(images)
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        scaled = images * images.dtype.type(255.5)
        with np.errstate(invalid="ignore"):
            return np.clip(scaled, 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu":
        info = np.iinfo(images.dtype)
        if info.max > 255:
            return np.clip(images // ((info.max + 1) // 256), 0, 255).astype(np.uint8)
        return images.astype(np.uint8) * np.uint8(256 // (info.max + 1))
    if images.dtype == np.bool_:
        return images.astype(np.uint8) * np.uint8(255)
    raise TypeError(f"images of dtype {images.dtype} cannot be converted to uint8")


_PNG_COLOR_TYPE = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type: grey, grey+alpha, RGB, RGBA


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(pixels: bytes, width: int, height: int, channels: int) -> bytes:
    """A PNG file of 8-bit pixels given row by row (height rows of width * channels bytes)."""
    if channels not in _PNG_COLOR_TYPE:
        raise ValueError(f"a PNG image has 1 to 4 channels, not {channels}")
    pixels = bytes(pixels)
    stride = width * channels
    if len(pixels) != stride * height:
        raise ValueError(f"{len(pixels)} bytes of pixels for a {width}x{height}x{channels} image")
    rows = b"".join(b"\x00" + pixels[row * stride:(row + 1) * stride] for row in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, _PNG_COLOR_TYPE[channels], 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", zlib.compress(rows))
            + _png_chunk(b"IEND", b""))


__all__ = ["default_bucket_limits", "histogram", "normalize_image", "convert_image_to_uint8", "encode_png"]
