"""AdjustContrastv2: each channel of each image moved away from (factor > 1) or towards (factor < 1) its mean,
y = (x - mean) * factor + mean, on float images [..., height, width, channels]. `tf.image.adjust_contrast` (the
dtype conversions around it) and `random_contrast` are image_ops.py. TensorFlow registers no gradient for it.

The mean is summed as TensorFlow's CPU kernel sums it (adjust_contrast_op.cc): the pixels halved pairwise, the
second half added onto the first, until one pixel is left; then scaled by 1 / (height * width) in float32. The same
float32 rounding, so the same numbers.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import image_kernels
from webflow.framework import dtypes
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_op


def _contrast_shape(inputs: list, attrs: dict) -> tuple:
    images, factor = inputs
    if images.shape.rank is not None and images.shape.rank < 3:
        raise ShapeError(f"Shape must be at least rank 3 but is rank {images.shape.rank}")
    if factor.shape.rank not in (None, 0):
        raise ShapeError(f"Shape must be rank 0 but is rank {factor.shape.rank}")
    return output_spec(images.shape, images.dtype.base_dtype)


def pairwise_pixel_sums(planes: Any) -> Any:
    """planes [n, pixels, channels] float32 -> [n, channels]: TensorFlow's halving summation."""
    remaining = planes.shape[1]
    right, left = remaining // 2, remaining - remaining // 2
    sums = planes[:, :left].copy()
    sums[:, :right] = planes[:, left:left + right] + planes[:, :right]
    remaining = left
    while remaining > 1:
        right, left = remaining // 2, remaining - remaining // 2
        sums[:, :right] += sums[:, left:left + right]
        remaining = left
    return sums[:, 0]


@register_op("AdjustContrastv2", inputs=("images", "contrast_factor"), shape=_contrast_shape,
             allowed=(dtypes.float16, dtypes.float32), portable=image_kernels.adjust_contrast)
def adjust_contrast_kernel(images: Any, contrast_factor: Any) -> Any:
    """y = (x - mean) * factor + mean, the mean of each image's channel over its height and width."""
    height, width, channels = images.shape[-3:]
    planes = images.astype(np.float32).reshape(-1, height * width, channels)
    mean = pairwise_pixel_sums(planes) * np.float32(np.float32(1.0) / np.float32(height * width))
    factor = np.float32(contrast_factor)
    out = (planes - mean[:, None, :]) * factor + mean[:, None, :]
    return out.reshape(images.shape).astype(images.dtype)


def adjust_contrastv2(images: Any, contrast_factor: Any, name: str | None = None) -> Any:
    return apply_op("AdjustContrastv2", [images, contrast_factor], name=name)
