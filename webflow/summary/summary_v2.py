"""TF2's `tf.summary`: `create_file_writer`, a default writer and step, and `scalar / histogram / image / text`
that write one Event each, at once, while executing eagerly.

What is written is what TensorFlow 2.21 with TensorBoard's summary functions writes (tensorflow/python/ops/
summary_ops_v2.py, tensorboard/plugins/*/summary_v2.py): a Summary value holding a tensor (a TensorProto:
strings in string_val, numbers in tensor_content) and a SummaryMetadata naming TensorBoard's plugin —
- scalar: the value as a float32 scalar, plugin "scalars";
- histogram: a float64 [buckets, 3] tensor of (left edge, right edge, count) rows, `buckets` (30) equal-width
  buckets from min to max, the last one closed (plugin "histograms"); no data gives zeros, one distinct value
  gives `buckets` zero-width buckets at it, all the count in the last;
- image: a string [2 + k] tensor: width, height (as decimal text), then k <= max_outputs PNGs, pixels made uint8
  by TF's convert_image_dtype (floats times 255.5, clipped), plugin "images";
- text: the string tensor itself, plugin "text".
The tag is the name inside the current name scopes (`with tf.name_scope("a")`: "a/loss"). The writer's file is
named `events.out.tfevents.<time>.<host>.<pid>.<n>.v2`, as TensorFlow names it.

Not here: summaries inside `wf.function` or a graph (TensorFlow's WriteSummary op; writing raises
NotImplementedError there), tf.summary.graph. (audio: audio_v2.py; trace_on / trace_export: trace.py.)
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import summaries
from webflow.framework import context, dtypes
from webflow.framework.scopes import get_name_scope, name_scope_v1
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.summary_ops import tensor_proto
from webflow.summary.event_file_writer import EventFileWriter, serialized

DEFAULT_BUCKET_COUNT = 30
_WRITER_IDS = itertools.count()  # TensorFlow's ops.uid() in the file name: two writers never share a file


class _SummaryState(threading.local):
    """The current thread's default writer, default step and recording condition."""

    def __init__(self) -> None:
        super().__init__()
        self.writer: Any = None
        self.step: Any = None
        self.is_recording: Any = None


_STATE = _SummaryState()


def get_step() -> Any:
    """`tf.summary.experimental.get_step()`: the default step of this thread, or None."""
    return _STATE.step


def set_step(step: Any) -> None:
    """`tf.summary.experimental.set_step(step)`: the step summaries use when given none (None unsets it)."""
    _STATE.step = step


def has_default_writer() -> bool:
    return _STATE.writer is not None


class _SummaryContextManager:
    """What `writer.as_default(step)` returns: makes the writer (and step) current; on exit flushes it and puts
    the previous ones back."""

    def __init__(self, writer: Any, step: Any = None):
        self._writer = writer
        self._step = step
        self._old_writer: Any = None
        self._old_step: Any = None

    def __enter__(self) -> Any:
        self._old_writer = _STATE.writer
        _STATE.writer = self._writer
        if self._step is not None:
            self._old_step = _STATE.step
            _STATE.step = self._step
        return self._writer

    def __exit__(self, *exc: Any) -> bool:
        _STATE.writer.flush()
        _STATE.writer = self._old_writer
        if self._step is not None:
            _STATE.step = self._old_step
        return False


class SummaryWriter:
    """`tf.summary.SummaryWriter`: what `create_file_writer` returns."""

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the thread's default writer (and `step`, if given, the default step) from now on."""
        self.as_default(step).__enter__()

    def as_default(self, step: Any = None) -> _SummaryContextManager:
        """A `with` block in which this is the default writer (and `step`, if given, the default step)."""
        return _SummaryContextManager(self, step)

    def init(self) -> None:
        raise NotImplementedError()

    def flush(self) -> None:
        raise NotImplementedError()

    def close(self) -> None:
        raise NotImplementedError()


class _FileSummaryWriter(SummaryWriter):
    """A writer of one event file (TensorFlow's _ResourceSummaryWriter over a SummaryFileWriter)."""

    def __init__(self, logdir: Any, max_queue: int, flush_millis: float, filename_suffix: str):
        suffix = f".{os.getpid()}.{next(_WRITER_IDS)}{filename_suffix}"
        self._events = EventFileWriter(logdir, max_queue, flush_millis / 1000.0, suffix)
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step: Any = None) -> None:
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step: Any = None) -> _SummaryContextManager:
        self._check_open()
        return super().as_default(step)

    def init(self) -> None:
        """Nothing to do: the file exists from the start."""
        self._check_open()

    def flush(self) -> None:
        """Pushes the events written so far to the file (a closed writer: nothing)."""
        if not self._closed:
            self._events.flush()

    def close(self) -> None:
        """Flushes and closes the event file."""
        if not self._closed:
            self._events.close()
            self._closed = True

    def _write(self, event: Any) -> None:
        self._check_open()
        self._events.add_event(event)


