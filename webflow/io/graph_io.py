"""`tf.io.write_graph` (TF1: also `tf.train.write_graph`): a Graph or GraphDef to a file, as text or binary.

Text is protobuf's text format (`text_format.MessageToString`, what TensorFlow writes to .pbtxt files), binary
the deterministic wire format. The file is written to a temporary file beside it and renamed into place, so a
reader never sees half a graph.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any


def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Writes the graph's GraphDef to `logdir/name` (making `logdir`); returns that path."""
    graph_def = graph_or_graph_def
    if hasattr(graph_or_graph_def, "as_graph_def"):
        graph_def = graph_or_graph_def.as_graph_def()
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    if as_text:
        from google.protobuf import text_format

        data = text_format.MessageToString(graph_def).encode("utf-8")
    else:
        data = graph_def.SerializeToString(deterministic=True)
    atomic_write(path, data)
    return path


def atomic_write(path: str, data: bytes) -> None:
    """Writes `data` to `path` through a temporary file in the same folder, renamed into place."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=os.path.basename(path) + ".",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)  # mkstemp makes owner-only files; a graph file is for everyone to read
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
