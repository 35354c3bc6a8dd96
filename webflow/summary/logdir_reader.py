"""A logdir as TensorBoard sees it: runs (each folder holding event files), and per run the tags of each kind.

    reader = LogdirReader("logs")
    reader.reload()                     # reads what was appended since the last reload (cheap while training)
    reader.runs["train"].scalars["loss"]   # [(step, wall_time, value), ...]

No TensorFlow, no tensorboard package, no protobuf, no NumPy: events are decoded by event_wire.py, so this runs in
the browser (Pyodide) too. What goes where follows TensorBoard's data_compat + plugins:
- scalars: TF1 `simple_value`, or a tensor whose metadata names the "scalars" plugin (TF2);
- histograms: TF1 `histo` as TensorBoard's data_compat migrates it ([left, right, count] float32 rows between the
  first and last non-empty bucket, the outer edges the data's min and max), or a "histograms" [k, 3] tensor (TF2);
- images: TF1 `image` (one encoded image), or an "images" string tensor [width, height, image, ...] (TF2);
- text: a "text" string tensor (TF1 and TF2), kept with its shape;
- graph: the run's latest `graph_def` (or the graph inside a `meta_graph_def`), as its nodes.
A tag's plugin comes from its first value carrying metadata (TensorFlow writes the metadata once per tag).
Kept per tag: every scalar; the last HISTOGRAMS_KEPT histograms, IMAGES_KEPT images, TEXTS_KEPT texts (TensorBoard
samples at random instead). Not done: TensorBoard's purge of steps after a restart (SessionLog.START).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import Any

from webflow.framework import errors
from webflow.summary import event_wire
from webflow.summary.event_tail import EventFileTail

HISTOGRAMS_KEPT = 50
IMAGES_KEPT = 10
TEXTS_KEPT = 10
KINDS = ("scalars", "histograms", "images", "text")


def is_event_file(name: str) -> bool:
    """TensorBoard's test (io_wrapper.IsSummaryEventsFile): "tfevents" in the file name."""
    return "tfevents" in name


def find_runs(logdir: str) -> dict[str, list[str]]:
    """{run name: its event files, sorted}: each folder under logdir holding event files is a run, named by its path
    relative to logdir ("." for logdir itself), as TensorBoard names runs."""
    runs = {}
    for folder, dirs, files in os.walk(logdir):
        dirs.sort()
        events = sorted(os.path.join(folder, name) for name in files if is_event_file(name))
        if events:
            run = os.path.relpath(folder, logdir).replace(os.sep, "/")
            runs[run] = events
    return runs


def float32(value: float) -> float:
    """value rounded to float32 (what TensorBoard keeps of a TF1 histogram)."""
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


