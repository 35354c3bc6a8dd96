"""String tensors in TensorFlow's tensor bundle (tensor_bundle.cc's WriteStringTensor), both ways.

A string tensor's bytes in the data file are: each element's length as a varint64, the masked CRC32C of those
lengths, then the elements back to back. The lengths' CRC runs over each length as a little-endian uint32
(uint64 past 4 GiB), not over the varints written; the entry's CRC (in its BundleEntryProto) continues that CRC
over the 4 checksum bytes and the elements. TF2 checkpoints always hold one: the object graph,
`_CHECKPOINTABLE_OBJECT_GRAPH`.
"""

from __future__ import annotations

import struct
from typing import Any

from webflow.framework import errors
from webflow.io import crc32c, varint


def _as_bytes(element: Any) -> bytes:
    return element.encode("utf-8") if isinstance(element, str) else bytes(element)


def _length_bytes(size: int) -> bytes:
    """A length as the CRC sees it: uint32, or uint64 when it does not fit (TensorFlow's rule)."""
    return struct.pack("<I", size) if size <= 0xFFFFFFFF else struct.pack("<Q", size)


def encode(array: Any) -> tuple[bytes, int]:
    """(the bytes of a NumPy array of bytes/str in the data file, the masked CRC32C of its entry)."""
    elements = [_as_bytes(element) for element in array.reshape(-1).tolist()]
    varints = b"".join(varint.encode(len(element)) for element in elements)
    lengths_crc = crc32c.crc32c(b"".join(_length_bytes(len(element)) for element in elements))
    checksum = struct.pack("<I", crc32c.mask(lengths_crc))
    body = b"".join(elements)
    return varints + checksum + body, crc32c.mask(crc32c.extend(lengths_crc, checksum + body))


def decode(raw: bytes, count: int, entry_crc: int, where: str) -> list[bytes]:
    """The `count` elements stored in `raw`, both CRCs checked (DataLossError naming `where`)."""
    lengths, pos = [], 0
    for _ in range(count):
        length, pos = varint.read(raw, pos, len(raw), where)
        lengths.append(length)
    lengths_crc = crc32c.crc32c(b"".join(_length_bytes(length) for length in lengths))
    checksum = raw[pos:pos + 4]
    body = raw[pos + 4:]
    if len(checksum) != 4 or struct.unpack("<I", checksum)[0] != crc32c.mask(lengths_crc) or \
            len(body) != sum(lengths):
        raise errors.DataLossError(None, None, f"bad string lengths for {where}")
    if crc32c.mask(crc32c.extend(lengths_crc, checksum + body)) != entry_crc:
        raise errors.DataLossError(None, None, f"Checksum does not match: stored {entry_crc} vs. calculated on the "
                                               f"restored bytes for {where}")
    elements, start = [], 0
    for length in lengths:
        elements.append(body[start:start + length])
        start += length
    return elements
