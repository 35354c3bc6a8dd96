"""TF1 readers and MatchingFiles.

Reader ops (TFRecordReaderV2, TextLineReaderV2, WholeFileReaderV2, FixedLengthRecordReaderV2, IdentityReaderV2)
output a scalar resource: the reader, kept in the session's resources like a queue (data_flow_ops.py). The ops on
a reader: ReaderReadV2 (one (key, value) pair, taking file names from a queue as it needs them),
ReaderReadUpToV2, ReaderNumRecordsProducedV2, ReaderNumWorkUnitsCompletedV2, ReaderResetV2. Record formats and key
formats are reader_state.py's. The Python classes `tf.TFRecordReader` ... are at the end. No gradients: TensorFlow
registers NotDifferentiable for the V1 reader op types only, so differentiating a V2 one raises LookupError there too.
"""

from __future__ import annotations

import glob
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import string_values
from webflow.backends.arrays import values as backend_values
from webflow.framework import context, dtypes
from webflow.framework.errors import OpError
from webflow.ops.data_flow_ops import kept_resource, located
from webflow.ops.dataset_elements import string_array, to_int, to_texts
from webflow.ops.queue_state import Waiter
from webflow.ops.reader_state import (
    FixedLengthRecordReaderState,
    IdentityReaderState,
    ReaderState,
    TextLineReaderState,
    TFRecordReaderState,
    WholeFileReaderState,
)
from webflow.ops.registry import apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs


def _handle(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.resource)


# --- the readers --------------------------------------------------------------------------------------------------
@register_op("TFRecordReaderV2", "TFRecordReaderV2", shape=_handle, needs_context=True, stateful=True)
def tf_record_reader_kernel(context: Any, *, container: str = "", shared_name: str = "",
                            compression_type: str = "") -> Any:
    """Reads the records of TFRecord files; key "file:offset" (the record's byte offset)."""
    return kept_resource(context, shared_name, lambda name, key: TFRecordReaderState(name, key, compression_type))


@register_op("TextLineReaderV2", "TextLineReaderV2", shape=_handle, needs_context=True, stateful=True)
def text_line_reader_kernel(context: Any, *, skip_header_lines: int = 0, container: str = "",
                            shared_name: str = "") -> Any:
    """Reads lines (without "\\n" / "\\r\\n"), after the first `skip_header_lines`; key "file:line number"."""
    return kept_resource(context, shared_name, lambda name, key: TextLineReaderState(name, key, skip_header_lines))


@register_op("WholeFileReaderV2", "WholeFileReaderV2", shape=_handle, needs_context=True, stateful=True)
def whole_file_reader_kernel(context: Any, *, container: str = "", shared_name: str = "") -> Any:
    """Reads each file as one record; key: the file name."""
    return kept_resource(context, shared_name, WholeFileReaderState)


@register_op("FixedLengthRecordReaderV2", "FixedLengthRecordReaderV2", shape=_handle, needs_context=True,
             stateful=True)
def fixed_length_record_reader_kernel(context: Any, *, record_bytes: int, header_bytes: int = 0,
                                      footer_bytes: int = 0, hop_bytes: int = 0, container: str = "",
                                      shared_name: str = "", encoding: str = "") -> Any:
    """Reads `record_bytes`-byte records starting every `hop_bytes` (default: record_bytes) after the header,
    ending before the footer; key "file:record index"."""
    return kept_resource(context, shared_name, lambda name, key: FixedLengthRecordReaderState(
        name, key, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding))


@register_op("IdentityReaderV2", "IdentityReaderV2", shape=_handle, needs_context=True, stateful=True)
def identity_reader_kernel(context: Any, *, container: str = "", shared_name: str = "") -> Any:
    """Gives each work item (queue entry) as both key and value."""
    return kept_resource(context, shared_name, IdentityReaderState)


