"""`webflow.lab.watch(sess)`: one graph view that updates in place while a training loop calls sess.run.

    with webflow.lab.watch(sess, every=0.5):
        for step in range(1000):
            sess.run(train_op, feed_dict=...)

While the block is open, `sess.run` is this watcher's wrapper (an instance attribute shadowing the
method; session.py is not touched). On the first run, and then whenever an update is due (at most
one per `every` seconds), the wrapper runs that step with `RunOptions(trace_level=FULL_TRACE)`,
reads the RunMetadata (which ops ran, their backend and time) and re-sends the document
(`live: true`) to the same output. On exit it sends a final update (`live: false`) and puts
`sess.run` back.
"""

from __future__ import annotations

import time
from typing import Any

from webflow.lab.display import LiveOutput, bundle
from webflow.lab.graph_document import graph_document
from webflow.runtime.config import RunMetadata, RunOptions


class watch:  # noqa: N801 - read as a function: `with webflow.lab.watch(sess):`
    """Live view of `session`'s graph; usable as a context manager or with start()/stop()."""

    def __init__(self, session: Any, every: float = 0.5, title: str | None = None, display: Any = None):
        self.session = session
        self.every = every
        self.title = title
        self.runs = 0
        self.last_metadata: RunMetadata | None = None
        self._output = LiveOutput(display)
        self._last_update = 0.0
        self._active = False

    # --- lifetime ----------------------------------------------------------------------------------
    def start(self) -> watch:
        if not self._active:
            self._active = True
            self.session.run = self._run  # shadows BaseSession.run on this instance only
            self._publish(live=True)
        return self

    def stop(self) -> None:
        if self._active:
            self._active = False
            del self.session.run  # the class's run is visible again
            self._publish(live=False)
            self._output.close()

    def __enter__(self) -> watch:
        return self.start()

    def __exit__(self, *exc_info: Any) -> None:
        self.stop()

    # --- the wrapped run -----------------------------------------------------------------------------
    def _run(self, fetches: Any, feed_dict: dict | None = None, options: Any = None, run_metadata: Any = None) -> Any:
        self.runs += 1
        due = self.last_metadata is None or time.monotonic() - self._last_update >= self.every
        if not due:
            return type(self.session).run(self.session, fetches, feed_dict, options, run_metadata)
        if options is None or not getattr(options, "trace_level", 0):
            options = RunOptions(trace_level=RunOptions.FULL_TRACE)
        metadata = run_metadata if run_metadata is not None else RunMetadata()
        already = len(metadata.step_stats.dev_stats)  # a caller's metadata may hold earlier runs
        result = type(self.session).run(self.session, fetches, feed_dict, options, metadata)
        this_run = RunMetadata()
        this_run.step_stats.dev_stats = metadata.step_stats.dev_stats[already:]
        self.last_metadata = this_run
        self._publish(live=True)
        return result

    def document(self, live: bool) -> dict:
        graph = self.session.graph
        title = self.title or f"Session.run #{self.runs} ({len(graph.get_operations())} ops)"
        return graph_document(graph, run_metadata=self.last_metadata, title=title, live=live)

    def _publish(self, live: bool) -> None:
        self._last_update = time.monotonic()
        self._output.publish(bundle(self.document(live)))

    @property
    def updates(self) -> int:
        """How many times the output was sent (first display + updates)."""
        return self._output.updates


__all__ = ["watch"]
