"""The image decoders and encoders behind DecodePng, DecodeJpeg, DecodeGif, DecodeImage, EncodePng and EncodeJpeg,
for every backend: each returns plain Python values ((height, width, channels), flat samples) that the NumPy
kernels wrap as arrays and the portable kernels as CArrays.

As TensorFlow 2.21 (core/kernels/image/decode_image_op.cc): every decode op sniffs the format from the first
bytes, so decode_png also reads a JPEG and decode_jpeg a PNG. PNG is png_codec.py (pure Python). JPEG needs
Pillow (libjpeg-turbo): its decoder is libjpeg's ISLOW DCT with fancy upsampling, which is TensorFlow's
dct_method="INTEGER_ACCURATE" pixel for pixel; TensorFlow's default ("" = INTEGER_FAST) differs from it by a few
levels in some pixels (tests/image/test_jpeg_tensorflow.py measures it). GIF frames are composited by Pillow.
"""

from __future__ import annotations

import io
from typing import Any

from webflow.backends.portable import png_codec
from webflow.framework.errors import InvalidArgumentError, UnimplementedError

UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."


def sniff(data: bytes) -> str:
    if data[:8] == png_codec.SIGNATURE:
        return "png"
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:4] == b"GIF8":
        return "gif"
    if data[:2] == b"BM":
        return "bmp"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "unknown"


def check_channels(channels: int) -> None:
    if channels not in (0, 1, 3, 4):
        raise InvalidArgumentError(None, None, f"`channels` must be 0, 1, 3 or 4 but got {channels}")


def decode(data: bytes, channels: int, dtype_name: str, frames: str = "single", ratio: int = 1) -> tuple:
    """(shape, flat samples) of an image file as `dtype_name` (uint8, uint16 or float32). `frames` says what a GIF
    gives: "single" (DecodePng, DecodeJpeg: [h, w, 3], an animation is an error), "all" (DecodeGif, DecodeImage with
    expand_animations: [frames, h, w, 3]) or "first" (DecodeImage without expand_animations: [h, w, 3]); DecodeGif
    ("gif-op") reads a PNG or JPEG too, as one RGB frame [1, h, w, 3]."""
    check_channels(channels)
    kind = sniff(data)
    if frames == "gif-op" and kind != "gif":
        channels = 3
    if kind == "png":
        shape, samples = _decode_png(data, channels, dtype_name)
    elif kind == "jpeg":
        if channels == 4:
            raise InvalidArgumentError(None, None, "JPEG does not support 4 channels")
        shape, samples = _widened(*decode_jpeg(data, channels, ratio), dtype_name)
    elif kind == "gif":
        if channels not in (0, 3):
            raise InvalidArgumentError(None, None, f"channels must be 0 or 3 for GIF, got {channels}")
        return _widened(*decode_gif(data, "all" if frames == "gif-op" else frames), dtype_name)
    elif kind == "unknown":
        raise InvalidArgumentError(None, None, UNKNOWN_FORMAT)
    else:
        raise UnimplementedError(None, None, f"webflow decodes PNG, JPEG and GIF images, not {kind.upper()}")
    return ((1,) + shape if frames == "gif-op" else shape), samples


def _widened(shape: tuple, samples: bytes, dtype_name: str) -> tuple:
    """8-bit samples as TensorFlow widens them: uint16 x * 257, float32 x * (1 / 255)."""
    if dtype_name == "uint16":
        return shape, [v * 257 for v in samples]
    if dtype_name == "float32":
        return shape, [v * _INVERSE_255 for v in samples]
    return shape, samples


_INVERSE_255 = png_codec.struct.unpack("f", png_codec.struct.pack("f", 1 / 255))[0]
_INVERSE_65535 = png_codec.struct.unpack("f", png_codec.struct.pack("f", 1 / 65535))[0]


def _decode_png(data: bytes, channels: int, dtype_name: str) -> tuple:
    try:
        height, width, wanted, samples = png_codec.decode(data, channels, sixteen_bit=dtype_name != "uint8")
    except png_codec.PNGError as error:
        raise InvalidArgumentError(None, None, f"Invalid PNG data, size {len(data)}: {error}") from None
    if dtype_name == "float32":  # TensorFlow decodes to uint16, then scales by 1/65535
        samples = [v * _INVERSE_65535 for v in samples]
    return (height, width, wanted), samples