# --- reading ------------------------------------------------------------------------------------------------------
def _reader_call(context: Any, queue: Any, op_type: str, call: Callable[[Waiter], Any]) -> Any:
    try:
        return call(Waiter.from_context(context, queue.key))
    except OpError as error:
        raise located(error, context, op_type) from None


@register_op("ReaderReadV2", "ReaderReadV2", inputs=("reader_handle", "queue_handle"),
             shape=lambda inputs, attrs: [output_spec([], dtypes.string), output_spec([], dtypes.string)],
             needs_context=True, stateful=True)
def reader_read_kernel(context: Any, reader_handle: Any, queue_handle: Any) -> list:
    """(key, value): the reader's next record, dequeuing the next file name from the queue when it needs one."""
    key, value = _reader_call(context, queue_handle, "ReaderReadV2",
                              lambda waiter: reader_handle.read(queue_handle, waiter))
    return [string_array([key], ()), string_array([value], ())]


@register_op("ReaderReadUpToV2", "ReaderReadUpToV2", inputs=("reader_handle", "queue_handle", "num_records"),
             shape=lambda inputs, attrs: [output_spec([None], dtypes.string), output_spec([None], dtypes.string)],
             needs_context=True, stateful=True)
def reader_read_up_to_kernel(context: Any, reader_handle: Any, queue_handle: Any, num_records: Any) -> list:
    """(keys, values): up to `num_records` records (fewer at the end of the input)."""
    count = to_int(num_records)
    pairs = _reader_call(context, queue_handle, "ReaderReadUpToV2",
                         lambda waiter: reader_handle.read_up_to(queue_handle, count, waiter))
    return [string_array([k for k, _ in pairs], (len(pairs),)), string_array([v for _, v in pairs], (len(pairs),))]


@register_op("ReaderNumRecordsProducedV2", "ReaderNumRecordsProducedV2", inputs=("reader_handle",),
             shape=lambda inputs, attrs: output_spec([], dtypes.int64), stateful=True)
def reader_num_records_produced_kernel(reader_handle: Any) -> Any:
    """How many records this reader has produced (int64)."""
    return backend_values.scalar(reader_handle.produced, dtypes.int64)


@register_op("ReaderNumWorkUnitsCompletedV2", "ReaderNumWorkUnitsCompletedV2", inputs=("reader_handle",),
             shape=lambda inputs, attrs: output_spec([], dtypes.int64), stateful=True)
def reader_num_work_units_completed_kernel(reader_handle: Any) -> Any:
    """How many work items (files) this reader has finished (int64)."""
    return backend_values.scalar(reader_handle.completed, dtypes.int64)


@register_op("ReaderResetV2", "ReaderResetV2", inputs=("reader_handle",), shape=no_outputs, stateful=True)
def reader_reset_kernel(reader_handle: Any) -> None:
    """Back to the initial state: no current file, counts at 0."""
    with reader_handle.lock:
        reader_handle.reset()


@register_op("MatchingFiles", "MatchingFiles", inputs=("pattern",),
             shape=lambda inputs, attrs: output_spec([None], dtypes.string), stateful=True)
def matching_files_kernel(pattern: Any) -> Any:
    """The sorted names of the files matching the glob pattern(s) (a string scalar or vector)."""
    names = sorted({name for p in to_texts(pattern) for name in glob.glob(p)})
    return string_values.strings([n.encode() for n in names], (len(names),))


def matching_files(pattern: Any, name: str | None = None) -> Any:
    """`tf.io.matching_files`: the files matching `pattern`, sorted."""
    return apply_op("MatchingFiles", [pattern], {}, name=name)