class _NoopSummaryWriter(SummaryWriter):
    """`tf.summary.create_noop_writer()`: a writer that writes nothing (summaries under it return False)."""

    def set_as_default(self, step: Any = None) -> None:
        pass

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[Any]:  # type: ignore[override]
        yield self

    def init(self) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def create_file_writer(logdir: Any, max_queue: int | None = None, flush_millis: float | None = None,
                       filename_suffix: str | None = None, name: str | None = None,
                       experimental_trackable: bool = False, experimental_mesh: Any = None) -> SummaryWriter:
    """`tf.summary.create_file_writer`: a writer of a new event file in `logdir` (created if missing), which
    flushes once `max_queue` (10) events wait or `flush_millis` (120 000) have passed, and on flush()/close()."""
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    return _FileSummaryWriter(logdir, 10 if max_queue is None else int(max_queue),
                              120_000 if flush_millis is None else float(flush_millis),
                              ".v2" if filename_suffix is None else filename_suffix)


def create_noop_writer() -> SummaryWriter:
    return _NoopSummaryWriter()


def flush(writer: Any = None, name: str | None = None) -> None:
    """`tf.summary.flush(writer=None)`: flushes `writer`, or the default writer (none: nothing happens)."""
    if writer is None:
        writer = _STATE.writer
        if writer is None:
            return
    if isinstance(writer, SummaryWriter):
        writer.flush()
        return
    raise ValueError(f"Invalid argument to flush(): {writer!r}")


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[None]:
    """`tf.summary.record_if(condition)`: inside, summaries are written only while `condition` (a bool, or a
    function returning one) holds."""
    old = _STATE.is_recording
    _STATE.is_recording = condition
    try:
        yield
    finally:
        _STATE.is_recording = old


def _recording() -> bool:
    if _STATE.writer is None or isinstance(_STATE.writer, _NoopSummaryWriter):
        return False
    condition = _STATE.is_recording
    if condition is None:
        return True
    value = condition() if callable(condition) else condition
    return bool(convert_to_tensor(value).numpy()) if is_tensor_like(value) else bool(value)


def should_record_summaries() -> Any:
    """`tf.summary.should_record_summaries()`: a bool tensor, whether a summary written now would be."""
    return constant(_recording())


# --- tags --------------------------------------------------------------------------------------------------
_INVALID_SCOPE_CHARACTERS = re.compile(r"[^-_/.A-Za-z0-9]")


@contextlib.contextmanager
def summary_scope(name: str, default_name: str | None = None, values: Any = None) -> Iterator[tuple]:
    """`tf.summary.experimental.summary_scope`: yields (tag, scope); the tag is `name` inside the current name
    scope, as given (characters are not replaced)."""
    name = name or default_name
    current = get_name_scope()
    tag = f"{current}/{name}" if current else name
    with name_scope_v1(_INVALID_SCOPE_CHARACTERS.sub("", name) or None, default_name, values) as scope:
        yield tag, scope


# --- writing -----------------------------------------------------------------------------------------------
def _int_step(step: Any) -> int:
    if is_tensor_like(step):
        return int(convert_to_tensor(step).numpy())
    return int(step)


def write(tag: str, tensor: Any, step: Any = None, metadata: Any = None, name: str | None = None) -> Any:
    """`tf.summary.write`: one Event with `tensor` (or what the function `tensor` returns) under `tag` at `step`
    (default: the default step) to the default writer. True if written; False with no writer or while
    record_if's condition is false."""
    if _STATE.writer is None:
        return constant(False)
    if step is None:
        step = get_step()
    if not _recording():
        return constant(False)
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    if not context.executing_eagerly():
        raise NotImplementedError("webflow writes summaries only when executing eagerly: inside wf.function or a "
                                  "graph there is no WriteSummary op yet (TF1 graphs: tf.compat.v1.summary ops and "
                                  "a FileWriter)")
    from webflow.protos import event_pb2, summary_pb2

    value = tensor() if callable(tensor) else tensor
    if is_tensor_like(value):
        value = convert_to_tensor(value).numpy()
    summary_value = summary_pb2.Summary.Value(tag=tag, tensor=tensor_proto(value))
    if metadata is not None:
        summary_value.metadata.ParseFromString(serialized(metadata))
    event = event_pb2.Event(wall_time=time.time(), step=_int_step(step),
                            summary=summary_pb2.Summary(value=[summary_value]))
    _STATE.writer._write(event)
    return constant(True)


