"""Per-op timings: a table and Chrome-trace JSON (chrome://tracing, Perfetto) from the same rows as the document's
`profile` section (made by graph_document.profile_section, re-exported here).

Graph mode: run with `options=RunOptions(trace_level=RunOptions.FULL_TRACE), run_metadata=md`; the
executor records each op's start and duration (NodeExecStats, in microseconds since the run began).
Eager mode: `with webflow.lab.profile() as p:` times every eager op while the block runs, by wrapping
`registry._apply_eagerly` (the eager half of `apply_op`) and restoring it on exit; `p.run_metadata`
then holds the same NodeExecStats (node name = op type), so the same table and trace apply.
Timings on a shared machine are noisy: read them as rough.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from typing import Any

from webflow.lab.formatting import micros_text, value_shape
from webflow.lab.graph_document import MIME_TYPE, VERSION, profile_section
from webflow.ops import registry
from webflow.runtime.config import NodeExecStats, RunMetadata


def profile_text(run_metadata: Any, limit: int = 30) -> str:
    """The table a learner reads: slowest ops first, with their share of the total."""
    section = profile_section(run_metadata)
    total = section["total_us"] or 1.0
    rows = sorted(section["ops"], key=lambda row: -row["duration_us"])
    width = max([len(row["node"]) for row in rows[:limit]] + [4])
    lines = [f"{'node':<{width}}  {'type':<22} {'backend':<7} {'calls':>5} {'time':>10} {'share':>6}"]
    for row in rows[:limit]:
        lines.append(f"{row['node']:<{width}}  {row['type']:<22} {row['backend']:<7} {row['calls']:>5} "
                     f"{micros_text(row['duration_us']):>10} {100 * row['duration_us'] / total:>5.1f}%")
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more ops")
    lines.append(f"total {micros_text(section['total_us'])} in {len(rows)} ops (noisy on a shared machine)")
    return "\n".join(lines)


def chrome_trace(run_metadata: Any) -> dict:
    """Trace Event Format JSON: one complete ("X") event per op run; ts and dur in microseconds."""
    pid = os.getpid()
    events: list[dict] = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                           "args": {"name": "webflow"}},
                          {"name": "thread_name", "ph": "M", "pid": pid, "tid": 0,
                           "args": {"name": "executor (one thread)"}}]
    for stat in run_metadata.step_stats.dev_stats:
        events.append({"name": stat.node_name, "cat": stat.op_type, "ph": "X", "pid": pid, "tid": 0,
                       "ts": float(stat.all_start_micros), "dur": float(stat.all_end_rel_micros),
                       "args": {"op": stat.op_type, "backend": stat.backend, "device": stat.device,
                                "output_shapes": [list(s) for s in stat.output_shapes]}})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def save_chrome_trace(run_metadata: Any, path: str) -> str:
    """Writes chrome_trace() to `path` atomically (temp file in the same folder, then os.replace)."""
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".trace-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w") as file:
            json.dump(chrome_trace(run_metadata), file)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise
    return path


# --- eager ----------------------------------------------------------------------------------------
_ACTIVE: list = []          # the open `profile()` blocks (nested blocks all receive every op)
_ORIGINAL: list = []        # registry._apply_eagerly as it was before the first block opened


def _timed_apply_eagerly(opdef: Any, inputs: list, attrs: dict) -> Any:
    started = time.perf_counter()
    result = _ORIGINAL[0](opdef, inputs, attrs)
    ended = time.perf_counter()
    backend = _eager_backend(opdef, inputs)
    for block in _ACTIVE:
        block._record(opdef.type, started, ended, backend, result)
    return result


def _eager_backend(opdef: Any, inputs: list) -> str:
    """Which kernel the eager call used (selection.py's chooser decides by size for some ops)."""
    if opdef.chooser is None:
        return opdef.backend
    values = [getattr(t, "_value", t) for t in inputs]
    chosen = opdef.chooser(values)
    return next((name for name, kernel in opdef.kernels.items() if kernel is chosen), opdef.backend)


class profile:  # noqa: N801 - used as `with webflow.lab.profile() as p`, like a function
    """Times every eager op run inside the block; `.run_metadata`, `.table()`, `.chrome_trace()`."""

    def __init__(self) -> None:
        self.run_metadata = RunMetadata()
        self._origin: float | None = None

    def __enter__(self) -> profile:
        if not _ACTIVE:
            _ORIGINAL[:] = [registry._apply_eagerly]
            registry._apply_eagerly = _timed_apply_eagerly
        _ACTIVE.append(self)
        self._origin = time.perf_counter()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _ACTIVE.remove(self)
        if not _ACTIVE:
            registry._apply_eagerly = _ORIGINAL.pop()

    def _record(self, op_type: str, started: float, ended: float, backend: str, result: Any) -> None:
        outputs = result if isinstance(result, list) else [] if result is None else [result]
        shapes = [list(value_shape(t) or ()) for t in outputs]
        self.run_metadata.step_stats.dev_stats.append(NodeExecStats(
            op_type, op_type, (started - self._origin) * 1e6, (ended - started) * 1e6, shapes, "", backend))

    def section(self) -> dict:
        return profile_section(self.run_metadata)

    def table(self, limit: int = 30) -> str:
        return profile_text(self.run_metadata, limit)

    def chrome_trace(self) -> dict:
        return chrome_trace(self.run_metadata)

    def save_chrome_trace(self, path: str) -> str:
        return save_chrome_trace(self.run_metadata, path)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        document = {"version": VERSION, "title": "Eager profile", "live": False, "nodes": [], "edges": [],
                    "error": None, "profile": self.section()}
        return {MIME_TYPE: document, "text/plain": self.table()}


__all__ = ["profile", "profile_section", "profile_text", "chrome_trace", "save_chrome_trace"]
