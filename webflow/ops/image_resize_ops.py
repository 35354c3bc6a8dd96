"""Image resizing ops: ResizeBilinear, ResizeNearestNeighbor and their gradients ResizeBilinearGrad,
ResizeNearestNeighborGrad, as TensorFlow registers them (the wrappers `tf.image.resize` & co. are image_ops.py).

Images are NHWC. Where each output pixel reads from (align_corners, half_pixel_centers) is one rule for every
backend, computed in float32 as TensorFlow does: framework/resize_geometry.py. ResizeBilinear's output is
always float32 (any input type); ResizeNearestNeighbor keeps the input's type.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import image_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.resize_geometry import bilinear_weights, check_resize, nearest_indices
from webflow.ops.convert import constant_value
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_gradient, register_op

_REAL = (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16, dtypes.int32, dtypes.int64, dtypes.float16,
         dtypes.bfloat16, dtypes.float32, dtypes.float64)


# --- shape rules and the kernels' argument checks ----------------------------------------------------------
def _image_dims(tensor: Any) -> list:
    if tensor.shape.rank is None:
        return [None] * 4
    if tensor.shape.rank != 4:
        raise ShapeError(f"Shape must be rank 4 but is rank {tensor.shape.rank}")
    return list(tensor.shape.as_tuple())


def _size_dims(size: Any) -> list:
    if size.shape.rank is not None:
        if size.shape.rank != 1:
            raise ShapeError(f"Shape must be rank 1 but is rank {size.shape.rank}")
        if size.shape.as_tuple()[0] not in (None, 2):
            raise ShapeError(f"Dimension must be 2 but is {size.shape.as_tuple()[0]}")
    value = constant_value(size)
    return [None, None] if value is None else [int(v) for v in value.tolist()]


def _resized_shape(out_dtype: Any = None) -> Any:
    def rule(inputs: list, attrs: dict) -> tuple:
        batch, _, _, channels = _image_dims(inputs[0])
        height, width = _size_dims(inputs[1])
        return output_spec([batch, height, width, channels], out_dtype or inputs[0].dtype.base_dtype)
    return rule


def _grad_shape(inputs: list, attrs: dict) -> tuple:
    """ResizeBilinearGrad: the original image's shape and type."""
    return output_spec(inputs[1].shape, inputs[1].dtype.base_dtype)


def _nearest_grad_shape(inputs: list, attrs: dict) -> tuple:
    batch, _, _, channels = _image_dims(inputs[0])
    height, width = _size_dims(inputs[1])
    return output_spec([batch, height, width, channels], inputs[0].dtype.base_dtype)


# --- ResizeBilinear ----------------------------------------------------------------------------------------
@register_op("ResizeBilinear", inputs=("images", "size"), shape=_resized_shape(dtypes.float32), allowed=_REAL,
             portable=image_kernels.resize_bilinear)
def resize_bilinear_kernel(images: Any, size: Any, *, align_corners: bool = False,
                           half_pixel_centers: bool = False) -> Any:
    """y[b, i, j] = lerp(lerp(x[top, left], x[top, right], dx), lerp(x[bottom, left], x[bottom, right], dx), dy)
    with top/bottom/dy (left/right/dx) from resize_geometry.bilinear_weights, in float32."""
    height, width = check_resize(images, size, align_corners, half_pixel_centers)
    top, bottom, dy = (np.asarray(v) for v in bilinear_weights(images.shape[1], height, align_corners,
                                                                 half_pixel_centers))
    left, right, dx = (np.asarray(v) for v in bilinear_weights(images.shape[2], width, align_corners,
                                                                 half_pixel_centers))
    x = images.astype(np.float32)
    dy, dx = dy.astype(np.float32)[:, None, None], dx.astype(np.float32)[:, None]
    upper, lower = x[:, top], x[:, bottom]
    top_row = upper[:, :, left] + (upper[:, :, right] - upper[:, :, left]) * dx
    bottom_row = lower[:, :, left] + (lower[:, :, right] - lower[:, :, left]) * dx
    return top_row + (bottom_row - top_row) * dy


@register_gradient("ResizeBilinear")
def _resize_bilinear_grad(op: Any, grad: Any) -> list:
    """d images = ResizeBilinearGrad(grad): each output's gradient shared among its four sources by weight."""
    attrs = {"align_corners": op.get_attr("align_corners"), "half_pixel_centers": op.get_attr("half_pixel_centers")}
    return [apply_op("ResizeBilinearGrad", [grad, op.inputs[0]], attrs), None]


@register_op("ResizeBilinearGrad", inputs=("grads", "original_image"), shape=_grad_shape,
             portable=image_kernels.resize_bilinear_grad)
