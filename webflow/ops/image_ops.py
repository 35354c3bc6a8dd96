"""`tf.image`'s functions built from other ops, as TensorFlow's image_ops_impl.py builds them: resize (TF2's and TF1's
rules), convert_image_dtype, flips (fixed and random), random crops, per-image standardization, grey from RGB,
brightness and contrast. Crops and pads are image_crop_ops.py; the image ops themselves image_resize_ops.py
(ResizeBilinear ...), image_codec_ops.py (DecodePng ...) and image_adjust_ops.py (AdjustContrastv2). Images are
[height, width, channels] or a batch [n, height, width, channels].
"""

from __future__ import annotations

import math
import struct
from typing import Any

from webflow.framework import dtypes
from webflow.framework.resize_geometry import f32
from webflow.ops import (
    array_ops,
    binary_math_ops,
    concat_ops,
    control_flow_ops,
    image_adjust_ops,
    indexing_ops,
    logic_ops,
    manip_ops,
    math_ops,
    random_ops,
    reduction_ops,
    sum_mean_ops,
    unary_math_ops,
)
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.image_resize_ops import resize_bilinear, resize_nearest_neighbor
from webflow.ops.registry import op_scope


class ResizeMethod:
    """TF2's method names for `tf.image.resize`."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


class ResizeMethodV1:
    """TF1's numbered methods for `tf.image.resize_images`."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


def _rank(image: Any) -> int:
    rank = image.shape.rank
    if rank is None:
        raise ValueError("'image' contains no shape.")
    return rank


# --- resize ---------------------------------------------------------------------------------------------
def _resize_common(images: Any, resize_fn: Any, size: Any, name: str, skip_if_same: bool,
                   preserve_aspect_ratio: bool = False) -> Any:
    """image_ops_impl._resize_images_common: a single image is resized as a batch of one."""
    with op_scope(name):
        images = convert_to_tensor(images, name="images")
        if images.shape.rank is None:
            raise ValueError("'images' contains no shape.")
        if images.shape.rank not in (3, 4):
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        is_batch = images.shape.rank == 4
        if not is_batch:
            images = manip_ops.expand_dims(images, 0)
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            size = _aspect_preserving_size(images, size)
        static = constant_value(size)
        new_height, new_width = (None, None) if static is None else (int(v) for v in static.tolist())
        _, height, width, _ = images.shape.as_tuple()
        if skip_if_same and new_height is not None and (height, width) == (new_height, new_width):
            return images if is_batch else manip_ops.squeeze(images, axis=[0])
        images = resize_fn(images, size)
        if not is_batch:
            images = manip_ops.squeeze(images, axis=[0])
        return images


def _aspect_preserving_size(images: Any, size: Any) -> Any:
    """[round(h * s), round(w * s)] with s = min(size_h / h, size_w / w), in float32 ops as TensorFlow builds it;
    computed here when everything is known (TensorFlow folds that subgraph into constants: a static shape)."""
    dims = images.shape.as_tuple()
    static = constant_value(size)
    if static is not None and dims[1] is not None and dims[2] is not None:
        factor = min(f32(f32(float(v)) / f32(float(d))) for v, d in zip(static.tolist(), dims[1:3]))
        return convert_to_tensor([round(f32(factor * f32(float(d)))) for d in dims[1:3]], dtype=dtypes.int32)
    shape = array_ops.shape(images)
    current = [dims[axis] if dims[axis] is not None else
               indexing_ops.strided_slice(shape, [axis], [axis + 1], [1], shrink_axis_mask=1) for axis in (1, 2)]
    wanted = [indexing_ops.strided_slice(size, [i], [i + 1], [1], shrink_axis_mask=1) for i in (0, 1)]
    factors = [math_ops.truediv(math_ops.cast(w, dtypes.float32), math_ops.cast(c, dtypes.float32))
               for w, c in zip(wanted, current)]
    factor = binary_math_ops.minimum(*factors)
    scaled = [math_ops.cast(unary_math_ops.round(math_ops.multiply(factor, math_ops.cast(c, dtypes.float32))),
                            dtypes.int32) for c in current]
    return concat_ops.stack(scaled)


def resize(images: Any, size: Any, method: str = ResizeMethod.BILINEAR, preserve_aspect_ratio: bool = False,
           antialias: bool = False, name: str | None = None) -> Any:
    """TF2's `tf.image.resize`: half-pixel centres; bilinear gives float32, nearest keeps the dtype."""
    if antialias:
        raise NotImplementedError("webflow's tf.image.resize has no antialias (TensorFlow's ScaleAndTranslate) yet")

    def resize_fn(images_t: Any, new_size: Any) -> Any:
        if method == ResizeMethod.BILINEAR:
            return resize_bilinear(images_t, new_size, half_pixel_centers=True)
        if method == ResizeMethod.NEAREST_NEIGHBOR:
            return resize_nearest_neighbor(images_t, new_size, half_pixel_centers=True)
        raise ValueError(f"Resize method is not implemented: {method}")

    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR):
        raise ValueError(f"Resize method is not implemented: {method}")
    return _resize_common(images, resize_fn, size, name or "resize", False, preserve_aspect_ratio)


