"""An event file: what TensorBoard reads, written the way TensorFlow's EventsWriter writes it.

The file is `<logdir>/events.out.tfevents.<seconds, 10 digits>.<hostname><suffix>`, a TFRecord file (each
record framed by webflow/io/tfrecord.py's `encode_record`: length, masked CRC32C, data, masked CRC32C) whose
records are serialized `Event` protos (webflow/protos/event.proto). The first record says what the file is:
an Event with the whole-second creation time as wall_time, file_version "brain.Event:2" and TensorFlow's
source_metadata; TensorBoard skips files that lack it.

Events wait in a queue and go to the file, all at once (one write of whole records, so two writers appending to
one file never split each other's records), when `max_queue` events wait, when `flush_secs` have passed since the
last flush (checked at the next event: there is no background thread, which Pyodide would not have), and on
`flush()` / `close()` (also at exit, if nobody closed the writer).

One difference from TensorFlow: after `close()` and `reopen()` within the same second, TensorFlow truncates the
first file (same name) and its events are lost; here the new events are appended to it instead.
"""

from __future__ import annotations

import os
import socket
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
        self._open()

    def _open(self) -> None:
        from webflow.protos import event_pb2

        now = time.time()
        name = f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}{self._suffix}"
        self._path = os.path.join(self._logdir, name)
        self._file = open(self._path, "ab", buffering=0)  # closed by close(), or by the finalizer below
        self._queue: list = []
        self._closer = weakref.finalize(self, _write_and_close, self._file, self._queue)
        self._last_flush = now
        first = event_pb2.Event(wall_time=float(int(now)), file_version=FILE_VERSION)
        first.source_metadata.writer = SOURCE_WRITER
        self.add_event(first)
        self.flush()

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
        self._queue.append(encode_record(serialized(event)))
        if len(self._queue) >= self._max_queue or time.time() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self) -> None:
        """Writes every queued event to the file."""
        if self._file is None:
            return
        _write(self._file, self._queue)
        self._last_flush = time.time()

    def close(self) -> None:
        """Flushes and closes the file; closing twice is harmless."""
        if self._file is None:
            return
        self._closer()  # writes what is queued and closes the file (once)
        self._file = None

    def reopen(self) -> None:
        """After close(): a new event file (named by the time now) for the events that follow."""
        if self._file is None:
            self._open()


def _write(file: Any, queue: list) -> None:
    """Writes the queued records in one piece (a raw file may take fewer bytes per call) and empties the queue."""
    data = memoryview(b"".join(queue))
    queue.clear()
    while data:
        data = data[file.write(data):]


def _write_and_close(file: Any, queue: list) -> None:
    try:
        _write(file, queue)
    finally:
        file.close()


__all__ = ["EventFileWriter", "FILE_VERSION", "serialized"]
