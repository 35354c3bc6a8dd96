"""`tf.compat.v1.image`: TF1's image namespace. Its `resize` is `resize_images` (legacy pixel corners, numbered
methods in `ResizeMethod`, a same-size resize returns the image unchanged); the rest is TF2's (webflow/image.py)."""

# ruff: noqa: F401
from webflow.image import (
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    flip_left_right,
    flip_up_down,
    grayscale_to_rgb,
    pad_to_bounding_box,
    per_image_standardization,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize_with_crop_or_pad,
    rgb_to_grayscale,
)
from webflow.ops.image_crop_ops import resize_with_crop_or_pad as resize_image_with_crop_or_pad
from webflow.ops.image_ops import ResizeMethodV1 as ResizeMethod
from webflow.ops.image_ops import resize_images
from webflow.ops.image_ops import resize_images as resize
from webflow.ops.image_resize_ops import resize_bilinear, resize_nearest_neighbor
