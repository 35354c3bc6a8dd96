"""PNG files written here from the PNG specification (W3C, 2nd edition), to test decoders with every kind of file
TensorFlow's encoder never writes: bit depths 1/2/4, palettes, tRNS transparency, Adam7 interlacing and rows
filtered with each of the five filters. Independent of webflow's codec: samples packed and filtered by hand.

Each `case` is (name, file bytes, what TensorFlow's decode_png gives for it with channels=0 as uint8 and as uint16).
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

GREY, RGB, PALETTE, GREY_ALPHA, RGBA = 0, 2, 3, 4, 6
SAMPLES = {GREY: 1, RGB: 3, PALETTE: 1, GREY_ALPHA: 2, RGBA: 4}
ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 8, 4), (0, 2, 4, 4), (2, 0, 4, 2), (0, 1, 2, 2), (1, 0, 2, 1))


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def pack_row(samples: np.ndarray, depth: int) -> bytes:
    """One scanline's samples (flat) as bytes: big-endian 16-bit, whole bytes, or several per byte (MSB first)."""
    if depth == 16:
        return samples.astype(">u2").tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // depth
    padded = np.concatenate([samples, np.zeros((-len(samples)) % per_byte, samples.dtype)]).reshape(-1, per_byte)
    shifts = np.arange(8 - depth, -1, -depth)
    return (padded.astype(np.int64) << shifts).sum(axis=1).astype(np.uint8).tobytes()


def paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filter_row(kind: int, row: bytes, previous: bytes, bpp: int) -> bytes:
    out = bytearray()
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = previous[i]
        c = previous[i - bpp] if i >= bpp else 0
        predictor = (0, a, b, (a + b) // 2, paeth(a, b, c))[kind]
        out.append((x - predictor) & 255)
    return bytes([kind]) + bytes(out)


def scanlines(image: np.ndarray, depth: int, first_filter: int) -> bytes:
    """image [h, w, samples] -> filtered scanlines, the filter type cycling 0..4 from `first_filter`."""
    height, width, samples = image.shape
    bpp = max(1, samples * depth // 8)
    rows = [pack_row(image[r].reshape(-1), depth) for r in range(height)]
    previous, out = bytes(len(rows[0]) if rows else 0), b""
    for r, row in enumerate(rows):
        out += filter_row((first_filter + r) % 5, row, previous, bpp)
        previous = row
    return out


def png_file(image: np.ndarray, depth: int, colour: int, palette=None, trns: bytes | None = None,
             interlace: bool = False) -> bytes:
    height, width, _ = image.shape
    if interlace:
        data = b"".join(scanlines(image[top::down, left::across], depth, k)
                        for k, (top, left, down, across) in enumerate(ADAM7)
                        if image[top::down, left::across].size)
    else:
        data = scanlines(image, depth, 0)
    body = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, int(interlace))
    parts = [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", body)]
    if palette is not None:
        parts.append(chunk(b"PLTE", bytes(np.asarray(palette, np.uint8).reshape(-1))))
    if trns is not None:
        parts.append(chunk(b"tRNS", trns))
    compressed = zlib.compress(data, 9)
    parts += [chunk(b"IDAT", compressed[:7]), chunk(b"IDAT", compressed[7:]), chunk(b"IEND", b"")]
    return b"".join(parts)


def cases(seed: int = 3) -> list:
    """[(name, png bytes, expected uint8 pixels, expected uint16 pixels)] with channels=0."""
    rng = np.random.default_rng(seed)
    out = []

    def sixteen_from_8(x: np.ndarray) -> np.ndarray:
        return x.astype(np.uint16) * 257

    for depth in (1, 2, 4, 8):
        grey = rng.integers(0, 1 << depth, (5, 11, 1))
        scaled = (grey * (255 // ((1 << depth) - 1))).astype(np.uint8)
        out.append((f"grey{depth}", png_file(grey, depth, GREY), scaled, sixteen_from_8(scaled)))
        palette = rng.integers(0, 256, (1 << depth, 3))
        index = rng.integers(0, 1 << depth, (6, 9, 1))
        rgb = palette[index[..., 0]].astype(np.uint8)
        out.append((f"palette{depth}", png_file(index, depth, PALETTE, palette), rgb, sixteen_from_8(rgb)))
        alpha = rng.integers(0, 256, (1 << depth) - 1)  # shorter than the palette: the last entry stays opaque
        rgba = np.concatenate([rgb, np.append(alpha, 255)[index]], -1).astype(np.uint8)
        out.append((f"palette{depth}_trns", png_file(index, depth, PALETTE, palette, bytes(alpha.astype(np.uint8))),
                    rgba, sixteen_from_8(rgba)))
    for colour, name in ((GREY, "grey"), (GREY_ALPHA, "grey_alpha"), (RGB, "rgb"), (RGBA, "rgba")):
        for depth in (8, 16):
            image = rng.integers(0, 1 << depth, (7, 6, SAMPLES[colour]))
            as8 = (image >> 8 if depth == 16 else image).astype(np.uint8)
            as16 = image.astype(np.uint16) if depth == 16 else sixteen_from_8(as8)
            out.append((f"{name}{depth}", png_file(image, depth, colour), as8, as16))
            out.append((f"{name}{depth}_interlaced", png_file(image, depth, colour, interlace=True), as8, as16))
    grey = rng.integers(0, 256, (4, 5, 1))
    grey[0, 0] = 77
    out.append(("grey8_trns_ignored", png_file(grey, 8, GREY, trns=struct.pack(">H", 77)), grey.astype(np.uint8),
                sixteen_from_8(grey.astype(np.uint8))))
    small = rng.integers(0, 256, (1, 1, 3))
    out.append(("rgb8_one_pixel_interlaced", png_file(small, 8, RGB, interlace=True), small.astype(np.uint8),
                sixteen_from_8(small.astype(np.uint8))))
    return out
