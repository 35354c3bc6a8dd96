"""Image file ops: DecodePng, DecodeJpeg, DecodeGif, DecodeImage, EncodePng, EncodeJpeg, and their wrappers
(`tf.io.decode_png`, `tf.image.decode_jpeg`, `tf.io.decode_gif`, `tf.io.decode_image`, `tf.image.encode_png` ...).

The codecs are backends/portable/image_codecs.py (PNG in pure Python, byte-identical to TensorFlow's libpng
output; JPEG through Pillow); the NumPy kernels here and the portable kernels (backends/portable/image_kernels.py)
only wrap their plain values. TensorFlow registers no gradient for any of them (a string is on one side).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import png_filters
from webflow.backends.portable import image_codecs, image_kernels, png_codec
from webflow.framework import dtypes
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_op


def _bytes_of(contents: Any) -> bytes:
    value = contents.item() if hasattr(contents, "item") else contents
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def _rank(tensor: Any, rank: int) -> None:
    if tensor.shape.rank is not None and tensor.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank}")


def _decoded_shape(inputs: list, attrs: dict) -> tuple:
    _rank(inputs[0], 0)
    channels = attrs.get("channels", 0)
    if attrs.get("expand_animations", False):  # a GIF would give [frames, height, width, channels]
        return output_spec(None, attrs.get("dtype", dtypes.uint8))
    return output_spec([None, None, channels or None], attrs.get("dtype", dtypes.uint8))


def _encoded_shape(inputs: list, attrs: dict) -> tuple:
    _rank(inputs[0], 3)
    return output_spec([], dtypes.string)


def _as_array(shape: tuple, samples: Any, dtype: Any) -> Any:
    if isinstance(samples, (bytes, bytearray)):
        return np.frombuffer(bytes(samples), np.uint8).reshape(shape).copy()
    return np.asarray(samples, dtype=dtype.as_numpy_dtype).reshape(shape)


def _string_scalar(data: bytes) -> Any:
    out = np.empty((), dtype=object)
    out[()] = data
    return out


# --- decoding -----------------------------------------------------------------------------------------------
@register_op("DecodePng", inputs=("contents",), shape=_decoded_shape, portable=image_kernels.decode_png)
def decode_png_kernel(contents: Any, *, channels: int = 0, dtype: Any = dtypes.uint8) -> Any:
    """y[h, w, c] = the pixels of the image file (PNG, or any format decode_image reads), `channels` as asked."""
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, dtypes.as_dtype(dtype).name, "single")
    return _as_array(shape, samples, dtypes.as_dtype(dtype))


@register_op("DecodeJpeg", inputs=("contents",), shape=_decoded_shape, portable=image_kernels.decode_jpeg)
def decode_jpeg_kernel(contents: Any, *, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                       try_recover_truncated: bool = False, acceptable_fraction: float = 1.0,
                       dct_method: str = "") -> Any:
    """y[h, w, c] = the pixels of the JPEG (or PNG ...) file, uint8; libjpeg's accurate DCT (see image_codecs)."""
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, "uint8", "single", ratio)
    return _as_array(shape, samples, dtypes.uint8)


@register_op("DecodeImage", inputs=("contents",), shape=_decoded_shape, portable=image_kernels.decode_image)
def decode_image_kernel(contents: Any, *, channels: int = 0, dtype: Any = dtypes.uint8,
                        expand_animations: bool = True) -> Any:
    """y[h, w, c] = the pixels of a PNG, JPEG or GIF file as uint8, uint16 or float32 (scaled to [0, 1]);
    a GIF gives y[frame, h, w, 3] with expand_animations, else its first frame."""
    frames = "all" if expand_animations else "first"
    shape, samples = image_codecs.decode(_bytes_of(contents), channels, dtypes.as_dtype(dtype).name, frames)
    return _as_array(shape, samples, dtypes.as_dtype(dtype))


def _gif_shape(inputs: list, attrs: dict) -> tuple:
    _rank(inputs[0], 0)
    return output_spec([None, None, None, 3], dtypes.uint8)


