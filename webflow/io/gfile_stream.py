"""`tf.io.gfile.GFile` (TF1: `tf.gfile.GFile`, `Open`, `FastGFile`): a file on the local file system, as TensorFlow's
file_io.FileIO behaves.

As in TensorFlow: mode "r"/"w"/"a" (+ "b" for bytes, "+" to read and write); nothing is opened until the first
read or write (a missing file raises NotFoundError there, not in the constructor); a write opens the file for
writing then ("a": appended to, else truncated) and is buffered until `flush` or `close`; `readline` drops every
"\r" (TensorFlow's BufferedInputStream does); `close` flushes, and a closed file reads again from its start.
"""

from __future__ import annotations

import os
from typing import IO, Any

from webflow.framework import errors
from webflow.io.file_errors import io_error, path_text

_MODES = ("r", "w", "a", "r+", "w+", "a+")


class GFile:
    """File I/O wrappers without thread locking (TensorFlow's words): `GFile(name, mode="r")`."""

    def __init__(self, name: Any, mode: str = "r"):
        self._name = name
        self._mode = mode
        self._path = path_text(name)
        self._binary = "b" in mode
        plain = mode.replace("b", "")
        if plain not in _MODES:
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._readable = plain in ("r", "r+", "a+", "w+")
        self._writable = plain in ("a", "w", "r+", "a+", "w+")
        self._reader: IO[bytes] | None = None
        self._writer: IO[bytes] | None = None

    @property
    def name(self) -> Any:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    # --- opening, lazily -------------------------------------------------------------------------------------
    def _read_stream(self) -> IO[bytes]:
        if not self._readable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if self._reader is None:
            try:
                self._reader = open(self._path, "rb")  # noqa: SIM115 - lives as long as this GFile
            except OSError as error:
                raise io_error(self._path, error) from None
        return self._reader

    def _write_stream(self) -> IO[bytes]:
        if not self._writable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        if self._writer is None:
            try:
                self._writer = open(self._path, "ab" if "a" in self._mode else "wb")  # noqa: SIM115
            except OSError as error:
                raise io_error(self._path, error) from None
        return self._writer

    def _value(self, data: bytes) -> Any:
        return data if self._binary else data.decode("utf-8")

    # --- reading ---------------------------------------------------------------------------------------------
    def read(self, n: int = -1) -> Any:
        """`n` bytes (all that is left when n is -1), as str in text mode (the bytes decoded as UTF-8)."""
        stream = self._read_stream()
        return self._value(stream.read() if n == -1 else stream.read(n))

    def readline(self) -> Any:
        """The next line with its "\\n" ("" at the end), every "\\r" dropped as TensorFlow drops it."""
        return self._value(self._read_stream().readline().replace(b"\r", b""))

    def readlines(self) -> list:
        lines = []
        while True:
            line = self.readline()
            if not line:
                return lines
            lines.append(line)

    def __iter__(self) -> GFile:
        return self

    def __next__(self) -> Any:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        """Moves the read position (whence 0: from the start, 1: from here, 2: from the end)."""
        stream = self._read_stream()
        offset = position if offset is None else offset
        if whence == 1:
            offset += stream.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2.")
        if offset < 0:
            raise errors.InvalidArgumentError(None, None, f"Seeking to a negative position: {offset}")
        if offset > self.size():
            raise errors.OutOfRangeError(None, None, "reached end of file")
        stream.seek(offset)

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        """The read position of a readable file, else the number of bytes written."""
        if self._readable:
            return self._read_stream().tell()
        return self._write_stream().tell()

    def size(self) -> int:
        """The file's length on disk now (written bytes count once flushed)."""
        try:
            return os.stat(self._path).st_size
        except OSError as error:
            raise io_error(self._path, error) from None

    # --- writing ---------------------------------------------------------------------------------------------
    def write(self, file_content: Any) -> None:
        """Appends str (encoded as UTF-8) or bytes, in either mode, as TensorFlow does."""
        stream = self._write_stream()  # opened (created) first, then the value checked, as in TensorFlow
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        elif isinstance(file_content, (bytearray, memoryview)):
            file_content = bytes(file_content)
        elif not isinstance(file_content, bytes):
            raise TypeError(f"Expected binary or unicode string, got {file_content!r}")
        stream.write(file_content)

    def flush(self) -> None:
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes what was written and closes; reading again starts from the beginning."""
        reader, writer = self._reader, self._writer
        self._reader = self._writer = None
        if reader is not None:
            reader.close()
        if writer is not None:
            writer.close()

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # a forgotten close() still leaves the written bytes on disk
        if getattr(self, "_writer", None) is not None:
            self.close()