def _metadata(plugin_name: str, description: str | None) -> bytes:
    """TensorBoard's SummaryMetadata for a plugin (its plugin data at version 0: empty content)."""
    from webflow.protos import summary_pb2

    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin_name))
    if description is not None:
        metadata.summary_description = description
    return metadata.SerializeToString()


def _values(data: Any) -> Any:
    """`data` (a tensor, array or Python value) as an array."""
    return np.asarray(convert_to_tensor(data).numpy())


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> Any:
    """`tf.summary.scalar`: a scalar (cast to float32) for TensorBoard's scalars dashboard."""
    with summary_scope(name, "scalar_summary", values=[data, step]) as (tag, _):
        tensor = convert_to_tensor(data)
        if tensor.shape.rank not in (None, 0):
            raise ValueError(f"Expected scalar shape for data, saw shape: {tensor.shape}.")
        return write(tag, lambda: _values(tensor).astype(np.float32), step, _metadata("scalars", description))


def histogram_buckets(data: Any, bucket_count: int | None = None) -> Any:
    """TensorBoard's [k, 3] float64 buckets (left edge, right edge, count) of all the elements of `data`."""
    count = max(0, DEFAULT_BUCKET_COUNT if bucket_count is None else int(bucket_count))
    data = np.asarray(data).astype(np.float64).reshape(-1)
    if data.size == 0 or count == 0:
        return np.zeros((count, 3))
    low, high = float(data.min()), float(data.max())
    if high - low == 0:
        counts = np.zeros(count)
        counts[-1] = data.size
        edges = np.full(count, high)
        return np.stack([edges, edges, counts]).T.copy()
    width = (high - low) / count
    indices = np.minimum(np.floor((data - low) / width).astype(np.int32), count - 1)
    counts = np.bincount(indices, minlength=count).astype(np.float64)
    step = (high - low) / count  # tf.linspace(low, high, count + 1): low + step * i, the last exactly high
    edges = np.array([low + step * i for i in range(count)] + [high])
    return np.stack([edges[:-1], edges[1:], counts]).T.copy()


def histogram(name: str, data: Any, step: Any = None, buckets: int | None = None,
              description: str | None = None) -> Any:
    """`tf.summary.histogram`: equal-width buckets of all the elements of `data`, for TensorBoard's histogram
    and distribution dashboards."""
    with summary_scope(name, "histogram_summary", values=[data, buckets, step]) as (tag, _):
        return write(tag, lambda: histogram_buckets(_values(data), buckets), step,
                     _metadata("histograms", description))


def _image_tensor(data: Any, max_outputs: int) -> Any:
    images = _values(data)
    if images.ndim != 4:
        raise ValueError(f"Tensor must be of rank 4, got shape {tuple(images.shape)}")
    if max_outputs < 0:
        raise ValueError(f"max_outputs must be non-negative, got {max_outputs}")
    images = summaries.convert_image_to_uint8(images)
    _, height, width, channels = images.shape
    pngs = [summaries.encode_png(np.ascontiguousarray(image).tobytes(), width, height, channels)
            for image in images[:max_outputs]]
    out = np.empty(2 + len(pngs), dtype=object)
    out[:] = [str(width).encode(), str(height).encode()] + pngs
    return out


def image(name: str, data: Any, step: Any = None, max_outputs: int = 3, description: str | None = None) -> Any:
    """`tf.summary.image`: up to `max_outputs` images of a [k, height, width, channels] tensor (floats in [0, 1]
    or uint8; 1 to 4 channels), for TensorBoard's images dashboard."""
    with summary_scope(name, "image_summary", values=[data, max_outputs, step]) as (tag, _):
        return write(tag, lambda: _image_tensor(data, int(max_outputs)), step, _metadata("images", description))


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> Any:
    """`tf.summary.text`: a string tensor (Markdown) for TensorBoard's text dashboard."""
    with summary_scope(name, "text_summary", values=[data, step]) as (tag, _):
        tensor = convert_to_tensor(data)
        if tensor.dtype.base_dtype != dtypes.string:
            raise TypeError(f"data must be of type tf.string, not {tensor.dtype.name}")
        return write(tag, lambda: tensor.numpy(), step, _metadata("text", description))


__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "flush", "record_if",
           "should_record_summaries", "write", "scalar", "histogram", "image", "text", "get_step", "set_step",
           "summary_scope", "histogram_buckets", "has_default_writer"]