@dataclass
class RunData:
    """What one run holds. Each list is in the order the events were written."""
    scalars: dict = field(default_factory=dict)     # tag -> [(step, wall_time, value)]
    histograms: dict = field(default_factory=dict)  # tag -> [(step, wall_time, [[left, right, count], ...])]
    images: dict = field(default_factory=dict)      # tag -> [(step, wall_time, width, height, encoded bytes)]
    text: dict = field(default_factory=dict)        # tag -> [(step, wall_time, shape, [str, ...])]
    graph: list | None = None                       # [(name, op, inputs)] of the latest graph, or None
    other_tags: dict = field(default_factory=dict)  # tag -> plugin name, for values no panel shows (audio, ...)
    plugins: dict = field(default_factory=dict)     # tag -> plugin name, from the tag's first metadata
    files: dict = field(default_factory=dict)       # path -> EventFileTail
    errors: list = field(default_factory=list)      # "corrupted record at ... in <file>" messages

    def add_event(self, event: event_wire.Event) -> None:
        if event.graph_def is not None:
            self.graph = event_wire.graph_nodes(event.graph_def)
        elif event.meta_graph_def is not None and self.graph is None:
            self.graph = _meta_graph_nodes(event.meta_graph_def)
        for value in event.values:
            self.add_value(event.step, event.wall_time, value)

    def add_value(self, step: int, wall_time: float, value: event_wire.Value) -> None:
        if value.has_metadata and value.tag not in self.plugins:
            self.plugins[value.tag] = value.plugin_name
        plugin = self.plugins.get(value.tag, "")
        tag = value.tag
        if value.simple_value is not None:
            self.scalars.setdefault(tag, []).append((step, wall_time, value.simple_value))
        elif value.histo is not None:
            _keep(self.histograms, tag, (step, wall_time, tf1_buckets(value.histo)), HISTOGRAMS_KEPT)
        elif value.image is not None:
            image = value.image
            _keep(self.images, tag, (step, wall_time, image.width, image.height, image.encoded), IMAGES_KEPT)
        elif value.tensor is not None and plugin in KINDS:
            self._add_tensor(plugin, tag, step, wall_time, value.tensor)
        else:
            self.other_tags[tag] = plugin or ("audio" if value.audio else "tensors")

    def _add_tensor(self, plugin: str, tag: str, step: int, wall_time: float, tensor: event_wire.Tensor) -> None:
        values = tensor.values
        if plugin == "scalars" and values:
            self.scalars.setdefault(tag, []).append((step, wall_time, float(values[0])))
        elif plugin == "histograms":
            rows = [[float(x) for x in values[i:i + 3]] for i in range(0, len(values) - 2, 3)]
            _keep(self.histograms, tag, (step, wall_time, rows), HISTOGRAMS_KEPT)
        elif plugin == "images" and len(values) >= 2:
            width, height = int(values[0] or 0), int(values[1] or 0)
            for encoded in values[2:]:
                _keep(self.images, tag, (step, wall_time, width, height, bytes(encoded)), IMAGES_KEPT)
        elif plugin == "text":
            texts = [v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v) for v in values]
            _keep(self.text, tag, (step, wall_time, list(tensor.shape), texts), TEXTS_KEPT)

    def note(self, message: str) -> None:
        if message not in self.errors:
            self.errors.append(message)

    def tags(self) -> dict[str, list[str]]:
        return {kind: sorted(getattr(self, kind)) for kind in KINDS}


def _keep(table: dict, tag: str, item: Any, limit: int) -> None:
    items = table.setdefault(tag, [])
    items.append(item)
    del items[:-limit]


def tf1_buckets(histo: event_wire.Histogram) -> list[list[float]]:
    """A TF1 HistogramProto as TensorBoard's data_compat turns it into [left, right, count] rows (float32): the
    empty buckets at both ends are dropped (TF1's outer limits are -DBL_MAX and DBL_MAX), then the first left edge
    is the data's min and the last right edge its max."""
    counts = list(histo.bucket)
    filled = [i for i, count in enumerate(counts) if count > 0]
    if not filled:
        return []
    start, end = filled[0], filled[-1]
    inner = list(histo.bucket_limit[start:end])
    lefts, rights = [histo.min] + inner, inner + [histo.max]
    return [[float32(left), float32(right), float32(count)]
            for left, right, count in zip(lefts, rights, counts[start:end + 1])]


def _meta_graph_nodes(meta_graph_def: bytes) -> list | None:
    for number, kind, value in event_wire.fields(meta_graph_def):
        if number == 2 and kind == event_wire.LENGTH:  # MetaGraphDef.graph_def
            return event_wire.graph_nodes(value)
    return None


class LogdirReader:
    """Every run under `logdir`; `reload()` reads the records written since the last call (new runs and files too)."""

    def __init__(self, logdir: str):
        self.logdir = os.fspath(logdir)
        self.runs: dict[str, RunData] = {}

    def reload(self) -> LogdirReader:
        for run, paths in find_runs(self.logdir).items():
            data = self.runs.setdefault(run, RunData())
            for path in paths:
                tail = data.files.setdefault(path, EventFileTail(path))
                if tail.error is None:
                    self._read(data, tail)
        return self

    @staticmethod
    def _read(data: RunData, tail: EventFileTail) -> None:
        try:
            records = tail.read_new()
        except errors.DataLossError as error:
            data.note(error.message)
            return
        except OSError as error:  # removed or unreadable since it was listed: try again next time
            data.note(f"{tail.path}: {error.strerror or error}")
            return
        for record in records:
            try:
                event = event_wire.decode_event(record)
            except ValueError as error:
                data.note(f"undecodable event in {tail.path}: {error}")
                continue
            data.add_event(event)


__all__ = ["LogdirReader", "RunData", "find_runs", "is_event_file", "tf1_buckets", "KINDS"]
