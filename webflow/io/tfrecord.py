"""TFRecord files, byte-compatible with TensorFlow's: `tf.io.TFRecordWriter`, `tf_record_iterator`, the options.

A TFRecord file is a sequence of records, each framed as

    uint64 length (little-endian) | uint32 masked CRC32C of those 8 bytes | length bytes of data | uint32 masked CRC32C
    of the data

(masked CRC32C: webflow/io/crc32c.py). With compression "GZIP" or "ZLIB" the whole sequence is one gzip or zlib
stream; offsets in error messages then count bytes of the uncompressed stream, as TensorFlow's do.

Reading checks both CRCs: a record that fails raises DataLossError naming the file and the record's offset in
TensorFlow's words ("corrupted record at 33", "truncated record at 21"). One difference: TensorFlow stops without an
error when the file ends inside a record's 12-byte header (it takes that for a record still being written);
webflow raises "truncated record at <offset>" there too, so a damaged file never reads as a shorter one.
"""

from __future__ import annotations

import os
import struct
import zlib
from typing import Any, BinaryIO

from webflow.framework import errors
from webflow.io.crc32c import masked_crc32c

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
HEADER_SIZE = _LENGTH.size + _CRC.size  # 12
FOOTER_SIZE = _CRC.size  # 4
_CHUNK = 1 << 20  # read a record's data in pieces of at most this (a damaged length cannot allocate gigabytes)


class TFRecordCompressionType:
    """The compression of a TFRecord file, as a number (`tf.io.TFRecordCompressionType`)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """How a TFRecord file is compressed (`tf.io.TFRecordOptions`): compression_type "", "ZLIB" or "GZIP" (or a
    TFRecordCompressionType number), and zlib's settings for writing. `window_bits`, `compression_level`,
    `compression_method`, `mem_level` and `compression_strategy` go to zlib as TensorFlow passes them to
    deflateInit2; `flush_mode` and the buffer sizes are accepted and have no effect here."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type: Any = None, flush_mode: int | None = None,
                 input_buffer_size: int | None = None, output_buffer_size: int | None = None,
                 window_bits: int | None = None, compression_level: int | None = None,
                 compression_method: int | None = None, mem_level: int | None = None,
                 compression_strategy: int | None = None):
        self.get_compression_type_string(compression_type)  # checked now, kept as given (as TensorFlow does)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """"", "ZLIB" or "GZIP" for a TFRecordOptions, a TFRecordCompressionType number, a string or None."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _compressor(self) -> Any:
        """A zlib compressor with TensorFlow's defaults (level -1, memLevel 9), or None for no compression."""
        kind = self.get_compression_type_string(self)
        if not kind:
            return None
        window_bits = self.window_bits if self.window_bits is not None else (zlib.MAX_WBITS + 16 if kind == "GZIP"
                                                                              else zlib.MAX_WBITS)
        return zlib.compressobj(
            zlib.Z_DEFAULT_COMPRESSION if self.compression_level is None else self.compression_level,
            zlib.DEFLATED if self.compression_method is None else self.compression_method,
            window_bits,
            9 if self.mem_level is None else self.mem_level,
            zlib.Z_DEFAULT_STRATEGY if self.compression_strategy is None else self.compression_strategy)


def encode_record(data: bytes) -> bytes:
    """One record as it appears in an uncompressed TFRecord file: length, its masked CRC, data, the data's."""
    length = _LENGTH.pack(len(data))
    return b"".join((length, _CRC.pack(masked_crc32c(length)), data, _CRC.pack(masked_crc32c(data))))


def _open(path: Any, mode: str) -> BinaryIO:
    """The file, or TensorFlow's error for why it cannot be opened ("<path>; No such file or directory")."""
    name = os.fsdecode(path)
    try:
        return open(name, mode)  # the writer / iterator owning it closes it
    except FileNotFoundError as error:
        raise errors.NotFoundError(None, None, f"{name}; {error.strerror}") from None
    except IsADirectoryError as error:
        raise errors.FailedPreconditionError(None, None, f"{name}; {error.strerror}") from None
    except PermissionError as error:
        raise errors.PermissionDeniedError(None, None, f"{name}; {error.strerror}") from None
    except OSError as error:
        raise errors.UnknownError(None, None, f"{name}; {error.strerror or error}") from None