def resize_images(images: Any, size: Any, method: Any = ResizeMethodV1.BILINEAR, align_corners: bool = False,
                  preserve_aspect_ratio: bool = False, name: str | None = None) -> Any:
    """TF1's `tf.image.resize_images` (and `tf.compat.v1.image.resize`): legacy corners; same size = no op."""
    def resize_fn(images_t: Any, new_size: Any) -> Any:
        if method in (ResizeMethodV1.BILINEAR, ResizeMethod.BILINEAR):
            return resize_bilinear(images_t, new_size, align_corners=align_corners)
        if method in (ResizeMethodV1.NEAREST_NEIGHBOR, ResizeMethod.NEAREST_NEIGHBOR):
            return resize_nearest_neighbor(images_t, new_size, align_corners=align_corners)
        raise ValueError(f"Resize method is not implemented: {method}")

    return _resize_common(images, resize_fn, size, name or "resize", True, preserve_aspect_ratio)


# --- dtypes ---------------------------------------------------------------------------------------------
def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Any:
    """Cast after clipping to the range both dtypes hold (math_ops.saturate_cast, real dtypes)."""
    with op_scope(name or "saturate_cast") as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        low, high = _limits(value.dtype.base_dtype, dtype)
        value = binary_math_ops.maximum(binary_math_ops.minimum(value, convert_to_tensor(high, value.dtype)),
                                        convert_to_tensor(low, value.dtype))
        return math_ops.cast(value, dtype, name=scope or None)


def _limits(source: Any, target: Any) -> tuple:
    """The clip range, as numbers of the source dtype, nudged inside the target's range when a limit is not
    representable there (float32 cannot hold 2**31 - 1: TensorFlow steps to the next float towards zero)."""
    low, high = max(source.min, target.min), min(source.max, target.max)
    if not source.is_floating:
        return low, high
    rounded = f32 if source == dtypes.float32 else float
    low, high = rounded(low), rounded(high)
    while high > target.max:
        high = rounded(math.nextafter(high, 0.0)) if rounded is float else _next_float32_down(high)
    while low < target.min:
        low = rounded(math.nextafter(low, 0.0)) if rounded is float else -_next_float32_down(-low)
    return low, high


