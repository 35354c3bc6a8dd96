"""An event file: what TensorBoard reads, written the way TensorFlow's EventsWriter writes it.

The file is `<logdir>/events.out.tfevents.<seconds, 10 digits>.<hostname><suffix>`, a TFRecord file (each
record framed by webflow/io/tfrecord.py's `encode_record`: length, masked CRC32C, data, masked CRC32C) whose
records are serialized `Event` protos (webflow/protos/event.proto). The first record says what the file is:
an Event with the whole-second creation time as wall_time, file_version "brain.Event:2" and TensorFlow's
source_metadata; TensorBoard skips files that lack it.

Events wait in a queue and go to the file, all at once (one write of whole records, so two writers appending to
one file never split each other's records), when `max_queue` events wait, every `flush_secs` (a daemon thread, as
TensorFlow's EventFileWriter has, flushes what is queued; `close()` stops it and waits for it), and on `flush()` /
`close()` (also at exit, if nobody closed the writer). In Pyodide, which has no threads, each event is written at
once instead.

One difference from TensorFlow: after `close()` and `reopen()` within the same second, TensorFlow truncates the
first file (same name) and its events are lost; here the new events are appended to it instead.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
import weakref
from typing import Any

from webflow.io.tfrecord import encode_record

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "tensorflow.core.util.events_writer"  # what TensorFlow's writer puts in source_metadata


def serialized(message: Any) -> bytes:
    """The bytes of a protocol buffer (webflow's, TensorFlow's, any with SerializeToString) or bytes as given."""
    if isinstance(message, (bytes, bytearray, memoryview)):
        return bytes(message)
    if hasattr(message, "SerializeToString"):
        return message.SerializeToString()
    raise TypeError(f"expected a protocol buffer or its serialized bytes, got {type(message).__name__}")


class EventFileWriter:
    """Writes Event protos to a new event file in `logdir` (created if missing)."""

    def __init__(self, logdir: Any, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str | None = None):
        self._logdir = os.fsdecode(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._file: Any = None
        self._flusher: _Flusher | None = None
        self._open()

    def _open(self) -> None:
        from webflow.protos import event_pb2

        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self._suffix}"
        self._path = os.path.join(self._logdir, name)
        self._file = open(self._path, "ab", buffering=0)  # closed by close(), or by the finalizer below
        self._queue: list = []
        self._lock = threading.Lock()  # the queue and the file, shared with the flusher thread
        if HAVE_THREADS and 0 < self._flush_secs < float("inf"):
            self._flusher = _Flusher(weakref.ref(self), self._flush_secs)
        self._closer = weakref.finalize(self, _write_and_close, self._file, self._queue, self._lock, self._flusher)
        self._last_flush = now
        first = event_pb2.Event(wall_time=float(int(now)), file_version=FILE_VERSION)
        first.source_metadata.writer = SOURCE_WRITER
        self.add_event(first)
        self.flush()
        if self._flusher is not None:
            self._flusher.start()

    @property
    def path(self) -> str:
        """The event file being written."""
        return self._path

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def closed(self) -> bool:
        return self._file is None

    def add_event(self, event: Any) -> None:
        """Queues one Event (a proto or its serialized bytes); nothing happens once closed."""
        if self._file is None:
            return
        record = encode_record(serialized(event))
        with self._lock:
            self._queue.append(record)
            due = (not HAVE_THREADS or len(self._queue) >= self._max_queue
                   or time.time() - self._last_flush >= self._flush_secs)
        if due:
            self.flush()

    def flush(self) -> None:
        """Writes every queued event to the file."""
        with self._lock:
            if self._file is None or self._file.closed:
                return
            _write(self._file, self._queue)
            self._last_flush = time.time()

    def close(self) -> None:
        """Flushes and closes the file (and stops the flusher thread); closing twice is harmless."""
        if self._file is None:
            return
        self._closer()  # stops the flusher, writes what is queued and closes the file (once)
        self._file = None
        self._flusher = None

    def reopen(self) -> None:
        """After close(): a new event file (named by the time now) for the events that follow."""
        if self._file is None:
            self._open()


HAVE_THREADS = sys.platform != "emscripten"  # Pyodide runs Python in the browser, where threads cannot start


class _Flusher(threading.Thread):
    """Flushes an EventFileWriter every `flush_secs` until stopped; holds it weakly, so that a writer nobody
    closed can still be collected (its finalizer stops this thread)."""

    def __init__(self, writer: weakref.ref, flush_secs: float):
        super().__init__(name="webflow-event-flusher", daemon=True)
        self._writer = writer
        self._flush_secs = flush_secs
        self._stopped = threading.Event()

    def run(self) -> None:
        while not self._stopped.wait(self._flush_secs):
            writer = self._writer()
            if writer is None:
                return
            writer.flush()
            del writer  # no strong reference while waiting

    def stop(self) -> None:
        self._stopped.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join()


def _write(file: Any, queue: list) -> None:
    """Writes the queued records in one piece (a raw file may take fewer bytes per call) and empties the queue."""
    data = memoryview(b"".join(queue))
    queue.clear()
    while data:
        data = data[file.write(data):]


def _write_and_close(file: Any, queue: list, lock: Any, flusher: _Flusher | None) -> None:
    if flusher is not None:
        flusher.stop()
    with lock:
        try:
            _write(file, queue)
        finally:
            file.close()


__all__ = ["EventFileWriter", "FILE_VERSION", "serialized"]