@register_op("DecodeGif", inputs=("contents",), shape=_gif_shape, portable=image_kernels.decode_gif)
def decode_gif_kernel(contents: Any) -> Any:
    """y[frame, h, w, 3] = each frame of the GIF (a PNG or JPEG: one RGB frame), uint8."""
    shape, samples = image_codecs.decode(_bytes_of(contents), 0, "uint8", "gif-op")
    return _as_array(shape, samples, dtypes.uint8)


def decode_gif(contents: Any, name: str | None = None) -> Any:
    return apply_op("DecodeGif", [_string(contents)], {}, name=name)


def decode_png(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None) -> Any:
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.uint8, dtypes.uint16):
        raise TypeError(f"Value passed to parameter 'dtype' has DataType {dtype.name} not in list of allowed "
                        "values: uint8, uint16")
    return apply_op("DecodePng", [_string(contents)], {"channels": channels, "dtype": dtype}, name=name)


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1, dct_method: str = "",
                name: str | None = None) -> Any:
    attrs = {"channels": channels, "ratio": ratio, "fancy_upscaling": fancy_upscaling,
             "try_recover_truncated": try_recover_truncated, "acceptable_fraction": acceptable_fraction,
             "dct_method": dct_method}
    return apply_op("DecodeJpeg", [_string(contents)], attrs, name=name)


def decode_image(contents: Any, channels: int | None = None, dtype: Any = dtypes.uint8, name: str | None = None,
                 expand_animations: bool = True) -> Any:
    """`tf.io.decode_image`: PNG or JPEG (GIF, BMP, WebP are not read by webflow) by the file's first bytes."""
    from webflow.ops.registry import op_scope

    dtype = dtypes.as_dtype(dtype)
    attrs = {"channels": channels or 0, "dtype": dtype, "expand_animations": expand_animations}
    with op_scope(name or "decode_image"):
        return apply_op("DecodeImage", [_string(contents)], attrs)


def _string(contents: Any) -> Any:
    from webflow.ops.convert import convert_to_tensor

    return convert_to_tensor(contents, dtype=dtypes.string)


# --- encoding -----------------------------------------------------------------------------------------------
@register_op("EncodePng", inputs=("image",), shape=_encoded_shape, allowed=(dtypes.uint8, dtypes.uint16),
             portable=image_kernels.encode_png)
def encode_png_kernel(image: Any, *, compression: int = -1) -> Any:
    """y = the PNG file of image[h, w, c] (c = 1..4, 8 or 16 bits), the bytes TensorFlow's libpng writes."""
    sixteen = image.dtype == np.uint16
    image_codecs.check_png_image(image.shape, compression)
    height, width, channels = image.shape
    rows = np.ascontiguousarray(image.astype(">u2") if sixteen else image).view(np.uint8).reshape(
        height, width * channels * (2 if sixteen else 1))
    filtered = png_filters.filtered_rows(rows, channels * (2 if sixteen else 1))
    return _string_scalar(png_codec.encode_filtered(filtered, height, width, channels, sixteen, compression))


@register_op("EncodeJpeg", inputs=("image",), shape=_encoded_shape, allowed=(dtypes.uint8,),
             portable=image_kernels.encode_jpeg)
def encode_jpeg_kernel(image: Any, *, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                       optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: str = "in",
                       x_density: int = 300, y_density: int = 300, xmp_metadata: str = "") -> Any:
    """y = a JPEG file of image[h, w, c] (c = 1 or 3) through Pillow (libjpeg-turbo); not TensorFlow's bytes."""
    height, width, channels = image.shape
    data = image_codecs.encode_jpeg(np.ascontiguousarray(image).tobytes(), height, width, channels, quality,
                                    chroma_downsampling, progressive, optimize_size, (x_density, y_density))
    return _string_scalar(data)


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> Any:
    return apply_op("EncodePng", [image], {"compression": compression}, name=name)


def encode_jpeg(image: Any, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "", name: str | None = None) -> Any:
    attrs = {"format": format, "quality": quality, "progressive": progressive, "optimize_size": optimize_size,
             "chroma_downsampling": chroma_downsampling, "density_unit": density_unit, "x_density": x_density,
             "y_density": y_density, "xmp_metadata": xmp_metadata}
    return apply_op("EncodeJpeg", [image], attrs, name=name)
