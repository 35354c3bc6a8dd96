"""Reading an event file that is still being written: each call returns the records completed since the last one.

The framing is TFRecord's (webflow/io/tfrecord.py): uint64 length, masked CRC32C of it, data, masked CRC32C of the
data. A record cut off at the end of the file is not an error here: the writer may be in the middle of it, so the
tail stops before it and the next call starts there again (TensorBoard's reader does the same). A record whose
checksum fails raises DataLossError naming the file and the record's offset; later calls raise it again.
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

from webflow.framework import errors
from webflow.io.crc32c import masked_crc32c
from webflow.io.tfrecord import FOOTER_SIZE, HEADER_SIZE

_CHUNK = 1 << 22  # bytes read per call at most, so one refresh of a huge file stays short


class EventFileTail:
    """The records of one file, read incrementally: `read_new()` -> the serialized Events appended since last time."""

    def __init__(self, path: str):
        self.path = path
        self.offset = 0  # the first byte not yet consumed: always the start of a record
        self.error: str | None = None

    def read_new(self) -> list[bytes]:
        if self.error is not None:
            raise errors.DataLossError(None, None, self.error)
        records: list[bytes] = []
        with open(self.path, "rb") as file:
            while True:
                file.seek(self.offset)
                data = file.read(_CHUNK)
                used = self._split(file, data, records)
                self.offset += used
                if used == 0 or len(data) < _CHUNK:  # nothing complete yet, or the end of the file was read
                    return records

    def _split(self, file: BinaryIO, data: bytes, records: list[bytes]) -> int:
        """Appends the complete records at the start of `data` (read at self.offset); returns the bytes they take."""
        pos = 0
        while len(data) - pos >= HEADER_SIZE:
            header = data[pos:pos + 8]
            (length,) = struct.unpack("<Q", header)
            (length_crc,) = struct.unpack("<I", data[pos + 8:pos + 12])
            if masked_crc32c(header) != length_crc:
                self._fail(pos)
            end = pos + HEADER_SIZE + length + FOOTER_SIZE
            if end > len(data):
                if pos == 0 and end > _CHUNK:  # one record bigger than a chunk: read it whole
                    # A damaged or forged length (2**62) must not become one huge read(): only a record the
                    # file already holds whole is read; a longer one is "still being written".
                    if self.offset + end > os.fstat(file.fileno()).st_size:
                        return 0
                    file.seek(self.offset)
                    data = file.read(end)
                    if len(data) < end:
                        return 0  # still being written
                else:
                    return pos  # the rest is in the next chunk, or not written yet
            body = data[pos + HEADER_SIZE:end - FOOTER_SIZE]
            (body_crc,) = struct.unpack("<I", data[end - FOOTER_SIZE:end])
            if masked_crc32c(body) != body_crc:
                self._fail(pos)
            records.append(body)
            pos = end
        return pos

    def _fail(self, pos: int) -> None:
        self.error = f"corrupted record at {self.offset + pos} in {os.fspath(self.path)}"
        raise errors.DataLossError(None, None, self.error)


__all__ = ["EventFileTail"]
