"""What a TF1 reader holds: the file it is reading ("work", a string dequeued from a queue of file names), where it
is in it, and how many records and files it has done. The reader ops (io_ops.py) call `read` / `read_up_to`.

Each reader kind turns one work item into its (key, value) records, keys as TensorFlow writes them:
TFRecordReader "file:byte offset of the record", TextLineReader "file:line number" (1-based, header lines
counted), FixedLengthRecordReader "file:record index", WholeFileReader "file", IdentityReader the work itself.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError, OutOfRangeError
from webflow.ops import dataset_readers
from webflow.ops.dataset_elements import to_text
from webflow.ops.queue_state import QueueState, Waiter

_TFRECORD_FRAMING = 16  # bytes around each record: length (8), its CRC (4), the data's CRC (4)


class ReaderState:
    """A reader: records of the current work item, then the next item from the queue."""

    dtype = dtypes.resource  # a scalar resource value, as an eager handle tensor holds it
    shape = ()
    ndim = 0

    def __init__(self, name: str, key: str):
        self.name = name
        self.key = key
        self.lock = threading.RLock()  # several threads may read with one reader (one record each)
        self.reset()

    def reset(self) -> None:
        self.work: str | None = None
        self.records: Iterator[tuple] | None = None
        self.produced = 0
        self.completed = 0

    def read(self, queue: QueueState, waiter: Waiter) -> tuple:
        """The next (key, value) pair; OutOfRangeError (the queue's) once the queue is closed and drained."""
        with self.lock:
            while True:
                if self.records is None:
                    self.work = self._next_work(queue, waiter)
                    self.records = self.records_of(self.work)
                record = next(self.records, None)
                if record is not None:
                    self.produced += 1
                    return record
                self.records, self.work = None, None
                self.completed += 1

    def read_up_to(self, queue: QueueState, count: int, waiter: Waiter) -> list:
        """Up to `count` pairs: fewer once the queue has no more work (OutOfRangeError only if none)."""
        pairs: list = []
        while len(pairs) < count:
            try:
                pairs.append(self.read(queue, waiter))
            except OutOfRangeError:
                if not pairs:
                    raise
                break
        return pairs

    @staticmethod
    def _next_work(queue: QueueState, waiter: Waiter) -> str:
        element = queue.dequeue(waiter)
        if len(element) != 1:
            raise InvalidArgumentError(None, None, f"Expected to dequeue a one-element string tensor, got "
                                                   f"{len(element)} components")
        return to_text(element[0])

    def records_of(self, work: str) -> Iterator[tuple]:
        raise NotImplementedError


class IdentityReaderState(ReaderState):
    def records_of(self, work: str) -> Iterator[tuple]:
        yield work.encode(), work.encode()


class WholeFileReaderState(ReaderState):
    def records_of(self, work: str) -> Iterator[tuple]:
        yield work.encode(), dataset_readers.read_file_bytes(work, "")


class TextLineReaderState(ReaderState):
    def __init__(self, name: str, key: str, skip_header_lines: int):
        super().__init__(name, key)
        self.skip_header_lines = skip_header_lines

    def records_of(self, work: str) -> Iterator[tuple]:
        data = dataset_readers.read_file_bytes(work, "")
        lines = data.split(b"\n")
        if lines[-1] == b"":  # a final newline ends the last line; it does not start another
            lines.pop()
        for number, line in enumerate(lines, start=1):
            if number > self.skip_header_lines:
                yield f"{work}:{number}".encode(), line[:-1] if line.endswith(b"\r") else line


class FixedLengthRecordReaderState(ReaderState):
    def __init__(self, name: str, key: str, header_bytes: int, record_bytes: int, footer_bytes: int,
                 hop_bytes: int, encoding: str):
        super().__init__(name, key)
        self.header, self.record, self.footer = header_bytes, record_bytes, footer_bytes
        self.hop = hop_bytes or record_bytes  # records start every `hop` bytes (they may overlap)
        self.encoding = encoding

    def records_of(self, work: str) -> Iterator[tuple]:
        data = dataset_readers.read_file_bytes(work, self.encoding)
        end = len(data) - self.footer
        for number, start in enumerate(range(self.header, max(end - self.record + 1, self.header), self.hop)):
            yield f"{work}:{number}".encode(), data[start:start + self.record]


class TFRecordReaderState(ReaderState):
    def __init__(self, name: str, key: str, compression_type: str):
        super().__init__(name, key)
        self.compression = compression_type

    def records_of(self, work: str) -> Iterator[tuple]:
        # io/tfrecord.py's reader (framing, CRC checks, DataLossError): installed by webflow.data, above ops/
        reader = dataset_readers._record_reader
        if reader is None:
            raise RuntimeError("TFRecordReader needs webflow.data imported (it installs the TFRecord reader)")
        offset = 0
        for record in reader(work, self.compression):
            yield f"{work}:{offset}".encode(), record
            offset += len(record) + _TFRECORD_FRAMING


__all__ = ["ReaderState", "IdentityReaderState", "WholeFileReaderState", "TextLineReaderState",
           "FixedLengthRecordReaderState", "TFRecordReaderState"]
