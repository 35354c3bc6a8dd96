"""`tf.image`'s crops and pads, as image_ops_impl.py builds them: crop_to_bounding_box, pad_to_bounding_box,
resize_with_crop_or_pad (TF1: resize_image_with_crop_or_pad), central_crop.

Sizes known when the graph is built are plain ints (the result has a static shape, and bad boxes are a ValueError
then, with TensorFlow's messages); an image of unknown height or width (what decode_png gives) is cropped with the
same arithmetic on its run-time shape, as TensorFlow does (without TensorFlow's run-time asserts on bad boxes).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.context import executing_eagerly as context_executing_eagerly
from webflow.ops import array_ops, binary_math_ops, concat_ops, indexing_ops, manip_ops, math_ops, pad_ops
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.registry import op_scope


def _batched(image: Any) -> tuple:
    """(is_batch, the image as a batch [n, h, w, c], height, width): ints where static, else scalar tensors."""
    image = convert_to_tensor(image, name="image")
    rank = image.shape.rank
    if rank not in (3, 4):
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 (HWC) or 4 (NHWC) dimensions.")
    batched = image if rank == 4 else manip_ops.expand_dims(image, 0)
    return rank == 4, batched, _dim(batched, 1), _dim(batched, 2)


def _dim(image: Any, axis: int) -> Any:
    static = image.shape.as_tuple()[axis]
    if static is not None:
        return static
    return indexing_ops.strided_slice(array_ops.shape(image), [axis], [axis + 1], [1], shrink_axis_mask=1)


def _unbatch(is_batch: bool, image: Any) -> Any:
    return image if is_batch else manip_ops.squeeze(image, axis=[0])


def _max(x: Any, y: Any) -> Any:
    return binary_math_ops.maximum(x, y) if is_tensor_like(x) or is_tensor_like(y) else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return binary_math_ops.minimum(x, y) if is_tensor_like(x) or is_tensor_like(y) else min(x, y)


def _with_static_size(result: Any, image: Any, height: Any, width: Any) -> Any:
    """The result's shape with the target sizes that are plain ints (TensorFlow's set_shape after the op)."""
    batch, _, _, depth = image.shape.as_tuple()
    return _with_static_dims(result, [batch, height, width, depth])


def _with_static_dims(result: Any, dims: list) -> Any:
    if not context_executing_eagerly():
        result.set_shape([None if is_tensor_like(d) else d for d in dims])
    return result


def _all_static(*values: Any) -> bool:
    return not any(is_tensor_like(v) for v in values)


def _vector(values: list) -> Any:
    """A shape-like int32 vector: a Python list when every entry is known, else a Pack of them."""
    if _all_static(*values):
        return values
    return concat_ops.stack([convert_to_tensor(v, dtype=dtypes.int32) for v in values])


def crop_to_bounding_box(image: Any, offset_height: Any, offset_width: Any, target_height: Any,
                         target_width: Any) -> Any:
    """image[offset_height : offset_height + target_height, offset_width : offset_width + target_width]."""
    with op_scope("crop_to_bounding_box"):
        is_batch, batched, height, width = _batched(image)
        if _all_static(offset_height, offset_width):
            if offset_height < 0 or offset_width < 0:
                raise ValueError("offset_width must be >= 0." if offset_width < 0 else "offset_height must be >= 0.")
        if _all_static(target_height, target_width):
            if target_height <= 0 or target_width <= 0:
                raise ValueError("target_width must be > 0." if target_width <= 0 else "target_height must be > 0.")
        if _all_static(offset_height, target_height, height) and offset_height + target_height > height:
            raise ValueError("height must be >= target + offset.")
        if _all_static(offset_width, target_width, width) and offset_width + target_width > width:
            raise ValueError("width must be >= target + offset.")
        cropped = indexing_ops.slice(batched, _vector([0, offset_height, offset_width, 0]),
                                     _vector([-1, target_height, target_width, -1]))
        return _unbatch(is_batch, _with_static_size(cropped, batched, target_height, target_width))


def pad_to_bounding_box(image: Any, offset_height: Any, offset_width: Any, target_height: Any,
                        target_width: Any) -> Any:
    """The image placed at (offset_height, offset_width) in zeros of target_height x target_width."""
    with op_scope("pad_to_bounding_box"):
        is_batch, batched, height, width = _batched(image)
        after_height = target_height - offset_height - height
        after_width = target_width - offset_width - width
        if _all_static(offset_height, offset_width):
            if offset_height < 0 or offset_width < 0:
                raise ValueError("offset_width must be >= 0" if offset_width < 0 else "offset_height must be >= 0")
        if _all_static(after_height) and after_height < 0:
            raise ValueError("height must be <= target - offset")
        if _all_static(after_width) and after_width < 0:
            raise ValueError("width must be <= target - offset")
        paddings = _vector([0, 0, offset_height, after_height, offset_width, after_width, 0, 0])
        paddings = [paddings[i:i + 2] for i in range(0, 8, 2)] if isinstance(paddings, list) else \
            array_ops.reshape(paddings, [4, 2])
        padded = pad_ops.pad(batched, paddings)
        return _unbatch(is_batch, _with_static_size(padded, batched, target_height, target_width))


def resize_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> Any:
    """Centred: crops (offset (size - target) // 2) or pads with zeros (offset (target - size) // 2)."""
    with op_scope("resize_image_with_crop_or_pad"):
        is_batch, batched, height, width = _batched(image)
        if _all_static(target_height, target_width) and (target_height <= 0 or target_width <= 0):
            raise ValueError("target_width must be > 0." if target_width <= 0 else "target_height must be > 0.")
        width_diff, height_diff = target_width - width, target_height - height
        cropped = crop_to_bounding_box(batched, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                       _min(target_height, height), _min(target_width, width))
        padded = pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0), target_height,
                                     target_width)
        return _unbatch(is_batch, padded)


def central_crop(image: Any, central_fraction: float) -> Any:
    """The centre: int((size - size * fraction) / 2) cut from each side (in float64 for run-time sizes)."""
    with op_scope("central_crop"):
        image = convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        is_batch, batched, height, width = _batched(image)
        top, left = (_crop_start(size, central_fraction) for size in (height, width))
        begin, size = [top, left, 0], [height - top * 2, width - left * 2, -1]
        if is_batch:
            begin, size = [0] + begin, [-1] + size
        cropped = indexing_ops.slice(image, _vector(begin), _vector(size))
        dims = list(image.shape.as_tuple())
        dims[-3:-1] = size[-3:-1]  # the cropped height and width (ints, or tensors: unknown)
        return _with_static_dims(cropped, dims)


def _crop_start(size: Any, fraction: float) -> Any:
    if not is_tensor_like(size):
        return int((float(size) - float(size) * fraction) / 2)
    # TensorFlow casts the fraction to float64 from a float32 tensor: 0.6 is 0.60000002 there, and
    # int((5 - 5 * 0.60000002) / 2) is 0, not the 1 of the static path
    fraction = math_ops.cast(convert_to_tensor(fraction, dtype=dtypes.float32), dtypes.float64)
    as_float = math_ops.cast(size, dtypes.float64)
    return math_ops.cast((as_float - as_float * fraction) / 2, dtypes.int32)
