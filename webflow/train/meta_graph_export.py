"""TF1's `tf.train.export_meta_graph`: a graph with its collections and SaverDef as one MetaGraphDef
(webflow/protos/meta_graph.proto), as TensorFlow writes it; meta_graph.py reads it back.

Each collection becomes a CollectionDef of one kind:
- the variable collections (`variables`, `trainable_variables`, ...): bytes_list of VariableDefs;
- Tensors and Operations (`train_op`, `summaries`, a user's `tf.add_to_collection("logits", t)`): node_list of
  their names;
- strings, ints, floats: bytes_list, int64_list, float_list; `google.protobuf.Any` messages: any_list.
What no kind holds (Python objects, TF's cond/while contexts) is skipped with a warning, as TensorFlow does.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from webflow.framework import context
from webflow.framework.graph import GraphKeys
from webflow.framework.tensor import Tensor
from webflow.io import durable_file
from webflow.ops.state_ops import RefVariable

# the collections TensorFlow serializes as VariableDefs (the keys ref_variable.py registers proto functions for)
VARIABLE_COLLECTIONS = (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES, GraphKeys.MOVING_AVERAGE_VARIABLES,
                        GraphKeys.LOCAL_VARIABLES, GraphKeys.MODEL_VARIABLES, "global_step",
                        GraphKeys.METRIC_VARIABLES)
# collections of objects webflow cannot serialize or rebuild (TF1 control-flow contexts, queue runners, savers)
UNSUPPORTED_COLLECTIONS = ("cond_context", "while_context", GraphKeys.QUEUE_RUNNERS, GraphKeys.SAVERS)


# --- export ------------------------------------------------------------------------------------------------
def export_meta_graph(filename: str | None = None, meta_info_def: Any = None, graph_def: Any = None,
                      saver_def: Any = None, collection_list: Any = None, as_text: bool = False, graph: Any = None,
                      export_scope: str | None = None, clear_devices: bool = False,
                      clear_extraneous_savers: bool = False, strip_default_attrs: bool = False,
                      save_debug_info: bool = False, **kwargs: Any) -> Any:
    """The MetaGraphDef of `graph` (the default graph): GraphDef, SaverDef and collections; also written to
    `filename` (binary, or text with `as_text`) through a temporary file and a rename."""
    from webflow.protos import meta_graph_pb2

    if context.executing_eagerly():
        raise RuntimeError("Exporting/importing meta graphs is not supported when eager execution is enabled. No "
                           "graph exists when eager execution is enabled.")
    if export_scope:
        raise NotImplementedError("export_meta_graph(export_scope=...) is not supported: webflow exports the whole "
                                  "graph")
    graph = graph or context.get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.MergeFromString(meta_info_def.SerializeToString())
    meta.meta_info_def.meta_graph_version = meta.meta_info_def.meta_graph_version or "v2"
    # (each node with its `_output_shapes`, as TensorFlow's export writes them)
    meta.graph_def.MergeFromString((graph_def or graph.as_graph_def(add_shapes=True)).SerializeToString())
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.MergeFromString(saver_def.SerializeToString())
    keys = graph.get_all_collection_keys() if collection_list is None else list(collection_list)
    for key in keys:
        add_collection_def(meta, key, graph, export_scope)
    if filename:
        write_message(filename, meta, as_text)
    return meta


def add_collection_def(meta: Any, key: str, graph: Any, export_scope: str | None = None) -> None:
    """Adds collection `key` of `graph` to MetaGraphDef `meta` (skipped, with a warning, when no kind holds it)."""
    items = graph.get_collection(key)
    if not items:
        return
    if key in UNSUPPORTED_COLLECTIONS:
        warnings.warn(f"Collection {key!r} is not exported: webflow cannot serialize it", stacklevel=3)
        return
    collection = meta.collection_def[key]
    try:
        if key in VARIABLE_COLLECTIONS:
            values = [v.to_proto(export_scope).SerializeToString() for v in items if isinstance(v, RefVariable)]
            collection.bytes_list.value.extend(values)
        elif all(hasattr(v, "type_url") for v in items):   # google.protobuf.Any messages (SavedModel assets)
            for v in items:
                collection.any_list.value.add().MergeFromString(v.SerializeToString())
        elif all(isinstance(v, (str, bytes)) for v in items):
            collection.bytes_list.value.extend(v.encode("utf-8") if isinstance(v, str) else v for v in items)
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            collection.int64_list.value.extend(items)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            collection.float_list.value.extend(items)
        else:
            collection.node_list.value.extend(_strip_scope(_element_name(v), export_scope) for v in items)
    except (AttributeError, TypeError) as error:
        del meta.collection_def[key]
        warnings.warn(f"Issue encountered when serializing {key}: {error}", stacklevel=3)


def _element_name(item: Any) -> str:
    if isinstance(item, (Tensor, RefVariable)) or hasattr(item, "type"):   # a Tensor, variable or Operation
        return item.name
    raise TypeError(f"{type(item).__name__} is neither a Tensor nor an Operation")


def _strip_scope(name: str, scope: str | None) -> str:
    return name[len(scope) + 1:] if scope and name.startswith(scope + "/") else name


def write_message(filename: str, message: Any, as_text: bool = False) -> None:
    """A protobuf message to `filename` (text format with `as_text`): a temporary file, synced, renamed."""
    if as_text:
        from google.protobuf import text_format

        payload = text_format.MessageToString(message).encode("utf-8")
    else:
        payload = message.SerializeToString(deterministic=True)   # map entries sorted: the same bytes every time
    directory = os.path.dirname(filename)
    if directory:
        os.makedirs(directory, exist_ok=True)
    # temp file, fdatasync, rename; the directory's sync is left to the Saver's `checkpoint` file written next
    durable_file.write_atomically(filename, payload, sync_dir=False)
