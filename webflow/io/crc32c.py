"""CRC-32C (Castagnoli), and the masked form TensorFlow stores in TFRecord files and checkpoint bundles.

The checksum comes from `google_crc32c`'s C code when it is installed (every platform but the browser), else
from the pure-Python table code below (Pyodide). Both give the same numbers; tests/io/test_crc32c.py checks it.

A CRC stored next to the bytes it covers is "masked" (rotated right by 15 bits, plus a constant), because
the CRC of a string that itself holds CRCs is weak (TensorFlow's core/lib/hash/crc32c.h).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

_POLYNOMIAL = 0x82F63B78  # 0x1EDC6F41, bits reversed (the CRC runs least significant bit first)
_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF


def _make_tables() -> list[list[int]]:
    """Slicing-by-8 tables: tables[k][b] is the CRC register after byte b followed by k zero bytes."""
    first = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLYNOMIAL if crc & 1 else crc >> 1
        first.append(crc)
    tables = [first]
    for _ in range(7):
        previous = tables[-1]
        tables.append([(crc >> 8) ^ first[crc & 0xFF] for crc in previous])
    return tables


_TABLES: list[list[int]] | None = None


def python_extend(crc: int, data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of (the bytes `crc` covers) + `data`, in pure Python: 8 bytes per step, 8 table lookups."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _make_tables()
    t0, t1, t2, t3, t4, t5, t6, t7 = _TABLES
    view = memoryview(data).cast("B")
    crc ^= _U32
    whole = len(view) - len(view) % 8
    for low, high in struct.iter_unpack("<II", view[:whole]):
        low ^= crc
        crc = (t7[low & 0xFF] ^ t6[(low >> 8) & 0xFF] ^ t5[(low >> 16) & 0xFF] ^ t4[low >> 24]
               ^ t3[high & 0xFF] ^ t2[(high >> 8) & 0xFF] ^ t1[(high >> 16) & 0xFF] ^ t0[high >> 24])
    for byte in view[whole:]:
        crc = (crc >> 8) ^ t0[(crc ^ byte) & 0xFF]
    return crc ^ _U32


_extend: Callable[[int, bytes], int] | None = None


def implementation() -> str:
    """'c' (google_crc32c's C extension) or 'python' (python_extend), whichever extend() uses."""
    global _extend
    if _extend is None:
        try:
            import google_crc32c
        except ImportError:  # the browser: no C extension to install
            google_crc32c = None
        if google_crc32c is not None and google_crc32c.implementation == "c":
            _extend = google_crc32c.extend
        else:  # (google_crc32c's own fallback is slower than the tables above)
            _extend = python_extend
    return "python" if _extend is python_extend else "c"


def extend(crc: int, data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of (the bytes `crc` covers) + `data`: checksums a stream chunk by chunk, from crc=0."""
    if _extend is None:
        implementation()
    if not isinstance(data, bytes) and _extend is not python_extend:
        try:   # google_crc32c reads a contiguous NumPy array in place (no copy of a 100 MB checkpoint)...
            return _extend(crc, data)
        except TypeError:   # ... but refuses a memoryview or a bytearray ("read-only bytes-like object")
            data = bytes(data)
    return _extend(crc, data)


def crc32c(data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of `data` (crc32c(b"123456789") == 0xE3069283)."""
    return extend(0, data)


def mask(crc: int) -> int:
    """TensorFlow's masked form of a CRC: rotated right by 15 bits, plus 0xa282ead8 (mod 2**32)."""
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def unmask(masked: int) -> int:
    """The CRC a masked value was made from (mask's inverse)."""
    rotated = (masked - _MASK_DELTA) & _U32
    return ((rotated >> 17) | (rotated << 15)) & _U32


def masked_crc32c(data: bytes | bytearray | memoryview) -> int:
    """mask(crc32c(data)): the number TFRecord files and checkpoint bundles store beside `data`."""
    return mask(crc32c(data))