def resize_bilinear_grad_kernel(grads: Any, original_image: Any, *, align_corners: bool = False,
                                half_pixel_centers: bool = False) -> Any:
    """dx[top, left] += g * (1 - dy) * (1 - dx), dx[top, right] += g * (1 - dy) * dx, dx[bottom, left] +=
    g * dy * (1 - dx), dx[bottom, right] += g * dy * dx, in the original image's type."""
    check_resize(original_image, grads.shape[1:3], align_corners, half_pixel_centers)
    batch, in_h, in_w, channels = original_image.shape
    top, bottom, dy = bilinear_weights(in_h, grads.shape[1], align_corners, half_pixel_centers)
    left, right, dx = bilinear_weights(in_w, grads.shape[2], align_corners, half_pixel_centers)
    top, bottom, left, right = (np.asarray(v) for v in (top, bottom, left, right))
    dy, dx = np.asarray(dy, np.float32)[:, None], np.asarray(dx, np.float32)[None, :]
    # per output pixel, its four targets in TensorFlow's order (top-left, top-right, bottom-left, bottom-right),
    # added one after another in row-major order as TensorFlow's loop adds them: the same float sums
    targets = np.stack([top[:, None] * in_w + left[None, :], top[:, None] * in_w + right[None, :],
                        bottom[:, None] * in_w + left[None, :], bottom[:, None] * in_w + right[None, :]], -1)
    weights_y = np.stack([1 - dy, 1 - dy, dy, dy], -1)
    weights_x = np.stack([np.broadcast_to(w, (dy.shape[0], dx.shape[1])) for w in (1 - dx, dx, 1 - dx, dx)], -1)
    g = grads.astype(np.float32)[:, :, :, None, :]
    terms = ((g * weights_y[None, :, :, :, None]) * weights_x[None, :, :, :, None]).astype(original_image.dtype)
    out = np.zeros((batch, in_h * in_w, channels), original_image.dtype)
    np.add.at(out, (slice(None), targets.reshape(-1)), terms.reshape(batch, -1, channels))
    return out.reshape(original_image.shape)


# --- ResizeNearestNeighbor -------------------------------------------------------------------------------
@register_op("ResizeNearestNeighbor", inputs=("images", "size"), shape=_resized_shape(), allowed=_REAL,
             portable=image_kernels.resize_nearest)
def resize_nearest_kernel(images: Any, size: Any, *, align_corners: bool = False,
                          half_pixel_centers: bool = False) -> Any:
    """y[b, i, j] = x[b, row(i), column(j)] (resize_geometry.nearest_indices)."""
    height, width = check_resize(images, size, align_corners, half_pixel_centers)
    rows = nearest_indices(images.shape[1], height, align_corners, half_pixel_centers)
    cols = nearest_indices(images.shape[2], width, align_corners, half_pixel_centers)
    return images[:, rows][:, :, cols]


@register_gradient("ResizeNearestNeighbor")
def _resize_nearest_grad(op: Any, grad: Any) -> list:
    """d images = ResizeNearestNeighborGrad(grad): each output's gradient added to the pixel it copied."""
    from webflow.ops import array_ops, indexing_ops

    image = op.inputs[0]
    static = image.shape.as_tuple()[1:3] if image.shape.rank is not None else (None, None)
    if all(d is not None for d in static):
        size = list(static)
    else:
        size = indexing_ops.strided_slice(array_ops.shape(image), [1], [3], [1])
    attrs = {"align_corners": op.get_attr("align_corners"), "half_pixel_centers": op.get_attr("half_pixel_centers")}
    return [apply_op("ResizeNearestNeighborGrad", [grad, size], attrs), None]


@register_op("ResizeNearestNeighborGrad", inputs=("grads", "size"), shape=_nearest_grad_shape,
             portable=image_kernels.resize_nearest_grad)
def resize_nearest_grad_kernel(grads: Any, size: Any, *, align_corners: bool = False,
                               half_pixel_centers: bool = False) -> Any:
    """dx[b, row(i), column(j)] += g[b, i, j], with row/column of the forward resize to grads' size."""
    height, width = (int(v) for v in size.tolist())
    if half_pixel_centers and align_corners:
        raise InvalidArgumentError(None, None, "If half_pixel_centers is True, align_corners must be False.")
    rows = np.asarray(nearest_indices(height, grads.shape[1], align_corners, half_pixel_centers))
    cols = np.asarray(nearest_indices(width, grads.shape[2], align_corners, half_pixel_centers))
    targets = (rows[:, None] * width + cols[None, :]).reshape(-1)  # row-major, the order TensorFlow adds in
    out = np.zeros((grads.shape[0], height * width, grads.shape[3]), grads.dtype)
    np.add.at(out, (slice(None), targets), grads.reshape(grads.shape[0], -1, grads.shape[3]))
    return out.reshape(grads.shape[0], height, width, grads.shape[3])


NotDifferentiable("ResizeBilinearGrad")  # as TensorFlow declares it; ResizeNearestNeighborGrad has no gradient
# at all there (tests/test_op_inventory.py's NO_GRADIENT): differentiating it raises LookupError, as in TensorFlow


# --- the raw wrappers (TF1's tf.image.resize_bilinear / resize_nearest_neighbor) -----------------------------
def resize_bilinear(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                    half_pixel_centers: bool = False) -> Any:
    return apply_op("ResizeBilinear", [images, size],
                    {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers}, name=name)


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                            half_pixel_centers: bool = False) -> Any:
    return apply_op("ResizeNearestNeighbor", [images, size],
                    {"align_corners": align_corners, "half_pixel_centers": half_pixel_centers}, name=name)

