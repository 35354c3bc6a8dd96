"""A logdir's runs (summary/logdir_reader.py) as one JSON document for the TensorBoard panel, and its text form.

The contract is SCHEMA.md ("TensorBoard document", MIME `application/vnd.webflow.tensorboard+json`); the renderer
is labextension/src/tensorboard.ts. Tags, run names, texts are user data: the renderer shows them as text only.
Sizes are bounded so a long run still gives a small output: scalars are thinned evenly to MAX_SCALAR_POINTS per
run and tag (first and last kept), histograms to the last HISTOGRAM_STEPS steps, images to the last IMAGES_SENT.
"""

from __future__ import annotations

import base64
import math
from typing import Any

from webflow.lab.graph_document import node_kind

MIME_TYPE = "application/vnd.webflow.tensorboard+json"
VERSION = 1
MAX_SCALAR_POINTS = 1000
HISTOGRAM_STEPS = 20
IMAGES_SENT = 4
TEXTS_SENT = 5
MAX_IMAGE_BYTES = 2 << 20     # a bigger encoded image is left out (the document stays small enough for a notebook)
MAX_GRAPH_NODES = 3000        # a bigger graph is sent as its node count only
TEXT_TAGS_SHOWN = 30          # the text/plain table lists this many tags per kind

# Encoded image formats a browser shows inline, by their first bytes (anything else is left out)
_IMAGE_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"))


def _number(value: float) -> float | None:
    """JSON has no NaN or Infinity (the browser's JSON.parse rejects them): they are sent as null."""
    return value if math.isfinite(value) else None


def thin(points: list, limit: int = MAX_SCALAR_POINTS) -> list:
    """At most `limit` points, evenly spaced over the list, the first and the last always kept."""
    if len(points) <= limit:
        return list(points)
    last = len(points) - 1
    picks = sorted({round(i * last / (limit - 1)) for i in range(limit)})
    return [points[i] for i in picks]


def image_source(encoded: bytes) -> str | None:
    """A data: URL of an encoded PNG/JPEG/GIF, or None for other bytes or a too big image."""
    if len(encoded) > MAX_IMAGE_BYTES:
        return None
    for magic, mime in _IMAGE_MAGIC:
        if encoded.startswith(magic):
            return f"data:{mime};base64," + base64.b64encode(encoded).decode("ascii")
    return None


def tensorboard_document(runs: dict, logdir: str = "", title: str | None = None, live: bool = False) -> dict:
    """The document for {run name: RunData} (LogdirReader.runs)."""
    names = sorted(runs)
    by_kind: dict[str, dict] = {"scalars": {}, "histograms": {}, "images": {}, "text": {}}
    for run in names:
        data = runs[run]
        for tag, points in data.scalars.items():
            by_kind["scalars"].setdefault(tag, {})[run] = [[step, wall, _number(value)]
                                                           for step, wall, value in thin(points)]
        for tag, items in data.histograms.items():
            by_kind["histograms"].setdefault(tag, {})[run] = [
                {"step": step, "wall_time": wall, "buckets": [[_number(x) for x in row] for row in rows]}
                for step, wall, rows in items[-HISTOGRAM_STEPS:]]
        for tag, items in data.images.items():
            sent = [{"step": step, "wall_time": wall, "width": width, "height": height, "src": image_source(encoded)}
                    for step, wall, width, height, encoded in items[-IMAGES_SENT:]]
            by_kind["images"].setdefault(tag, {})[run] = [image for image in sent if image["src"]]
        for tag, items in data.text.items():
            by_kind["text"].setdefault(tag, {})[run] = [
                {"step": step, "wall_time": wall, "shape": shape, "values": values}
                for step, wall, shape, values in items[-TEXTS_SENT:]]
    graphs = {run: graph_section(runs[run].graph, run) for run in names if runs[run].graph is not None}
    problems = [{"run": run, "message": message} for run in names for message in runs[run].errors]
    return {"version": VERSION, "title": title or f"TensorBoard: {logdir}", "logdir": logdir, "live": live,
            "runs": names, **{kind: _sorted(table) for kind, table in by_kind.items()}, "graphs": graphs,
            "other_tags": {run: dict(sorted(runs[run].other_tags.items())) for run in names if runs[run].other_tags},
            "errors": problems}


def _sorted(table: dict) -> dict:
    return {tag: table[tag] for tag in sorted(table)}


def graph_section(nodes: list, run: str) -> dict:
    """A run's graph (NodeDefs: name, op, inputs) as a graph document (SCHEMA.md, top) the graph view draws."""
    if len(nodes) > MAX_GRAPH_NODES:
        return {"node_count": len(nodes), "document": None}
    names = {name for name, _, _ in nodes}
    document_nodes, edges = [], []
    for name, op, inputs in nodes:
        scope = name.rpartition("/")[0]
        document_nodes.append({"name": name, "type": op, "kind": node_kind(op, name), "scope": scope})
        for index, text in enumerate(inputs):
            control = text.startswith("^")
            source = text.lstrip("^").split(":")[0]
            if source in names:
                # a GraphDef says nothing of shapes: empty labels rather than a "?" on every edge
                edges.append({"source": source, "target": name, "tensor": None if control else text,
                              "input_index": None if control else index, "shape": None if control else "",
                              "dtype": None if control else "", "control": control})
    document = {"version": 1, "title": f"Graph of run {run} ({len(nodes)} nodes)", "live": False,
                "nodes": document_nodes, "edges": edges, "error": None, "profile": None}
    return {"node_count": len(nodes), "document": document}


def tensorboard_text(document: dict) -> str:
    """The text/plain form: per kind, one line per tag and run with the last value and step."""
    lines = [document["title"] + (" (live)" if document.get("live") else "")]
    if not document["runs"]:
        lines.append(f"  no event files under {document['logdir']!r} (yet)")
    for kind in ("scalars", "histograms", "images", "text"):
        table = document[kind]
        if not table:
            continue
        lines.append(f"  {kind}:")
        for tag in list(table)[:TEXT_TAGS_SHOWN]:
            for run, items in table[tag].items():
                lines.append(f"    {tag} [{run}]: {_last_text(kind, items)}")
        if len(table) > TEXT_TAGS_SHOWN:
            lines.append(f"    ... {len(table) - TEXT_TAGS_SHOWN} more tags")
    for run, graph in document["graphs"].items():
        lines.append(f"  graph [{run}]: {graph['node_count']} nodes")
    lines += [f"  error [{problem['run']}]: {problem['message']}" for problem in document["errors"]]
    return "\n".join(lines)


def _last_text(kind: str, items: list) -> str:
    if not items:
        return "-"
    last = items[-1]
    if kind == "scalars":
        value = "nan/inf" if last[2] is None else f"{last[2]:.6g}"
        return f"{value} at step {last[0]} ({len(items)} points)"
    step = last["step"]
    if kind == "histograms":
        count = sum(row[2] or 0 for row in last["buckets"])
        return f"{len(last['buckets'])} buckets, {count:g} values at step {step}"
    if kind == "images":
        return f"{last['width']}x{last['height']} image at step {step}"
    text = " | ".join(last["values"])
    short = text if len(text) <= 60 else text[:60] + "..."
    return f"{short!r} at step {step}"


def as_bundle(document: dict) -> dict[str, Any]:
    return {MIME_TYPE: document, "text/plain": tensorboard_text(document)}


__all__ = ["tensorboard_document", "tensorboard_text", "graph_section", "image_source", "thin", "as_bundle",
           "MIME_TYPE", "VERSION"]