def _next_float32_down(value: float) -> float:
    """The float32 just below positive float32 `value` (its bit pattern minus one)."""
    (bits,) = struct.unpack("<I", struct.pack("<f", value))
    return struct.unpack("<f", struct.pack("<I", bits - 1))[0]


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Any:
    """Integers scale to their type's max (uint8 255 <-> float 1.0); floats to ints multiply by max + 0.5."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype).base_dtype
    source = image.dtype.base_dtype
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    if not (source.is_floating or source.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == source:
        return array_ops.identity(image, name=name)
    with op_scope(name or "convert_image") as scope:
        last = scope or None  # the last op is named after the scope itself, as TensorFlow's `name=name`
        cast = saturate_cast if saturate else math_ops.cast
        if source.is_integer and dtype.is_integer:
            if source.max > dtype.max:  # scale first, then cast
                return cast(binary_math_ops.floordiv(image, (source.max + 1) // (dtype.max + 1)), dtype, name=last)
            return math_ops.multiply(cast(image, dtype), (dtype.max + 1) // (source.max + 1), name=last)
        if source.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=last)
        if source.is_integer:
            return math_ops.multiply(math_ops.cast(image, dtype), 1.0 / source.max, name=last)
        return cast(math_ops.multiply(image, dtype.max + 0.5), dtype, name=last)


# --- flips ------------------------------------------------------------------------------------------------
def _flip(image: Any, flip_index: int, scope: str) -> Any:
    with op_scope(scope):
        image = convert_to_tensor(image, name="image")
        rank = _rank(image)
        if rank not in (3, 4):
            raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")
        return manip_ops.reverse(image, [flip_index if rank == 3 else flip_index + 1])


def flip_left_right(image: Any) -> Any:
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: Any) -> Any:
    return _flip(image, 0, "flip_up_down")


def _random_flip(image: Any, flip_index: int, seed: int | None, scope: str) -> Any:
    """One uniform draw per image: flipped when it is below 0.5 (a batch: round(u) chooses), as TensorFlow."""
    with op_scope(scope) as scope_name:
        image = convert_to_tensor(image, name="image")
        rank = _rank(image)
        if rank == 3:
            uniform = random_ops.random_uniform([], 0, 1.0, seed=seed)
            return control_flow_ops.cond(logic_ops.less(uniform, 0.5), lambda: manip_ops.reverse(image, [flip_index]),
                                         lambda: image, name=scope_name or None)
        if rank != 4:
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 (HWC) or 4 (NHWC) dimensions.")
        batch = indexing_ops.strided_slice(array_ops.shape(image), [0], [1], [1], shrink_axis_mask=1)
        uniform = random_ops.random_uniform(concat_ops.stack([batch]), 0, 1.0, seed=seed)
        flips = unary_math_ops.round(array_ops.reshape(uniform, concat_ops.stack([batch, 1, 1, 1])))
        flips = math_ops.cast(flips, image.dtype)
        flipped = manip_ops.reverse(image, [flip_index + 1])
        return math_ops.add(math_ops.multiply(flips, flipped),
                            math_ops.multiply(math_ops.subtract(convert_to_tensor(1, flips.dtype), flips), image))


def random_flip_left_right(image: Any, seed: int | None = None) -> Any:
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image: Any, seed: int | None = None) -> Any:
    return _random_flip(image, 0, seed, "random_flip_up_down")


# --- crops and pads ---------------------------------------------------------------------------------------
def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Any:
    """A window of `size` at an offset drawn uniformly (int32 draws modulo shape - size + 1), as TensorFlow."""
    with op_scope(name or "random_crop") as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        static_shape, static_size = value.shape, constant_value(size)
        if static_shape.is_fully_defined() and static_size is not None:
            if any(s < c for s, c in zip(static_shape.as_tuple(), static_size.tolist())):
                raise ValueError(f"Need value.shape >= size, got {list(static_shape.as_tuple())} "
                                 f"{static_size.tolist()}")
        shape = array_ops.shape(value)
        limit = math_ops.add(math_ops.subtract(shape, size), 1)
        offset = binary_math_ops.floormod(
            random_ops.random_uniform(array_ops.shape(shape), dtype=dtypes.int32, maxval=dtypes.int32.max,
                                      seed=seed), limit)
        return indexing_ops.slice(value, offset, size, name=scope or None)


# --- pixel values -----------------------------------------------------------------------------------------
def per_image_standardization(image: Any) -> Any:
    """(x - mean) / max(stddev, 1 / sqrt(number of values)), each image over its height, width and channels."""
    with op_scope("per_image_standardization") as scope:
        image = math_ops.cast(convert_to_tensor(image, name="image"), dtypes.float32)
        if _rank(image) < 3:
            raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.")
        axes = [-1, -2, -3]
        num_pixels = reduction_ops.reduce_prod(indexing_ops.strided_slice(array_ops.shape(image), [-3], [0], [1],
                                                                          end_mask=1))
        mean = sum_mean_ops.reduce_mean(image, axis=axes, keepdims=True)
        variance = sum_mean_ops.reduce_mean(binary_math_ops.squared_difference(image, mean), axis=axes,
                                            keepdims=True)
        min_stddev = unary_math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        stddev = binary_math_ops.maximum(unary_math_ops.sqrt(variance), min_stddev)
        return math_ops.truediv(math_ops.subtract(image, mean), stddev, name=scope or None)


def rgb_to_grayscale(images: Any, name: str | None = None) -> Any:
    """0.2989 R + 0.5870 G + 0.1140 B on the image as float32 in [0, 1], back to its dtype; last axis 1."""
    with op_scope(name or "rgb_to_grayscale") as scope:
        images = convert_to_tensor(images, name="images")
        as_float = convert_image_dtype(images, dtypes.float32)
        grey = binary_math_ops.tensordot(as_float, convert_to_tensor([0.2989, 0.5870, 0.1140]), [-1, -1])
        return convert_image_dtype(manip_ops.expand_dims(grey, -1), images.dtype.base_dtype, name=scope or None)


def grayscale_to_rgb(images: Any, name: str | None = None) -> Any:
    with op_scope(name or "grayscale_to_rgb"):
        images = convert_to_tensor(images, name="images")
        multiples = [1] * (_rank(images) - 1) + [3]
        return manip_ops.tile(images, multiples)


def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Any:
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def adjust_contrast(images: Any, contrast_factor: Any) -> Any:
    """(x - mean) * factor + mean per image and channel (AdjustContrastv2) on the image as float, back with
    saturation."""
    with op_scope("adjust_contrast") as scope:
        images = convert_to_tensor(images, name="images")
        original = images.dtype.base_dtype
        as_float = images if original in (dtypes.float16, dtypes.float32) else convert_image_dtype(images,
                                                                                                   dtypes.float32)
        adjusted = image_adjust_ops.adjust_contrastv2(as_float, contrast_factor, name=scope or None)
        return convert_image_dtype(adjusted, original, saturate=True)


def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Any:
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, factor)


def adjust_brightness(image: Any, delta: Any) -> Any:
    """image + delta on the image as float (integers via convert_image_dtype), back with saturation."""
    with op_scope("adjust_brightness"):
        image = convert_to_tensor(image, name="image")
        original = image.dtype.base_dtype
        as_float = image if original in (dtypes.float16, dtypes.float32) else convert_image_dtype(image, dtypes.float32)
        adjusted = math_ops.add(as_float, math_ops.cast(delta, as_float.dtype))
        return convert_image_dtype(adjusted, original, saturate=True)
