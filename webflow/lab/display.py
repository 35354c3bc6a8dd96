"""Notebook display: `_repr_mimebundle_` for Graph, Session and traced functions; `show`; one live output.

Jupyter asks an object for `_repr_mimebundle_()` and picks the richest MIME type it can render: our
`application/vnd.webflow.graph+json` (the labextension draws it) or the `text/plain` fallback.
`install()` (run when webflow.lab is imported, which `import webflow` does) adds that method to the
engine's classes, so framework/ and runtime/ need no import of this layer.

`LiveOutput` is one output area updated in place: IPython's `display(..., display_id=True)` once, then
`handle.update(...)`. Outside IPython it prints the text form once, when closed.
"""

from __future__ import annotations

import sys
from typing import Any

from webflow.lab.formatting import micros_text
from webflow.lab.graph_document import MIME_TYPE, graph_document

MAX_TEXT_NODES = 40  # the text/plain summary lists this many ops, then says how many more


# --- bundles ---------------------------------------------------------------------------------------
def bundle(document: dict, text: str | None = None) -> dict:
    """{graph MIME type: document, "text/plain": text}: what a display call sends."""
    return {MIME_TYPE: document, "text/plain": text if text is not None else summary_text(document)}


def summary_text(document: dict) -> str:
    """The text/plain form of a graph document: one line per op, with output shapes and timing."""
    lines = [document["title"] + (" (live)" if document.get("live") else "")]
    inputs: dict[str, list] = {}
    for edge in document["edges"]:
        if not edge["control"]:
            inputs.setdefault(edge["target"], []).append(edge["source"])
    for node in document["nodes"][:MAX_TEXT_NODES]:
        outputs = ", ".join(f"{o['shape']} {o['dtype']}" for o in node["outputs"]) or "-"
        call = f"{node['type']}({', '.join(inputs.get(node['name'], []))})"
        extra = ""
        if node["timing_us"] is not None:
            extra = f"  [{micros_text(node['timing_us'])}, {node['backend']}]"
        mark = "  <-- error" if node.get("error") else ""
        lines.append(f"  {node['name']} = {call} -> {outputs}{extra}{mark}")
    hidden = len(document["nodes"]) - MAX_TEXT_NODES
    if hidden > 0:
        lines.append(f"  ... {hidden} more ops")
    if document.get("error"):
        lines.append(document["error"].get("explanation") or document["error"]["message"])
    return "\n".join(lines)


def graph_bundle(graph: Any, include: Any = None, exclude: Any = None) -> dict:
    return bundle(graph_document(graph))


def session_bundle(session: Any, include: Any = None, exclude: Any = None) -> dict:
    count = len(session.graph.get_operations())
    return bundle(graph_document(session.graph, title=f"Session graph ({count} ops)"))


def function_bundle(function: Any, include: Any = None, exclude: Any = None) -> dict:
    """A wf.function: the graph of its latest trace (a ConcreteFunction: its graph)."""
    graph = function_graph(function)
    name = getattr(function, "name", None) or getattr(function, "_name", "function")
    if graph is None:
        return {"text/plain": f"<webflow.function {name}: not traced yet (call it once)>"}
    count = len(graph.get_operations())
    return bundle(graph_document(graph, title=f"function {name} ({count} ops)"))


def function_graph(function: Any) -> Any:
    """The FuncGraph of a ConcreteFunction, or of a Function's most recent trace (None if never traced)."""
    graph = getattr(function, "graph", None)
    if graph is not None:
        return graph
    traces = list(getattr(function, "_concrete", {}).values())
    return traces[-1].graph if traces else None


def install() -> None:
    """Gives Graph, Session and traced functions a `_repr_mimebundle_` (idempotent)."""
    from webflow.framework.graph import Graph
    from webflow.runtime.function import ConcreteFunction, Function
    from webflow.runtime.session import BaseSession

    Graph._repr_mimebundle_ = graph_bundle
    BaseSession._repr_mimebundle_ = session_bundle
    Function._repr_mimebundle_ = function_bundle
    ConcreteFunction._repr_mimebundle_ = function_bundle


# --- showing -----------------------------------------------------------------------------------------
def ipython_display() -> Any:
    """IPython.display.display when running inside IPython/Jupyter, else None."""
    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None:
        return None
    from IPython.display import display

    return display


def show(obj: Any) -> None:
    """Displays a Graph, Session, wf.function, document or bundle: rich in Jupyter, text in a terminal."""
    data = as_bundle(obj)
    display = ipython_display()
    if display is not None:
        display(data, raw=True)
    else:
        print(data.get("text/plain", ""))


def as_bundle(obj: Any) -> dict:
    if isinstance(obj, dict) and "version" in obj and "nodes" in obj:
        return bundle(obj)
    if isinstance(obj, dict):
        return obj
    method = getattr(obj, "_repr_mimebundle_", None)
    if method is None:
        return {"text/plain": repr(obj)}
    return method()


class LiveOutput:
    """One output area updated in place: `display(..., display_id=True)` once, then `handle.update(...)`.

    `display` defaults to IPython's; pass another function with IPython's signature (tests do). Without
    IPython the text/plain of the last bundle is printed once, by `close()`.
    """

    def __init__(self, display: Any = None):
        self._display = display
        self._handle: Any = None
        self._last: dict | None = None
        self.updates = 0

    def publish(self, data: dict) -> None:
        self._last = data
        display = self._display or ipython_display()
        if display is None:
            return
        if self._handle is None:
            self._handle = display(data, raw=True, display_id=True)
        else:
            self._handle.update(data, raw=True)
        self.updates += 1

    def close(self) -> None:
        """Without IPython: print the final text once (a terminal has no output to update)."""
        if self._display is None and ipython_display() is None and self._last is not None:
            print(self._last.get("text/plain", ""))


__all__ = ["bundle", "summary_text", "install", "show", "as_bundle", "LiveOutput", "function_graph"]
