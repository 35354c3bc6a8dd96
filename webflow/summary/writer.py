"""TF1's `tf.summary.FileWriter` and `tf.summary.FileWriterCache` (tensorflow/python/summary/writer/writer.py).

A FileWriter turns what a training loop hands it into Events with a wall time (time.time()) and an optional
step, written to one event file (event_file_writer.py): summaries (the bytes `sess.run(merged)` returns, or a
Summary proto), the graph (a GraphDef, from `graph.as_graph_def(add_shapes=True)`), a MetaGraphDef, session logs.
As TensorFlow does, a tag's SummaryMetadata is written with its first value only (later ones drop it, to save
space), and a FileWriter cannot be made while executing eagerly (TF2 code uses tf.summary.create_file_writer).
"""

from __future__ import annotations

import threading
import time
import warnings
from typing import Any

from webflow.framework import context
from webflow.framework.graph import Graph
from webflow.summary.event_file_writer import EventFileWriter, serialized
from webflow.summary.run_metadata import run_metadata_proto


def _graph_def_bytes(graph: Any) -> bytes:
    """The serialized GraphDef of a webflow Graph, from its as_graph_def()."""
    as_graph_def = getattr(graph, "as_graph_def", None)
    if as_graph_def is None:
        raise NotImplementedError("FileWriter.add_graph needs Graph.as_graph_def() (GraphDef export), which this "
                                  "webflow does not have yet; summaries, session logs and events work without it")
    try:
        graph_def = as_graph_def(add_shapes=True)
    except TypeError:  # an as_graph_def without TensorFlow's add_shapes argument
        graph_def = as_graph_def()
    return serialized(graph_def)


def _is_graph_def(value: Any) -> bool:
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "full_name", None) == "tensorflow.GraphDef"


class FileWriter:
    """`tf.compat.v1.summary.FileWriter(logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
    filename_suffix=None, session=None)`: writes Summary protos and other events to an event file in `logdir`;
    with `graph`, the graph (and a MetaGraphDef holding it) first."""

    def __init__(self, logdir: Any, graph: Any = None, max_queue: int = 10, flush_secs: float = 120,
                 graph_def: Any = None, filename_suffix: str | None = None, session: Any = None):
        if context.executing_eagerly():
            raise RuntimeError("v1.summary.FileWriter is not compatible with eager execution. Use "
                               "`tf.summary.create_file_writer`,or a `with v1.Graph().as_default():` context")
        if session is not None:
            raise NotImplementedError("FileWriter(session=...) writes through TF2 summary ops in the session, "
                                      "which webflow does not have; leave session out")
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        self._seen_summary_tags: set = set()
        self._session_run_tags: dict = {}
        if graph is not None or graph_def is not None:
            from webflow.protos import graph_pb2, meta_graph_pb2

            graph_bytes = self._add_graph_bytes(graph, None, graph_def)
            # and a MetaGraphDef holding it (TensorFlow's also lists the OpDefs used and its version; this not)
            self.add_meta_graph(meta_graph_pb2.MetaGraphDef(graph_def=graph_pb2.GraphDef.FromString(graph_bytes)))

    # --- what goes in ------------------------------------------------------------------------------------
    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """Adds a Summary: the serialized bytes a summary op returns, or a Summary proto."""
        from webflow.protos import event_pb2, summary_pb2

        if hasattr(summary, "shape") and hasattr(summary, "item"):  # a NumPy scalar holding the bytes
            summary = summary.item()
        parsed = summary_pb2.Summary.FromString(serialized(summary))
        for value in parsed.value:  # a tag's metadata goes with its first value only, as TensorFlow writes it
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=parsed), global_step)

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        """Adds a SessionLog (START, STOP, CHECKPOINT), as TensorBoard uses to discard events of a restart."""
        from webflow.protos import event_pb2

        log = event_pb2.SessionLog.FromString(serialized(session_log))
        self._add_event(event_pb2.Event(session_log=log), global_step)

    def add_graph(self, graph: Any, global_step: Any = None, graph_def: Any = None) -> None:
        """Adds a graph for TensorBoard's graph dashboard: a webflow Graph (or, deprecated, a GraphDef)."""
        self._add_graph_bytes(graph, global_step, graph_def)

    def _add_graph_bytes(self, graph: Any, global_step: Any, graph_def: Any) -> bytes:
        """Writes the graph's event; returns the serialized GraphDef."""
        from webflow.protos import event_pb2

        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, Graph) or isinstance(graph_def, Graph):
            graph_bytes = _graph_def_bytes(graph if isinstance(graph, Graph) else graph_def)
        elif _is_graph_def(graph) or _is_graph_def(graph_def):
            graph_bytes = serialized(graph if _is_graph_def(graph) else graph_def)
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated `GraphDef`")
        self._add_event(event_pb2.Event(graph_def=graph_bytes), global_step)
        return graph_bytes

    def add_meta_graph(self, meta_graph_def: Any, global_step: Any = None) -> None:
        """Adds a MetaGraphDef proto."""
        from webflow.protos import event_pb2

        descriptor = getattr(meta_graph_def, "DESCRIPTOR", None)
        if getattr(descriptor, "full_name", None) != "tensorflow.MetaGraphDef":
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        self._add_event(event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString()), global_step)

    def add_run_metadata(self, run_metadata: Any, tag: str, global_step: Any = None) -> None:
        """Adds the step stats of a run under `tag` (once per tag), for TensorBoard's graph dashboard: webflow's
        RunMetadata (Session.run with RunOptions(trace_level=FULL_TRACE)), a RunMetadata proto, or its bytes."""
        from webflow.protos import event_pb2

        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        # the bytes, as TensorFlow stores them: TensorBoard parses them only when asked (RunMetadata(tag))
        data = run_metadata_proto(run_metadata).SerializeToString()
        tagged = event_pb2.TaggedRunMetadata(tag=tag, run_metadata=data)
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def add_event(self, event: Any) -> None:
        """Adds an Event proto (or its bytes) as it is."""
        self._warn_if_closed()
        self.event_writer.add_event(event)

    def _add_event(self, event: Any, step: Any) -> None:
        self._warn_if_closed()
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def _warn_if_closed(self) -> None:
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a noop unless the "
                          "FileWriter is explicitly reopened.", stacklevel=3)

    # --- the file ----------------------------------------------------------------------------------------
    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def flush(self) -> None:
        """Writes every pending event to disk."""
        self._warn_if_closed()
        self.event_writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; later events are dropped (with a warning) until reopen()."""
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        """After close(): the events that follow go to a new event file in the same directory."""
        self.event_writer.reopen()
        self._closed = False

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *unused: Any) -> None:
        self.close()


class FileWriterCache:
    """`tf.compat.v1.summary.FileWriterCache`: one FileWriter per logdir, shared (made with the default graph)."""

    _cache: dict = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir: Any) -> FileWriter:
        """The FileWriter for `logdir`, made on first use."""
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                graph = context.get_default_graph()
                # the graph goes with it once graphs can be exported (Graph.as_graph_def)
                FileWriterCache._cache[logdir] = FileWriter(
                    logdir, graph=graph if hasattr(graph, "as_graph_def") else None)
            return FileWriterCache._cache[logdir]

    @staticmethod
    def clear() -> None:
        """Closes and forgets every cached FileWriter."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}


__all__ = ["FileWriter", "FileWriterCache"]
