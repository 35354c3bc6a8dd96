"""TF1's `tf.train.import_meta_graph` (and `export_meta_graph`, from meta_graph_export.py): a MetaGraphDef
read back into the default graph, as TensorFlow does.

The GraphDef is imported (io/graph_def_import.py), then each collection: VariableDefs become RefVariables over
the imported ops (one object per variable, shared by every collection that lists it), node_list names become the
imported Tensors and Operations, and bytes, ints, floats and Any messages are added as they are.
`import_meta_graph` returns the Saver: one running the graph's own save/restore ops when the MetaGraphDef has a
SaverDef (TensorFlow's meta graphs, train/saver_def.py), else webflow's Saver over the imported variables.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from webflow.framework import context
from webflow.framework.graph import GraphKeys
from webflow.io.graph_def_import import import_graph_def
from webflow.ops.state_ops import RefVariable
from webflow.train.meta_graph_export import UNSUPPORTED_COLLECTIONS, VARIABLE_COLLECTIONS, export_meta_graph

__all__ = ["export_meta_graph", "import_meta_graph", "read_meta_graph_file"]


# --- import ------------------------------------------------------------------------------------------------
def read_meta_graph_file(filename: str) -> Any:
    """The MetaGraphDef in `filename`: binary, else text format (TensorFlow's read_meta_graph_file)."""
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError

    from webflow.protos import meta_graph_pb2

    if not os.path.exists(filename):
        raise OSError(f"File {filename} does not exist.")
    with open(filename, "rb") as handle:
        data = handle.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except DecodeError:
        pass
    try:
        # a few experimental fields (OpDef's experimental_full_type ...) are not in protos/: skipped
        text_format.Merge(data.decode("utf-8"), meta, allow_unknown_field=True)
    except (text_format.ParseError, UnicodeDecodeError) as error:
        raise OSError(f"Cannot parse file {filename}: {error}.") from None
    return meta


def as_meta_graph_def(meta_graph_or_file: Any) -> Any:
    """webflow's MetaGraphDef for a file name, a MetaGraphDef (webflow's or TensorFlow's) or its bytes."""
    from webflow.protos import meta_graph_pb2

    if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef):
        return meta_graph_or_file
    if isinstance(meta_graph_or_file, (bytes, bytearray)):
        return meta_graph_pb2.MetaGraphDef.FromString(bytes(meta_graph_or_file))
    if hasattr(meta_graph_or_file, "SerializeToString"):
        return meta_graph_pb2.MetaGraphDef.FromString(meta_graph_or_file.SerializeToString())
    return read_meta_graph_file(os.fspath(meta_graph_or_file))


def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False, import_scope: str | None = None,
                      input_map: dict | None = None, return_elements: list | None = None, **kwargs: Any) -> Any:
    """Adds the MetaGraphDef's graph and collections to the default graph; returns its Saver (None when the graph
    has neither a SaverDef nor variables), or (saver, return elements) when `return_elements` is given."""
    from webflow.train.saver import Saver

    if context.executing_eagerly():
        raise RuntimeError("Exporting/importing meta graphs is not supported when eager execution is enabled. No "
                           "graph exists when eager execution is enabled.")
    meta = as_meta_graph_def(meta_graph_or_file)
    graph = context.get_default_graph()
    graph_def = meta.graph_def
    if clear_devices:
        graph_def = type(graph_def).FromString(graph_def.SerializeToString())
        for node in graph_def.node:
            node.device = ""
    returned = import_graph_def(graph_def, input_map=input_map, return_elements=return_elements,
                                name=import_scope or "")
    restore_collections(meta, graph, import_scope)
    if meta.HasField("saver_def"):
        saver = Saver(saver_def=meta.saver_def, name=import_scope)
    elif graph.get_collection(GraphKeys.GLOBAL_VARIABLES, scope=import_scope):
        saver = Saver()
    else:
        saver = None
    return (saver, returned) if return_elements is not None else saver


def restore_collections(meta: Any, graph: Any, import_scope: str | None = None) -> None:
    """Adds every collection of `meta` to `graph`, `trainable_variables` first (TensorFlow's order)."""
    keys = sorted(meta.collection_def, key=lambda k: (k != GraphKeys.TRAINABLE_VARIABLES, k))
    rebuilt: dict = {}
    for key in keys:
        collection = meta.collection_def[key]
        kind = collection.WhichOneof("kind")
        if kind == "any_list":   # (SavedModel assets): kept as the messages
            for value in collection.any_list.value:
                graph.add_to_collection(key, value)
            continue
        if kind is None or key in UNSUPPORTED_COLLECTIONS:
            warnings.warn(f"Collection {key!r} is not imported: webflow cannot rebuild it", stacklevel=3)
            continue
        values = getattr(collection, kind).value
        if key in VARIABLE_COLLECTIONS and kind == "bytes_list":
            for data in values:
                if data not in rebuilt:
                    rebuilt[data] = RefVariable.from_proto(data, import_scope=import_scope)
                graph.add_to_collection(key, rebuilt[data])
        elif kind == "node_list":
            for name in values:
                graph.add_to_collection(key, graph.as_graph_element(f"{import_scope}/{name}" if import_scope
                                                                    else name))
        else:
            for value in values:
                graph.add_to_collection(key, int(value) if kind == "int64_list" else value)
