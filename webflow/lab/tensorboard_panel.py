"""TensorBoard inside the notebook: `tensorboard(logdir)` and the `%tensorboard --logdir DIR` magic.

The real TensorBoard is a server; JupyterLite has none. So the panel is webflow's own: summary/logdir_reader.py
reads the event files (no TensorFlow, tensorboard, protobuf or NumPy needed: it runs in Pyodide too),
tensorboard_document.py makes the document, labextension/src/tensorboard.ts draws it.

    webflow.lab.tensorboard("logs")                       # one output: scalars, histograms, images, text, graph
    panel = webflow.lab.tensorboard("logs", live=True)    # ... kept up to date while training:
    for step in ...:
        ...; panel.refresh()                              # re-reads only the new records, at most once per `every` s
    panel.close()

Live means "updated when the training loop calls refresh()": the kernel is busy training, and nothing else may read
files behind its back (threads do not exist in Pyodide). Each refresh re-sends the document with update_display.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from typing import Any

from webflow.lab.display import LiveOutput, ipython_display
from webflow.lab.tensorboard_document import as_bundle, tensorboard_document, tensorboard_text
from webflow.summary.logdir_reader import LogdirReader


class TensorBoardPanel:
    """The runs under `logdir` in one notebook output, re-read and updated in place by `refresh()`."""

    def __init__(self, logdir: Any, live: bool = False, every: float = 1.0, title: str | None = None,
                 display: Any = None):
        self.logdir = os.fspath(logdir)
        self.live = live
        self.every = every
        self.title = title
        self.reader = LogdirReader(self.logdir).reload()  # so that a panel shown as a cell's value has the data
        self._output = LiveOutput(display)
        self._last_refresh = -float("inf")
        self._consumed = -1

    def refresh(self, force: bool = False) -> bool:
        """Reads what was appended to the event files; updates the output if anything changed. Without `force`,
        does nothing when the last refresh was less than `every` seconds ago (so it may be called every step).
        Returns whether the output was updated."""
        now = time.monotonic()
        if not force and now - self._last_refresh < self.every:
            return False
        self._last_refresh = now
        self.reader.reload()  # cheap when nothing was written: one stat + open per event file
        consumed = sum(tail.offset for run in self.reader.runs.values() for tail in run.files.values())
        if consumed == self._consumed and not force:
            return False
        self._consumed = consumed
        self._output.publish(self._repr_mimebundle_())
        return True

    def close(self) -> None:
        """A last read; the output stops saying "live"."""
        self.live = False
        self.refresh(force=True)
        self._output.close()

    def document(self) -> dict:
        return tensorboard_document(self.reader.runs, logdir=self.logdir, title=self.title, live=self.live)

    def text(self) -> str:
        return tensorboard_text(self.document())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return as_bundle(self.document())

    def __enter__(self) -> TensorBoardPanel:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def tensorboard(logdir: Any, live: bool = False, every: float = 1.0, title: str | None = None,
                display: Any = None) -> TensorBoardPanel | None:
    """Shows the runs under `logdir` (each folder holding event files is a run) in one output.

    With `live=True` returns the panel: call its `refresh()` while training and `close()` at the end. Otherwise
    returns None (a returned panel would be displayed a second time as the cell's value). Outside a notebook the
    text form is printed."""
    panel = TensorBoardPanel(logdir, live=live, every=every, title=title, display=display)
    if display is None and ipython_display() is None:
        print(panel.text())
        return panel if live else None
    panel.refresh(force=True)
    return panel if live else None


def _magic_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="%tensorboard", add_help=False)
    parser.add_argument("--logdir")
    return parser


def tensorboard_magic(line: str) -> None:
    """`%tensorboard --logdir DIR`: TensorBoard's notebook magic, shown with webflow's panel (no server).

    TensorBoard's server flags (--port, --host, --reload_interval, ...) have no meaning here: they are ignored,
    with a note."""
    known, ignored = _magic_parser().parse_known_args(shlex.split(line))
    if not known.logdir:
        print("Error: A logdir must be specified. Run `%tensorboard --logdir DIR`.", file=sys.stderr)
        return
    if ignored:
        print(f"(webflow's TensorBoard panel ignores: {' '.join(ignored)})", file=sys.stderr)
    logdir = os.path.expanduser(known.logdir)
    if not os.path.isdir(logdir):
        print(f"(no folder {logdir!r} yet: the panel is empty until event files are written there)", file=sys.stderr)
    tensorboard(logdir)


def register_magic(ipython: Any) -> None:
    """Makes `%tensorboard` webflow's (called by `%load_ext webflow.lab`)."""
    ipython.register_magic_function(tensorboard_magic, magic_kind="line", magic_name="tensorboard")


__all__ = ["tensorboard", "TensorBoardPanel", "tensorboard_magic", "register_magic"]
