"""Dataset values that hold elements back: prefetch (a background thread) and cache (memory or a file)."""

from __future__ import annotations

import os
import queue
import struct
import sys
import threading
from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.dataset_values import DatasetValue

# Pyodide runs Python in one thread of the browser's worker: prefetch runs its input synchronously there.
THREADS_AVAILABLE = sys.platform != "emscripten"
_END = object()


class PrefetchValue(DatasetValue):
    """Elements computed ahead by a background thread, at most `buffer_size` of them waiting (AUTOTUNE: 2)."""

    def __init__(self, source: DatasetValue, buffer_size: int):
        self.source = source
        self.buffer_size = buffer_size if buffer_size > 0 else 2

    def elements(self, context: Any = None) -> Iterator[list]:
        if not THREADS_AVAILABLE:
            yield from self.source.elements(context)
            return
        ready: queue.Queue = queue.Queue(self.buffer_size)
        stop = threading.Event()
        worker = threading.Thread(target=_produce, args=(self.source, context, ready, stop), daemon=True,
                                  name="webflow-prefetch")
        worker.start()
        try:  # the finally also runs when the iterator is dropped or closed (the generator is closed)
            while True:
                item = ready.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            _drain(ready)

    def cardinality(self) -> int:
        return self.source.cardinality()


def _produce(source: DatasetValue, context: Any, ready: queue.Queue, stop: threading.Event) -> None:
    """The prefetch thread: puts elements (then _END, or the exception that stopped it) into `ready`."""
    try:
        for element in source.elements(context):
            if not _put(ready, element, stop):
                return
        _put(ready, _END, stop)
    except BaseException as error:  # handed to the consumer, which raises it where get_next was called
        _put(ready, error, stop)


def _put(ready: queue.Queue, item: Any, stop: threading.Event) -> bool:
    while not stop.is_set():
        try:
            ready.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def _drain(ready: queue.Queue) -> None:
    while True:
        try:
            ready.get_nowait()
        except queue.Empty:
            return


class CacheValue(DatasetValue):
    """The input's elements, kept after the first complete pass: in memory (filename "") or in a file."""

    def __init__(self, source: DatasetValue, filename: str, memory: list | None):
        self.source, self.filename = source, filename
        self.memory = memory  # [elements of the first complete pass], or [None] before one

    def elements(self, context: Any = None) -> Iterator[list]:
        if self.filename:
            yield from self._file_elements(context)
            return
        if self.memory[0] is not None:
            yield from self.memory[0]
            return
        seen = []
        for element in self.source.elements(context):
            seen.append(element)
            yield element
        self.memory[0] = seen  # only a complete pass is kept, as TensorFlow's MemoryCache

    def _file_elements(self, context: Any) -> Iterator[list]:
        path = self.filename + ".wfcache"
        if os.path.exists(path):
            yield from read_cache_file(path)
            return
        seen = []
        for element in self.source.elements(context):
            seen.append(element)
            yield element
        write_cache_file(path, seen)

    def cardinality(self) -> int:
        return self.source.cardinality()


# --- the cache file: per element, its components as (dtype, shape, bytes) --------------------------------
def write_cache_file(path: str, cached: list) -> None:
    """Writes the cache to a temporary file renamed into place, so a crash never leaves half a cache."""
    temporary = f"{path}.tmp{os.getpid()}"
    with open(temporary, "wb") as file:
        file.write(struct.pack("<q", len(cached)))
        for element in cached:
            file.write(struct.pack("<q", len(element)))
            for value in element:
                _write_component(file, np.asarray(value))
    os.replace(temporary, path)


def _write_component(file: Any, value: Any) -> None:
    name = dtypes.as_dtype(value.dtype).name.encode()
    file.write(struct.pack("<qq", len(name), value.ndim) + name + struct.pack(f"<{value.ndim}q", *value.shape))
    if value.dtype == object:
        for item in value.reshape(-1):
            file.write(struct.pack("<q", len(item)) + item)
    else:
        data = np.ascontiguousarray(value).tobytes()
        file.write(struct.pack("<q", len(data)) + data)


def read_cache_file(path: str) -> Iterator[list]:
    if not HAVE_NUMPY:
        raise InvalidArgumentError(None, None, "reading a dataset cache file needs NumPy")
    with open(path, "rb") as file:
        (count,) = struct.unpack("<q", file.read(8))
        for _ in range(count):
            (width,) = struct.unpack("<q", file.read(8))
            yield [_read_component(file) for _ in range(width)]


def _read_component(file: Any) -> Any:
    name_length, ndim = struct.unpack("<qq", file.read(16))
    dtype = dtypes.as_dtype(file.read(name_length).decode())
    shape = struct.unpack(f"<{ndim}q", file.read(8 * ndim))
    if dtype == dtypes.string:
        items = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=object)
        for i in range(items.size):
            (length,) = struct.unpack("<q", file.read(8))
            items[i] = file.read(length)
        return items.reshape(shape)
    (length,) = struct.unpack("<q", file.read(8))
    return np.frombuffer(file.read(length), dtype=dtype.as_numpy_dtype).reshape(shape).copy()


__all__ = ["PrefetchValue", "CacheValue", "THREADS_AVAILABLE"]
