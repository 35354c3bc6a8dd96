"""What the summary tests share: Python source run under the oracle interpreter (WEBFLOW_TF_PYTHON: TensorFlow
2.21 and TensorBoard), a PNG decoder written from the PNG specification (zlib + struct, every row filter, so it
reads TensorFlow's libpng files too), and an event-file reader that checks the TFRecord framing by hand."""

from __future__ import annotations

import struct
import zlib
from typing import Any

import numpy as np
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result

from webflow.io.crc32c import masked_crc32c

__all__ = ["SKIP_REASON", "TF_PYTHON", "run_oracle", "decode_png", "read_records"]

_DRIVER = r"""
import json, os, sys
source = sys.stdin.read()
scope = {}
exec(source, scope)
print("RESULT:" + json.dumps(scope["result"]))
"""


def run_oracle(source: str, timeout: float = 600) -> Any:
    """The JSON value `source` (Python run under WEBFLOW_TF_PYTHON) leaves in `result`."""
    return child_result(_DRIVER, source, timeout=timeout)


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode_png(data: bytes) -> np.ndarray:
    """The [height, width, channels] uint8 pixels of an 8-bit, non-interlaced grey / grey+alpha / RGB / RGBA PNG;
    every chunk's CRC is checked."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG signature"
    position, idat, header = 8, b"", None
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length:position + 12 + length])
        assert crc == zlib.crc32(kind + body), f"bad CRC in chunk {kind!r}"
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    assert depth == 8 and interlace == 0, header
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color_type]
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for r in range(height):
        kind, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, up_left = previous[i], previous[i - channels] if i >= channels else 0
            predictor = [0, left, up, (left + up) // 2, _paeth(left, up, up_left)][kind]
            line[i] = (line[i] + predictor) & 0xFF
        rows.append(bytes(line))
        previous = line
    return np.frombuffer(b"".join(rows), np.uint8).reshape(height, width, channels)


def read_records(path: str) -> list[bytes]:
    """The records of a TFRecord file, each frame checked by hand: length, masked CRC32C of the length, data,
    masked CRC32C of the data."""
    with open(path, "rb") as file:
        data = file.read()
    records, position = [], 0
    while position < len(data):
        header = data[position:position + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[position + 8:position + 12])[0] == masked_crc32c(header)
        record = data[position + 12:position + 12 + length]
        assert struct.unpack("<I", data[position + 12 + length:position + 16 + length])[0] == masked_crc32c(record)
        records.append(record)
        position += 16 + length
    return records
