"""TF2's `tf.saved_model.load` of a TF1 SavedModel (webflow's or TensorFlow's builder / simple_save): the
MetaGraphDef loaded into its own Graph and Session (loader.py), each SignatureDef offered as a function called
with keyword arguments, as TensorFlow wraps a TF1 SavedModel for eager code:

    model = wf.saved_model.load(export_dir)
    outputs = model.signatures["serving_default"](images=batch)   # {"probs": EagerTensor, ...}

TF2 SavedModels (`tf.saved_model.save`: functions in a FunctionDef library, an object graph) are read by
load_v2.py; `wf.saved_model.load` sends each kind to its loader.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.graph import Graph, GraphKeys
from webflow.ops.constants import constant
from webflow.runtime.session import Session
from webflow.saved_model import loader

# op types only a TF2 SavedModel's graph holds (its functions are called through them)
_TF2_CALL_OPS = {"StatefulPartitionedCall", "PartitionedCall"}


class SignatureFunction:
    """One SignatureDef of a loaded TF1 SavedModel, callable with its inputs as keyword arguments."""

    def __init__(self, session: Session, key: str, signature: Any):
        self._session = session
        self.name = key
        self._inputs = {k: info.name for k, info in signature.inputs.items()}
        self._outputs = {k: info.name for k, info in signature.outputs.items()}
        self.structured_outputs = dict(self._outputs)

    def __call__(self, **inputs: Any) -> dict:
        if set(inputs) != set(self._inputs):
            raise TypeError(f"{self.name} takes the keyword arguments {sorted(self._inputs)}, got {sorted(inputs)}")
        feeds = {self._inputs[key]: (value.numpy() if hasattr(value, "numpy") else value)
                 for key, value in inputs.items()}
        keys = sorted(self._outputs)
        values = self._session.run([self._outputs[key] for key in keys], feeds)
        return {key: constant(value) for key, value in zip(keys, values)}


class LoadedV1SavedModel:
    """What `load` returns: `.signatures` {key: SignatureFunction}, `.graph`, `.variables`, `.tensorflow_version`."""

    def __init__(self, export_dir: str, tags: Any = None):
        saved_model = loader.parse_saved_model(export_dir)
        if tags is None:
            if len(saved_model.meta_graphs) != 1:
                tag_sets = [list(m.meta_info_def.tags) for m in saved_model.meta_graphs]
                raise ValueError("Importing a SavedModel with `tf.saved_model.load` requires a `tags=` argument if "
                                 f"there is more than one MetaGraph. Got `tags=None`, but there are "
                                 f"{len(tag_sets)} MetaGraphs in the SavedModel with tag sets: {tag_sets}. Pass "
                                 "a `tags=` argument to load this SavedModel.")
            tags = list(saved_model.meta_graphs[0].meta_info_def.tags)
        elif isinstance(tags, str):
            tags = [tags]
        meta = loader.meta_graph_def_from_tags(saved_model, tags)
        if {node.op for node in meta.graph_def.node} & _TF2_CALL_OPS:
            raise NotImplementedError(f"{export_dir} is a TF2 SavedModel (tf.saved_model.save): webflow loads TF1 "
                                      "SavedModels only (Builder / simple_save)")
        self.graph = Graph()
        self._session = Session(graph=self.graph)
        with self.graph.as_default():
            loader.load(self._session, tags, export_dir)
        self.tensorflow_version = meta.meta_info_def.tensorflow_version
        self.signatures = {key: SignatureFunction(self._session, key, signature)
                           for key, signature in meta.signature_def.items() if not key.startswith("__")}

    @property
    def variables(self) -> list:
        return self.graph.get_collection(GraphKeys.GLOBAL_VARIABLES)


def load(export_dir: str, tags: Any = None, options: Any = None) -> LoadedV1SavedModel:
    """`tf.saved_model.load` for TF1 SavedModels; `tags` may be left out when there is one MetaGraphDef."""
    return LoadedV1SavedModel(export_dir, tags)