# --- JPEG through Pillow --------------------------------------------------------------------------------
def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise UnimplementedError(None, None, "JPEG images need Pillow: pip install Pillow") from None
    return Image


def decode_jpeg(data: bytes, channels: int, ratio: int = 1) -> tuple:
    """((height, width, channels), bytes): grey from a colour JPEG is its luma (Y) plane, as libjpeg gives it;
    `ratio` 2, 4 or 8 is libjpeg's scaled decoding (ceil(size / ratio) pixels), TensorFlow's pixels too."""
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError(None, None, f"ratio must be 1, 2, 4, or 8, got {ratio}")
    image_module = _pillow()
    try:
        image = image_module.open(io.BytesIO(data))
        if channels == 1 or ratio > 1:  # libjpeg's own grey output (not RGB converted afterwards), its scaling
            size = (max(1, image.width // ratio), max(1, image.height // ratio))
            image.draft("L" if channels == 1 else "RGB", size)
        image.load()
    except Exception:  # noqa: BLE001 - Pillow raises several kinds for damaged data
        raise InvalidArgumentError(None, None, "jpeg::Uncompress failed. Invalid JPEG data or crop window.") from None
    if channels == 0:
        channels = 1 if image.mode == "L" else 3
    image = image.convert("L" if channels == 1 else "RGB")
    return (image.height, image.width, channels), image.tobytes()


def decode_gif(data: bytes, frames: str) -> tuple:
    """((frames, height, width, 3) or (height, width, 3), bytes): each frame composited to RGB by Pillow, which
    gives TensorFlow's pixels on the files tests/image/test_gif_tensorflow.py checks."""
    image_module = _pillow()
    try:
        image = image_module.open(io.BytesIO(data))
        count = getattr(image, "n_frames", 1)
        if frames == "single" and count > 1:
            raise InvalidArgumentError(None, None, f"Got {count} frames, but animated gifs can only be decoded by "
                                       "tf.io.decode_gif or tf.io.decode_image")
        pixels = []
        for index in range(count if frames == "all" else 1):
            image.seek(index)
            pixels.append(image.convert("RGB").tobytes())
    except InvalidArgumentError:
        raise
    except Exception:  # noqa: BLE001 - Pillow raises several kinds for damaged data
        raise InvalidArgumentError(None, None, "Invalid GIF data (size " + str(len(data)) + ")") from None
    shape = (image.height, image.width, 3)
    return ((len(pixels),) + shape if frames == "all" else shape), b"".join(pixels)


def encode_jpeg(samples: bytes, height: int, width: int, channels: int, quality: int = 95,
                chroma_downsampling: bool = True, progressive: bool = False, optimize_size: bool = False,
                density: tuple = (300, 300)) -> bytes:
    image_module = _pillow()
    if channels not in (1, 3):
        raise InvalidArgumentError(None, None, f"image must have 1 or 3 channels, got {channels}")
    image = image_module.frombytes("L" if channels == 1 else "RGB", (width, height), bytes(samples))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality, subsampling=2 if chroma_downsampling else 0,
               progressive=progressive, optimize=optimize_size, dpi=density)
    return out.getvalue()


# --- PNG encoding ---------------------------------------------------------------------------------------
def encode_png(samples: Any, shape: tuple, sixteen_bit: bool, compression: int) -> bytes:
    check_png_image(shape, compression)
    height, width, channels = shape
    return png_codec.encode(samples, height, width, channels, sixteen_bit, compression)


def check_png_image(shape: tuple, compression: int) -> None:
    """EncodePng's run-time checks, with TensorFlow's messages."""
    if len(shape) != 3:
        raise InvalidArgumentError(None, None, f"image must be 3-dimensional[{','.join(str(d) for d in shape)}]")
    height, width, channels = shape
    if channels not in (1, 2, 3, 4):
        raise InvalidArgumentError(None, None, f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if not -1 <= compression <= 9:
        raise InvalidArgumentError(None, None, f"compression should be in [-1,9], got {compression}")
