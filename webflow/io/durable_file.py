"""Files that reach the disk whole or not at all: a temporary name, written, synced, renamed into place.

A checkpoint must survive a kill (or a power cut) at any moment with the previous one still restorable, so each
file is written as `path.tempstate<pid>`, its data synced, then renamed over `path`, and the directory synced so
that the rename itself is on disk. Saving 100 MB is then mostly the disk's time, which this module overlaps with
the rest of the work (benchmarks/checkpoint_io.py, benchmarks/FIGURES.md):

- `start_writeback` asks Linux to start writing the bytes already handed over (sync_file_range with
  SYNC_FILE_RANGE_WRITE) while the next tensor is copied in, so the final sync waits only for the tail. It is NOT
  a durability step: it neither waits, nor writes the file's metadata, nor flushes the drive's cache;
- `sync_data` is fdatasync where the system has it: for a file this process just created and wrote, the metadata
  needed to read the data back (its size, its blocks) is flushed with it; only the timestamps are not, which no
  reader checks. So it gives the same guarantee as fsync here. (A killed process needs none of these syncs:
  its writes are in the kernel's page cache already; the order temp file -> rename is what keeps a kill safe,
  the syncs are for a power cut or a crash of the machine);
- `sync_directory` makes the renames durable (POSIX says nothing of them until the directory is synced).

Pyodide has no threads, no sync_file_range and an in-memory file system: the same calls, in order, no overlap.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

_SYNC_FILE_RANGE_WRITE = 2          # linux/fs.h: start writeback of the dirty pages in the range, do not wait
WRITEBACK_CHUNK = 8 * 2**20         # start writeback every 8 MiB written: a few calls per 100 MB


def temp_name(path: str) -> str:
    return f"{path}.tempstate{os.getpid()}"


_sync_file_range: Callable[[int, int, int, int], int] | None | bool = False   # False: not looked up yet


def _lookup_sync_file_range() -> Callable[[int, int, int, int], int] | None:
    global _sync_file_range
    if _sync_file_range is False:
        _sync_file_range = None
        if sys.platform.startswith("linux"):
            with contextlib.suppress(Exception):   # no ctypes or no libc symbol (Pyodide, musl...): no hint
                import ctypes

                function = ctypes.CDLL(None, use_errno=True).sync_file_range
                function.argtypes = [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint]
                function.restype = ctypes.c_int
                _sync_file_range = function
    return _sync_file_range


def start_writeback(fd: int, offset: int, length: int) -> None:
    """Starts (without waiting) writing bytes offset..offset+length of `fd` to the disk, where Linux offers it."""
    function = _lookup_sync_file_range()
    if function is not None and length > 0:
        function(fd, offset, length, _SYNC_FILE_RANGE_WRITE)   # a failure only loses the overlap: ignored


def sync_data(fd: int) -> None:
    """The file's data and the metadata needed to read it back, on the disk (fdatasync; fsync where missing)."""
    if hasattr(os, "fdatasync"):
        os.fdatasync(fd)
    else:   # macOS, Windows
        os.fsync(fd)


def sync_directory(directory: str) -> None:
    """The directory's entries (the renames into it) on the disk; a no-op where directories cannot be opened."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:   # Windows cannot open a directory: there is no such sync to ask for
        return
    try:
        os.fsync(fd)
    except OSError:   # some file systems refuse fsync on a directory
        pass
    finally:
        os.close(fd)


def threads_available() -> bool:
    """Whether a background thread can run here (CPython; not Pyodide's WebAssembly build)."""
    return sys.platform not in ("emscripten", "wasi")


class DurableFile:
    """A file written under a temporary name; `finish()` syncs it, `publish()` renames it into place.

    Writes go through one buffered writer; large buffers (a tensor's bytes, a memoryview or a contiguous array)
    go straight to the kernel without a copy, and every WRITEBACK_CHUNK bytes the disk is asked to start on them.
    """

    def __init__(self, path: str):
        self.path = path
        self.temp = temp_name(path)
        self._handle: Any = open(self.temp, "wb")   # noqa: SIM115 (closed by finish() or discard())
        self._written = 0
        self._started = 0   # bytes whose writeback has been started

    def write(self, payload: Any) -> None:
        self._written += self._handle.write(payload)
        if self._written - self._started >= WRITEBACK_CHUNK:
            self._handle.flush()
            start_writeback(self._handle.fileno(), self._started, self._written - self._started)
            self._started = self._written

    def finish(self) -> None:
        """Flushes, syncs the data (sync_data) and closes: the bytes are on the disk under the temporary name."""
        self._handle.flush()
        sync_data(self._handle.fileno())
        self._handle.close()

    def publish(self) -> None:
        """Renames the (finished) temporary file over `path`; the caller syncs the directory afterwards."""
        os.replace(self.temp, self.path)

    def discard(self) -> None:
        """Closes and removes the temporary file (after an error): the old `path`, if any, stays."""
        with contextlib.suppress(OSError):
            self._handle.close()
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


class Background:
    """Runs `function()` in a thread where threads exist, else at once; `wait()` returns or re-raises its end."""

    def __init__(self, function: Callable[[], None], use_thread: bool):
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if use_thread:
            self._thread = threading.Thread(target=self._run, args=(function,), name="webflow-fsync", daemon=True)
            self._thread.start()
        else:
            self._run(function)

    def _run(self, function: Callable[[], None]) -> None:
        try:
            function()
        except BaseException as error:   # handed to wait(), in the caller's thread
            self._error = error

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error


def write_atomically(path: str, payload: bytes, sync_dir: bool = True) -> None:
    """`path` holds `payload`, whole, on the disk, or keeps its old contents: temp file, sync, rename, sync dir.
    `sync_dir=False` leaves the rename's durability to a later sync of the same directory (the Saver's `.meta`,
    followed by the `checkpoint` state file): one directory sync fewer per save."""
    durable = DurableFile(path)
    try:
        durable.write(payload)
        durable.finish()
        durable.publish()
    except BaseException:
        durable.discard()
        raise
    if sync_dir:
        sync_directory(os.path.dirname(path))
