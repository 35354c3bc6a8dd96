"""The order of a functional model's layers, as tf_keras's `_map_graph_network` finds it (`model.layers`, the
rows of `summary()`, the order of `model.weights` and of the `layer-N` checkpoint edges).

A depth-first walk back from the outputs numbers the layers in the order it meets them and lists the nodes so
that each comes after the nodes feeding it. A node's depth is its longest distance (in nodes) to an output, a
layer's the largest depth of its nodes; the layers are listed deepest first, ties in the walk's order.
"""

from __future__ import annotations

from webflow.keras.keras_tensor import KerasTensor


def _walk(tensor: KerasTensor, finished: set, order: list, layer_index: dict) -> None:
    node = tensor.node
    if node.id in finished:
        return
    layer_index.setdefault(node.layer, len(layer_index))
    for source in node.input_tensors():
        if isinstance(source, KerasTensor):
            _walk(source, finished, order, layer_index)
    finished.add(node.id)
    order.append(node)


def layers_in_keras_order(inputs: list, outputs: list) -> list:
    """The layers between `inputs` and `outputs` in tf_keras's `model.layers` order."""
    finished: set = set()
    order: list = []
    layer_index: dict = {}
    for tensor in outputs:
        _walk(tensor, finished, order, layer_index)
    node_depth: dict = {}
    layer_depth: dict = {}
    for node in reversed(order):
        depth = max(node_depth.setdefault(node.id, 0), layer_depth.get(node.layer, 0))
        layer_depth[node.layer] = node_depth[node.id] = depth
        for source in node.input_tensors():
            if isinstance(source, KerasTensor):
                node_depth[source.node.id] = max(depth + 1, node_depth.get(source.node.id, 0))
    for tensor in inputs:   # inputs the outputs do not use still count, last
        if tensor.node.layer not in layer_depth:
            layer_depth[tensor.node.layer] = 0
            layer_index[tensor.node.layer] = -1
    by_depth: dict = {}
    for layer, depth in layer_depth.items():
        by_depth.setdefault(depth, []).append(layer)
    ordered = []
    for depth in sorted(by_depth, reverse=True):
        ordered.extend(sorted(by_depth[depth], key=lambda layer: layer_index[layer]))
    return ordered
