"""TF2's `tf.summary.trace_on / trace_export / trace_off`: the graphs of the `wf.function`s called while a trace is
on, written to the default writer for TensorBoard's graph dashboard.

What TensorFlow 2.21 writes (summary_ops_v2.py run_metadata_graphs), and so webflow: one Summary value under the
export's name, plugin "graph_run_metadata_graph" (content "1"), holding a scalar string tensor: a serialized
RunMetadata whose `function_graphs` list each traced graph that first ran during the trace (a function that ran
before trace_on is not listed, as in TensorFlow, which records a function when it instantiates it), in that order,
as its `pre_optimization_graph` (the function body: function_graphs.py). TensorFlow also lists the small functions
it runs eager ops with, and the graphs after its optimizations; webflow neither optimizes graphs nor runs eager ops
as functions. With `profiler=True`, TensorFlow writes a plugin "graph_run_metadata" summary instead; webflow has no
TensorFlow profiler and writes that summary with the same graphs, and nothing in `profiler_outdir`.

The recorder listens to ops/functional_ops.py's FIRST_RUN_LISTENERS: a function run eagerly for the first time
reports its graph there.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import context
from webflow.ops import functional_ops
from webflow.summary.function_graphs import function_body
from webflow.summary.summary_v2 import summary_scope, write


class _Trace:
    """The trace in progress: what was asked for and the function graphs seen so far."""

    def __init__(self, graph: bool, profiler: bool):
        self.graph = graph
        self.profiler = profiler
        self.function_graphs: list = []

    def record(self, func_graph: Any) -> None:
        if (self.graph or self.profiler) and all(func_graph is not seen for seen in self.function_graphs):
            self.function_graphs.append(func_graph)


_lock = threading.Lock()
_current: list = []  # the one trace in progress, if any


def trace_on(graph: bool = True, profiler: bool = False, profiler_outdir: str | None = None) -> None:
    """`tf.summary.trace_on`: from now on, records the graph of every `wf.function` run (eagerly) for the first
    time."""
    if not context.executing_eagerly():
        warnings.warn("Must enable trace in eager mode.", stacklevel=2)
        return
    with _lock:
        if _current:
            warnings.warn("Trace already enabled", stacklevel=2)
            return
        if profiler:
            warnings.warn("webflow has no TensorFlow profiler: the trace records function graphs only, and "
                          "nothing is written to profiler_outdir", stacklevel=2)
        trace = _Trace(graph, profiler)
        _current.append(trace)
        functional_ops.FIRST_RUN_LISTENERS.append(trace.record)


def trace_off() -> None:
    """`tf.summary.trace_off`: stops the trace and forgets what it recorded."""
    with _lock:
        if not _current:
            return
        trace = _current.pop()
        functional_ops.FIRST_RUN_LISTENERS.remove(trace.record)


def trace_export(name: str, step: Any = None, profiler_outdir: str | None = None) -> None:
    """`tf.summary.trace_export`: writes the recorded graphs to the default writer (if any) under `name` at `step`
    (default: the default step), then stops the trace."""
    if not context.executing_eagerly():
        warnings.warn("Can only export trace while executing eagerly.", stacklevel=2)
        return
    with _lock:
        if not _current:
            raise ValueError("Must enable trace before export through tf.summary.trace_on.")
        trace = _current[0]
    data = run_metadata_of(trace.function_graphs).SerializeToString()
    plugin, default_name = (("graph_run_metadata_graph", "graph_run_metadata_graph_summary")
                            if trace.graph and not trace.profiler
                            else ("graph_run_metadata", "graph_run_metadata_summary"))
    with summary_scope(name, default_name, values=[data, step]) as (tag, _):
        write(tag, lambda: _string_scalar(data), step, _plugin_metadata(plugin))
    trace_off()


def _string_scalar(data: bytes) -> Any:
    out = np.empty((), dtype=object)
    out[()] = data  # (np.asarray(bytes) would drop trailing zero bytes)
    return out


def _plugin_metadata(plugin_name: str) -> bytes:
    from webflow.protos import summary_pb2

    return summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
        plugin_name=plugin_name, content=b"1")).SerializeToString()


def run_metadata_of(function_graphs: list) -> Any:
    """A RunMetadata proto listing each FuncGraph as a FunctionGraphs entry (its pre_optimization_graph)."""
    from webflow.protos import config_pb2

    metadata = config_pb2.RunMetadata()
    for func_graph in function_graphs:
        metadata.function_graphs.add().pre_optimization_graph.CopyFrom(function_body(func_graph))
    return metadata


__all__ = ["trace_on", "trace_off", "trace_export", "run_metadata_of"]