# --- the Python classes -------------------------------------------------------------------------------------------
class ReaderBase:
    """`tf.ReaderBase`: a reader op's handle and the ops that read with it."""

    def __init__(self, reader_ref: Any, supports_serialize: bool = False):
        if context.executing_eagerly():
            raise RuntimeError("Readers are not supported when eager execution is enabled. Instead, please use "
                               "tf.data to get data into your model.")
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> Any:
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return self._supports_serialize

    def read(self, queue: Any, name: str | None = None) -> tuple:
        """(key, value) of the next record, taking file names from `queue` (a queue or its handle)."""
        key, value = apply_op("ReaderReadV2", [self._reader_ref, _queue_ref(queue)], {}, name=name)
        return key, value

    def read_up_to(self, queue: Any, num_records: Any, name: str | None = None) -> tuple:
        keys, values = apply_op("ReaderReadUpToV2", [self._reader_ref, _queue_ref(queue), num_records], {},
                                name=name)
        return keys, values

    def num_records_produced(self, name: str | None = None) -> Any:
        return apply_op("ReaderNumRecordsProducedV2", [self._reader_ref], {}, name=name)

    def num_work_units_completed(self, name: str | None = None) -> Any:
        return apply_op("ReaderNumWorkUnitsCompletedV2", [self._reader_ref], {}, name=name)

    def reset(self, name: str | None = None) -> Any:
        return apply_op("ReaderResetV2", [self._reader_ref], {}, name=name)

    def serialize_state(self, name: str | None = None) -> Any:
        raise NotImplementedError("serialize_state is not supported by webflow's readers")

    def restore_state(self, state: Any, name: str | None = None) -> Any:
        raise NotImplementedError("restore_state is not supported by webflow's readers")


def _queue_ref(queue: Any) -> Any:
    return queue if hasattr(queue, "dtype") and not hasattr(queue, "queue_ref") else queue.queue_ref


def _reader(op_type: str, name: str | None, attrs: dict) -> Any:
    return apply_op(op_type, [], {"container": "", "shared_name": "", **attrs}, name=name)


class TFRecordReader(ReaderBase):
    """`tf.TFRecordReader(name=None, options=None)`: records of TFRecord files (options: "GZIP", "ZLIB" ...)."""

    def __init__(self, name: str | None = None, options: Any = None):
        super().__init__(_reader("TFRecordReaderV2", name, {"compression_type": _compression(options)}))


class TextLineReader(ReaderBase):
    """`tf.TextLineReader(skip_header_lines=None, name=None)`: the lines of text files."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None):
        super().__init__(_reader("TextLineReaderV2", name, {"skip_header_lines": int(skip_header_lines or 0)}))


class WholeFileReader(ReaderBase):
    """`tf.WholeFileReader(name=None)`: each file's whole content as one record."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader("WholeFileReaderV2", name, {}), supports_serialize=True)


class FixedLengthRecordReader(ReaderBase):
    """`tf.FixedLengthRecordReader(record_bytes, header_bytes=None, footer_bytes=None, hop_bytes=None, ...)`."""

    def __init__(self, record_bytes: int, header_bytes: int | None = None, footer_bytes: int | None = None,
                 hop_bytes: int | None = None, name: str | None = None, encoding: str | None = None):
        super().__init__(_reader("FixedLengthRecordReaderV2", name, {
            "record_bytes": int(record_bytes), "header_bytes": int(header_bytes or 0),
            "footer_bytes": int(footer_bytes or 0), "hop_bytes": int(hop_bytes or 0), "encoding": encoding or ""}))


class IdentityReader(ReaderBase):
    """`tf.IdentityReader(name=None)`: each queued work item as both key and value."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader("IdentityReaderV2", name, {}), supports_serialize=True)


def _compression(options: Any) -> str:
    """A TFRecordOptions, a compression name or TFRecordCompressionType number, as the op's attr string."""
    kind = getattr(options, "compression_type", options)
    names = {None: "", 0: "", 1: "ZLIB", 2: "GZIP"}
    return names[kind] if kind in names else str(kind)


__all__ = ["ReaderBase", "TFRecordReader", "TextLineReader", "WholeFileReader", "FixedLengthRecordReader",
           "IdentityReader", "matching_files", "ReaderState"]