class TFRecordWriter:
    """Writes records to a TFRecord file (`tf.io.TFRecordWriter(path, options=None)`): `write(record)`, `flush()`,
    `close()`, or use it in a `with` block. `options`: a TFRecordOptions, "", "ZLIB", "GZIP" or a
    TFRecordCompressionType number. The file is created (or truncated) at once."""

    def __init__(self, path: Any, options: Any = None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        self._compressor = options._compressor()
        self._file: BinaryIO | None = _open(path, "wb")

    def write(self, record: bytes | str) -> None:
        """Appends one record (bytes; a str is written as its UTF-8 bytes)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        framed = encode_record(bytes(record))
        self._file.write(self._compressor.compress(framed) if self._compressor is not None else framed)

    def flush(self) -> None:
        """Pushes what was written to the file (a compressed stream is sync-flushed, so a reader sees every record
        written so far)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Ends the compressed stream, if any, and closes the file; closing twice is harmless."""
        file, self._file = self._file, None
        if file is None:
            return
        try:
            if self._compressor is not None:
                file.write(self._compressor.flush(zlib.Z_FINISH))
        finally:
            file.close()

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # TensorFlow's writer closes (and ends its compressed stream) when it is garbage-collected; so does this one.
        try:
            self.close()
        except Exception:  # nothing can be reported from __del__
            pass


class _Inflater:
    """read(n) on the uncompressed bytes of a gzip or zlib file (concatenated streams are read one after another)."""

    def __init__(self, file: BinaryIO, kind: str, path: str):
        self._file = file
        self._kind = kind
        self._path = path
        self._window_bits = zlib.MAX_WBITS + 16 if kind == "GZIP" else zlib.MAX_WBITS
        self._inflater = zlib.decompressobj(self._window_bits)
        self._buffer = bytearray()
        self._at_end = False

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and not self._at_end:
            chunk = self._file.read(1 << 16)
            if not chunk:  # a stream cut short yields what it holds, as TensorFlow's reader does
                self._at_end = True
                break
            try:
                while chunk:
                    if self._inflater.eof:
                        self._inflater = zlib.decompressobj(self._window_bits)
                    self._buffer += self._inflater.decompress(chunk)
                    chunk = self._inflater.unused_data if self._inflater.eof else b""
            except zlib.error as error:
                message = f"corrupted {self._kind} data in {self._path}: {error}"
                raise errors.DataLossError(None, None, message) from None
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    def close(self) -> None:
        self._file.close()


class RecordIterator:
    """The records of a TFRecord file, one `bytes` per `next()` (what `tf_record_iterator` returns). The file is
    opened at once (a missing one raises NotFoundError there) and closed when the records run out, on an error,
    or by `close()`; `reopen()` starts again from the first record."""

    def __init__(self, path: Any, compression_type: str = ""):
        self._path = os.fsdecode(path)
        self._compression = compression_type
        self._stream: Any = None
        self.reopen()

    def reopen(self) -> None:
        self.close()
        file = _open(self._path, "rb")
        self._stream = _Inflater(file, self._compression, self._path) if self._compression else file
        self._offset = 0

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()

    def __iter__(self) -> RecordIterator:
        return self

    def __next__(self) -> bytes:
        if self._stream is None:
            raise StopIteration
        try:
            record = self._read_record()
        except BaseException:
            self.close()
            raise
        if record is None:
            self.close()
            raise StopIteration
        return record

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # nothing can be reported from __del__
            pass

    def _read(self, size: int) -> bytes:
        """Up to `size` bytes (fewer only at the end of the file), read in bounded pieces."""
        pieces = []
        while size > 0:
            piece = self._stream.read(min(size, _CHUNK))
            if not piece:
                break
            pieces.append(piece)
            size -= len(piece)
        return b"".join(pieces)

    def _read_record(self) -> bytes | None:
        offset = self._offset
        header = self._read(HEADER_SIZE)
        if not header:
            return None
        if len(header) < HEADER_SIZE:
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {self._path}: the file ends "
                                                   f"{len(header)} bytes into the record's {HEADER_SIZE}-byte header")
        length_bytes = header[:_LENGTH.size]
        if masked_crc32c(length_bytes) != _CRC.unpack_from(header, _LENGTH.size)[0]:
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {self._path}: the masked CRC32C "
                                                   f"of its length does not match{self._hint(offset, header)}")
        (length,) = _LENGTH.unpack(length_bytes)
        body = self._read(length + FOOTER_SIZE)
        if len(body) < length + FOOTER_SIZE:
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {self._path}: the file ends "
                                                   f"{HEADER_SIZE + len(body)} bytes into a record of "
                                                   f"{HEADER_SIZE + length + FOOTER_SIZE} bytes")
        data = body[:length]
        if masked_crc32c(data) != _CRC.unpack_from(body, length)[0]:
            raise errors.DataLossError(None, None, f"corrupted record at {offset + HEADER_SIZE} in {self._path}: "
                                                   f"the masked CRC32C of its {length} bytes of data does not match")
        self._offset = offset + HEADER_SIZE + length + FOOTER_SIZE
        return data

    def _hint(self, offset: int, header: bytes) -> str:
        if offset != 0:
            return ""
        if not self._compression and header[:2] == b"\x1f\x8b":
            return " (Is this even a TFRecord file? It starts like a GZIP file: read it with options='GZIP')"
        if not self._compression and header[0] == 0x78 and (header[0] << 8 | header[1]) % 31 == 0:
            return " (Is this even a TFRecord file? It may be a ZLIB stream: read it with options='ZLIB')"
        return " (Is this even a TFRecord file?)"


def tf_record_iterator(path: Any, options: Any = None) -> RecordIterator:
    """An iterator over the records of the TFRecord file `path` (`tf.compat.v1.io.tf_record_iterator`): bytes
    each. `options`: a TFRecordOptions, "", "ZLIB", "GZIP" or a TFRecordCompressionType number."""
    return RecordIterator(path, TFRecordOptions.get_compression_type_string(options))
