"""`save_weights` / `load_weights` in TensorFlow's checkpoint format, as tf_keras lays it out, so either library
loads what the other saved, key for key. The model is the root of the object graph; its edges:

    Sequential / functional   for each layer i: `layer_with_weights-<k>` (layers owning weights, counted apart),
                              then `layer-<i>` (every layer, the InputLayer too); then its own attributes
    subclassed                its attributes in order of assignment (`first`, `blocks` -> `blocks/0` ...)
    both                      `optimizer` once compiled (tracked by `compile`), and `root` (a self-edge, as the
                              tf.train.Checkpoint inside tf_keras's save_weights writes it)

so a variable is saved under its first path (`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, a nested
model's `layer_with_weights-0/layer_with_weights-1/bias/...`). The optimizer's state is saved too, as tf_keras
writes it (optimizers_state.py): `optimizer/_iterations`, `optimizer/_learning_rate` and the slots in tf_keras's
build order, `optimizer/_variables/1` .... `load_weights` restores the iterations and learning rate at once and the
slots when the optimizer makes them (its first `apply_gradients`, or at once if it already has), so `fit` after
`load_weights` continues as the saving program would have; a model compiled after `load_weights` gets its
optimizer's state when `compile` tracks it (deferred restoration)."""

from __future__ import annotations

import os
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import errors
from webflow.io import checkpoint_bundle
from webflow.train import object_graph
from webflow.train.saver import update_checkpoint_state

ROOT_EDGE = "root"


def model_children(model: Any) -> list:
    """[(edge name, child)] of a model in tf_keras's order (see the module's docstring)."""
    own = list(model._dependencies())
    if not (model._is_graph_network or hasattr(model, "_stack")):   # subclassed: its attributes
        return own
    edges = []
    with_weights = 0
    for index, layer in enumerate(model.layers):
        if layer.weights:   # a layer not built yet has none: it counts as one without weights, as in tf_keras
            edges.append((f"layer_with_weights-{with_weights}", layer))
            with_weights += 1
        edges.append((f"layer-{index}", layer))
    return edges + [(name, value) for name, value in own if not name.startswith("layer-")]


def save_weights(model: Any, filepath: Any) -> None:
    prefix = os.fspath(filepath)
    if prefix.endswith((".h5", ".keras")):
        raise NotImplementedError("webflow saves weights in the TensorFlow checkpoint format only")
    graph, values = object_graph.serialize(model, [(ROOT_EDGE, model)])
    values.append((object_graph.OBJECT_GRAPH_KEY, np.array(graph.SerializeToString(), dtype=object)))
    checkpoint_bundle.write_bundle(prefix, values)
    update_checkpoint_state(os.path.dirname(prefix) or ".", prefix, [prefix], save_relative_paths=True)


def load_weights(model: Any, filepath: Any) -> Any:
    from webflow.protos import trackable_object_graph_pb2
    from webflow.train.checkpoint import CheckpointLoadStatus

    prefix = os.fspath(filepath)
    if not os.path.isfile(checkpoint_bundle.index_filename(prefix)):
        raise errors.NotFoundError(None, None, "Unsuccessful TensorSliceReader constructor: Failed to find any "
                                               f"matching files for {prefix}")
    reader = checkpoint_bundle.BundleReader(prefix)
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.tensor(object_graph.OBJECT_GRAPH_KEY)[()])
    restoration = object_graph.Restoration(reader, graph)
    restoration.bind(model, 0)
    return CheckpointLoadStatus(restoration, _Graph(model))


class _Graph:
    """What CheckpointLoadStatus asks of a checkpoint: the root of the object graph."""

    def __init__(self, root: Any):
        self.root = root

    def _graph(self) -> tuple:
        return self.root, []
