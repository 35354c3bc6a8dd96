"""`wf.image`: TensorFlow 2's image namespace (ops/image_ops.py, image_resize_ops.py, image_codec_ops.py).

`wf.image.resize(images, [h, w])` uses half-pixel centres as TF2 does; TF1's `tf.image` (legacy corners,
`resize_images`) is compat/v1_image.py.
"""

# ruff: noqa: F401
from webflow.ops.image_codec_ops import decode_gif, decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from webflow.ops.image_crop_ops import central_crop, crop_to_bounding_box, pad_to_bounding_box, resize_with_crop_or_pad
from webflow.ops.image_ops import (
    ResizeMethod,
    adjust_brightness,
    adjust_contrast,
    convert_image_dtype,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize,
    rgb_to_grayscale,
)

__all__ = ["ResizeMethod", "adjust_brightness", "adjust_contrast", "central_crop", "convert_image_dtype",
           "crop_to_bounding_box", "decode_gif", "decode_image", "decode_jpeg", "decode_png", "encode_jpeg",
           "encode_png", "flip_left_right", "flip_up_down", "grayscale_to_rgb", "pad_to_bounding_box",
           "per_image_standardization", "random_brightness", "random_contrast", "random_crop",
           "random_flip_left_right", "random_flip_up_down", "resize", "resize_with_crop_or_pad", "rgb_to_grayscale"]
