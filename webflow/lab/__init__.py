"""webflow.lab: the notebook side of webflow (see README.md here and SCHEMA.md for the documents).

    import webflow.lab as lab
    lab.show(graph)                      # the graph view (text in a terminal)
    with lab.watch(sess): ...            # one view updated live while a loop calls sess.run
    lab.explain(error).text              # why an op failed, pointed at your line
    lab.enable()                         # ... shown automatically (also: %load_ext webflow.lab)
    with lab.profile() as p: ...         # eager per-op timings; p.table(), p.save_chrome_trace(path)
    board = lab.Dashboard(); board.log(step, loss=...)
    lab.tensorboard("logs")              # TensorBoard's panel in the output (also: %tensorboard --logdir logs)
"""

from __future__ import annotations

from typing import Any

from webflow.lab import display as _display
from webflow.lab.dashboard import Dashboard, DashboardCallback, diagnose
from webflow.lab.display import LiveOutput, show, summary_text
from webflow.lab.graph_document import MIME_TYPE, graph_document, node_kind
from webflow.lab.hooks import disable, enable
from webflow.lab.profile import chrome_trace, profile, profile_section, profile_text, save_chrome_trace
from webflow.lab.shape_errors import Explanation, explain
from webflow.lab.tensorboard_panel import TensorBoardPanel, register_magic, tensorboard
from webflow.lab.watch import watch

_display.install()  # Graph, Session and wf.function objects display themselves in Jupyter


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext webflow.lab`: explanations for failing ops, shown with the traceback; `%tensorboard --logdir DIR`."""
    enable(ipython)
    register_magic(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    disable()


__all__ = ["graph_document", "node_kind", "MIME_TYPE", "show", "summary_text", "LiveOutput", "watch", "explain",
           "Explanation", "enable", "disable", "profile", "profile_section", "profile_text", "chrome_trace",
           "save_chrome_trace", "Dashboard", "DashboardCallback", "diagnose", "load_ipython_extension",
           "unload_ipython_extension", "tensorboard", "TensorBoardPanel"]
