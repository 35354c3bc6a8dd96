"""Base-128 varints (LevelDB's and protobuf's): 7 bits a byte, least significant first, the high bit set on every
byte but the last. The checkpoint index table (checkpoint_bundle.py) and string tensors (bundle_strings.py) use
them."""

from __future__ import annotations

from webflow.framework import errors


def encode(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def read(data: bytes, pos: int, limit: int, where: str) -> tuple[int, int]:
    """(the varint at data[pos:], the position after it); DataLossError naming `where` if it runs past `limit`."""
    result = shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise errors.DataLossError(None, None, f"corrupted varint in {where}")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
