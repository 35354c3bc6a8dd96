"""Fuzzed image and audio files: decode_png / decode_jpeg / decode_gif / decode_image (backends/portable/
png_codec.py, image_codecs.py) and decode_wav (wav_codec.py) answer damage with InvalidArgumentError, as
TensorFlow's kernels do; forged sizes in a header must not allocate."""

from __future__ import annotations

import struct
import zlib

import pytest
from fuzz_support import corpus_files, expect_clean, mutated
from hypothesis import given

import webflow as wf

PIXELS = wf.constant([[[0, 10, 20], [30, 40, 50]], [[60, 70, 80], [90, 100, 110]]], wf.uint8)
PNG = wf.io.encode_png(PIXELS).numpy()
JPEG = wf.io.encode_jpeg(PIXELS).numpy()
WAV = wf.audio.encode_wav(wf.constant([[0.0, 0.5], [-0.5, 1.0], [0.25, -1.0]]), 8000).numpy()
# The smallest GIF: 1x1, a two-colour global palette, one image.
GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def huge_png(width: int, height: int) -> bytes:
    """A PNG whose IHDR (with a correct CRC) claims `width` x `height` pixels, followed by a tiny IDAT."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return PNG[:8] + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 16)) + _chunk(b"IEND", b"")


DECODERS = {
    "png": lambda data: wf.io.decode_png(data, channels=3),
    "png16": lambda data: wf.io.decode_png(data, dtype=wf.uint16),
    "jpeg": lambda data: wf.io.decode_jpeg(data),
    "gif": lambda data: wf.io.decode_gif(data),
    "image": lambda data: wf.io.decode_image(data, expand_animations=False),
    "wav": lambda data: wf.audio.decode_wav(data),
}
SEEDS = {"png": PNG, "png16": PNG, "jpeg": JPEG, "gif": GIF, "image": PNG, "wav": WAV}


@pytest.mark.parametrize("kind", sorted(DECODERS))
def test_mutated_media(kind):
    @given(mutated(SEEDS[kind]))
    def check(data):
        expect_clean(lambda: DECODERS[kind](data))

    check()


@pytest.mark.parametrize("size", [(2**31 - 1, 2**31 - 1), (1, 2**30), (2**24, 2**24), (0, 5)])
def test_png_header_forging_huge_dimensions(size):
    data = huge_png(*size)
    for kind in ("png", "png16", "image"):
        expect_clean(lambda kind=kind: DECODERS[kind](data))


def test_png_chunk_length_past_the_end():
    data = PNG[:8] + struct.pack(">I", 2**31 - 1) + PNG[12:]
    expect_clean(lambda: DECODERS["png"](data))


def test_wav_chunk_size_forged():
    for size in (2**32 - 1, 2**31, 10**9):
        data = WAV[:40] + struct.pack("<I", size) + WAV[44:]
        expect_clean(lambda data=data: DECODERS["wav"](data))


@pytest.mark.parametrize("path", corpus_files("media"), ids=lambda p: p.name)
def test_media_corpus(path):
    data = path.read_bytes()
    for decode in DECODERS.values():
        expect_clean(lambda decode=decode: decode(data))
