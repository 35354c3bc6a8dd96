"""`save_weights` / `load_weights` in TensorFlow's checkpoint format, as tf_keras lays it out, so either library
loads what the other saved: the model's object graph holds `layer-<i>` (every layer) and
`layer_with_weights-<i>` (the layers owning weights, in order) edges, each layer its weights by name
(`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`). The optimizer's state is not saved (tf_keras saves
it; it then restores only the model's part when loading a webflow file)."""

from __future__ import annotations

import os
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import errors
from webflow.io import checkpoint_bundle
from webflow.train import object_graph
from webflow.train.saver import update_checkpoint_state
from webflow.train.trackable import AutoTrackable


def _root(model: Any) -> AutoTrackable:
    """A node standing for the model, with tf_keras's edges to its layers."""
    root = AutoTrackable()
    with_weights = 0
    for index, layer in enumerate(model.layers):
        root._track(f"layer-{index}", layer)
        if layer.weights:
            root._track(f"layer_with_weights-{with_weights}", layer)
            with_weights += 1
    return root


def save_weights(model: Any, filepath: Any) -> None:
    prefix = os.fspath(filepath)
    if prefix.endswith((".h5", ".keras")):
        raise NotImplementedError("webflow saves weights in the TensorFlow checkpoint format only")
    graph, values = object_graph.serialize(_root(model))
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
    root = _root(model)
    restoration.bind(root, 0)
    return CheckpointLoadStatus(restoration, _Graph(root))


class _Graph:
    """What CheckpointLoadStatus asks of a checkpoint: the root of the object graph."""

    def __init__(self, root: Any):
        self.root = root

    def _graph(self) -> tuple:
        return self.root, []
