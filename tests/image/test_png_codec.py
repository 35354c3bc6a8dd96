"""The pure-Python PNG codec (webflow/backends/portable/png_codec.py) through `tf.io.decode_png` / `encode_png`:
files written from the specification (tests/image/png_files.py: every colour type, bit depths 1-16, palettes,
tRNS, Adam7, all five row filters) decode to the pixels they hold; what webflow writes decodes to what it was given,
by webflow and by Pillow (an independent decoder); damaged files raise InvalidArgumentError."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from png_files import GREY, RGB, cases, png_file

import webflow as wf
from webflow.backends.portable import png_codec
from webflow.framework.errors import InvalidArgumentError

CASES = cases()


@pytest.mark.parametrize("name,data,as8,as16", CASES, ids=[c[0] for c in CASES])
def test_decodes_spec_files(name: str, data: bytes, as8: np.ndarray, as16: np.ndarray) -> None:
    got8 = wf.io.decode_png(data).numpy()
    assert got8.dtype == np.uint8 and np.array_equal(got8, as8)
    got16 = wf.io.decode_png(data, dtype=wf.uint16).numpy()
    assert got16.dtype == np.uint16 and np.array_equal(got16, as16)


def test_grey_transparency_gives_alpha_when_asked() -> None:
    grey = np.array([[[0], [10], [20]]])
    data = png_file(grey, 8, GREY, trns=struct.pack(">H", 10))
    assert wf.io.decode_png(data).numpy().tolist() == [[[0], [10], [20]]]  # TensorFlow ignores tRNS here
    rgba = wf.io.decode_png(data, channels=4).numpy()
    assert rgba[0, :, 3].tolist() == [255, 0, 255] and rgba[0, :, 0].tolist() == [0, 10, 20]


def test_rgb_transparency_key() -> None:
    image = np.array([[[1, 2, 3], [4, 5, 6]]])
    data = png_file(image, 8, RGB, trns=struct.pack(">HHH", 4, 5, 6))
    assert wf.io.decode_png(data, channels=4).numpy()[0, :, 3].tolist() == [255, 0]


@pytest.mark.parametrize("channels", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_round_trip(channels: int, dtype: type) -> None:
    rng = np.random.default_rng(channels)
    image = rng.integers(0, np.iinfo(dtype).max + 1, (13, 17, channels), dtype=dtype)
    data = wf.io.encode_png(image).numpy()
    back = wf.io.decode_png(data, dtype=wf.as_dtype(dtype)).numpy()
    assert back.dtype == dtype and np.array_equal(back, image)


@pytest.mark.parametrize("channels,mode", [(1, "L"), (2, "LA"), (3, "RGB"), (4, "RGBA")])
def test_pillow_reads_what_webflow_writes(channels: int, mode: str) -> None:
    image_module = pytest.importorskip("PIL.Image")
    image = np.random.default_rng(9).integers(0, 256, (40, 30, channels), dtype=np.uint8)
    decoded = image_module.open(io.BytesIO(wf.io.encode_png(image, compression=3).numpy()))
    assert decoded.mode == mode
    assert np.array_equal(np.asarray(decoded).reshape(image.shape), image)


def test_large_image_spans_several_idat_chunks() -> None:
    image = np.random.default_rng(1).integers(0, 256, (100, 120, 3), dtype=np.uint8)
    data = wf.io.encode_png(image).numpy()
    assert data.count(b"IDAT") >= 3
    assert np.array_equal(wf.io.decode_png(data).numpy(), image)


def test_filters_are_chosen_per_row() -> None:
    """A smooth gradient: libpng's heuristic picks Sub/Up/Paeth over None, and the choice is undone exactly."""
    ramp = np.broadcast_to(np.arange(64, dtype=np.uint8)[None, :, None] * 3, (16, 64, 3)).copy()
    data = wf.io.encode_png(ramp).numpy()
    header, compressed = png_codec._read_chunks(data)
    raw = zlib.decompress(compressed)
    kinds = {raw[r * (64 * 3 + 1)] for r in range(16)}
    assert kinds - {0}, kinds
    assert np.array_equal(wf.io.decode_png(data).numpy(), ramp)


@pytest.mark.parametrize("damage", ["signature", "crc", "truncated", "zlib"])
def test_damaged_files(damage: str) -> None:
    data = bytearray(wf.io.encode_png(np.zeros((4, 4, 3), np.uint8)).numpy())
    if damage == "signature":
        data[:8] = b"notapng!"
        message = "Unknown image file format"
    elif damage == "crc":
        data[29] ^= 1  # inside IHDR's CRC
        message = "Invalid PNG data"
    elif damage == "truncated":
        data = data[:40]
        message = "Invalid PNG data"
    else:  # IDAT's body replaced by bytes that are not a zlib stream, its CRC made right again
        start = data.index(b"IDAT") + 4
        (length,) = struct.unpack(">I", data[start - 8:start - 4])
        data[start:start + length] = b"\xff" * length
        data[start + length:start + length + 4] = struct.pack(">I", zlib.crc32(b"IDAT" + b"\xff" * length))
        message = "Invalid PNG data"
    with pytest.raises(InvalidArgumentError, match=message):
        wf.io.decode_png(bytes(data))


def test_channel_and_dtype_errors() -> None:
    data = wf.io.encode_png(np.zeros((2, 2, 3), np.uint8)).numpy()
    with pytest.raises(InvalidArgumentError, match="`channels` must be 0, 1, 3 or 4 but got 2"):
        wf.io.decode_png(data, channels=2)
    with pytest.raises(InvalidArgumentError, match=r"image must have 1, 2, 3, or 4 channels, got 5"):
        wf.io.encode_png(np.zeros((2, 2, 5), np.uint8))
    with pytest.raises(InvalidArgumentError, match=r"image must be 3-dimensional\[2,2\]"):
        wf.io.encode_png(np.zeros((2, 2), np.uint8))
    with wf.Graph().as_default(), pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
        wf.io.encode_png(np.zeros((2, 2), np.uint8))
