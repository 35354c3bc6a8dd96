"""Runs one program of the "Graph playground" page and describes what it built, for the page to draw.

The page's Web Worker fetches this file, runs it once, then calls `run_program(source)` on every click of
**Run**; the answer is a JSON string (the worker hands it to the page as is):

    {"ok": true | false,
     "stdout": "...", "stderr": "...",          # what the program printed (stderr: the traceback, if it failed)
     "explanation": "..." | null,               # webflow.lab.explain(exc).text when the program failed
     "error": {"type": "ShapeError", "message": "..."} | null,
     "document": {...},                         # webflow.lab's graph document (labextension/SCHEMA.md)
     "timings": {"run_ms": ..., "document_ms": ...}}

Each run starts from a fresh default graph, in graph mode (TF1 behaviour), like a new `python program.py`.
The program is written to a real file first, so tracebacks, `op.traceback` and the explanation can show
its lines (they read source lines with `linecache`, as in a terminal).
The same file runs in CPython (the tests use it to check the page against a plain `python program.py`).
"""

from __future__ import annotations

import contextlib
import io
import json
import linecache
import os
import tempfile
import time
import traceback
from typing import Any

import webflow.compat.v1 as tf
import webflow.lab
from webflow.lab import coarse_clock
from webflow.runtime.session import BaseSession

PROGRAM_FILE = os.path.join(tempfile.gettempdir(), "playground", "program.py")


_CLOCK_STEP_US: list = []


def _clock_is_coarse() -> bool:
    if not _CLOCK_STEP_US:
        _CLOCK_STEP_US.append(coarse_clock.clock_step_us())
    return _CLOCK_STEP_US[0] > coarse_clock.COARSE_US


class _LastRunTracer:
    """While a program runs, every Session.run is traced (RunOptions FULL_TRACE) unless the program asks
    for its own tracing; the last traced run's RunMetadata gives the graph view each op's time and backend.

    Tracing costs a clock reading per op, which is cheap next to the ops of a playground-sized program.
    It patches BaseSession.run on the class (sessions the program creates are not ours to wrap one by
    one) and puts it back when the program ends.
    """

    def __init__(self) -> None:
        self.metadata: Any = None      # RunMetadata of the last run that completed
        self.graph: Any = None         # the graph of the last session used
        self._original = BaseSession.run

    def __enter__(self) -> _LastRunTracer:
        original, tracer = self._original, self

        def run(session: BaseSession, fetches: Any, feed_dict: dict | None = None, options: Any = None,
                run_metadata: Any = None) -> Any:
            tracer.graph = session.graph
            if options is not None or run_metadata is not None:   # the program traces on its own
                return original(session, fetches, feed_dict, options, run_metadata)
            def traced() -> Any:
                metadata = tf.RunMetadata()
                result = original(session, fetches, feed_dict,
                                  tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), metadata)
                return result, metadata

            result, metadata = traced()
            # the worker's clock steps by 100 µs: a run that changes nothing is timed again, per-op times averaged
            if _clock_is_coarse() and coarse_clock.repeatable(session.graph, metadata):
                metadata = coarse_clock.averaged(lambda: traced()[1], metadata)
            tracer.metadata = metadata
            return result

        BaseSession.run = run
        return self

    def __exit__(self, *exc_info: Any) -> None:
        BaseSession.run = self._original


def _write_program(source: str) -> str:
    os.makedirs(os.path.dirname(PROGRAM_FILE), exist_ok=True)
    with open(PROGRAM_FILE, "w", encoding="utf-8") as file:
        file.write(source)
    linecache.checkcache(PROGRAM_FILE)   # the previous run's lines must not be shown
    return PROGRAM_FILE


def _user_traceback(exc: BaseException, path: str) -> str:
    """The traceback cut to the program's own frames (webflow's internals are not the learner's concern)."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == path]
    lines = ["Traceback (most recent call last):\n"] + traceback.format_list(frames)
    return "".join(lines + traceback.format_exception_only(type(exc), exc))


def _fresh_graph_mode() -> None:
    """Graph mode and an empty default graph, whatever the previous program left behind."""
    tf.disable_v2_behavior()
    tf.reset_default_graph()


def run_program(source: str) -> str:
    """Runs `source` as `__main__`; returns the JSON answer described in the module docstring."""
    path = _write_program(source)
    _fresh_graph_mode()
    stdout, stderr = io.StringIO(), io.StringIO()
    error = explanation = None
    document = None
    started = time.perf_counter()
    with _LastRunTracer() as tracer, contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = compile(source, path, "exec")
            exec(code, {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__})  # noqa: S102
        except BaseException as exc:  # noqa: BLE001 - a learner's program may raise anything, even SystemExit
            error = {"type": type(exc).__name__, "message": str(exc)}
            stderr.write(_user_traceback(exc, path))
            explained = webflow.lab.explain(exc)
            explanation = explained.text
            document = explained.document   # the graph so far, the failing node marked (None if no op failed)
            if document is not None and document.get("error"):
                for frame in document["error"].get("frames") or []:  # this runner's frames are not the learner's
                    frame["engine"] = frame["engine"] or f'"{path}"' not in frame["where"]
    run_ms = (time.perf_counter() - started) * 1e3
    started = time.perf_counter()
    if document is None:
        graph = tf.get_default_graph()
        if not graph.get_operations() and tracer.graph is not None:   # built under `with tf.Graph().as_default()`
            graph = tracer.graph
        metadata = tracer.metadata if tracer.graph is graph else None
        document = webflow.lab.graph_document(graph, run_metadata=metadata)
    answer = {"ok": error is None, "stdout": stdout.getvalue(), "stderr": stderr.getvalue(),
              "explanation": explanation, "error": error, "document": document,
              "timings": {"run_ms": round(run_ms, 1), "document_ms": round((time.perf_counter() - started) * 1e3, 1)}}
    return json.dumps(answer, default=str)
