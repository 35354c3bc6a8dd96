"""`model.summary()` as tf_keras prints it: a table of layers (name and class, output shape, parameter count, and
"Connected to" for models that are not a plain chain), long cells wrapped inside their column, then the totals
with their size in memory (`Total params: 25450 (99.41 KB)`)."""

from __future__ import annotations

from typing import Any

from webflow.keras.input_layer import InputLayer
from webflow.keras.keras_tensor import KerasTensor, flatten

BREAKS = ("),", "},", "],", "',")   # tf_keras wraps a long cell after one of these


def print_rows(fields: list, positions: list) -> list[str]:
    """One row of the table: each cell cut to its column (2 spaces between columns), wrapped onto more lines."""
    left = [str(field) for field in fields]
    lines = []
    while any(left):
        line = ""
        for col, text in enumerate(left):
            start = positions[col - 1] if col > 0 else 0
            last = col == len(positions) - 1
            space = 0 if last else 2
            cutoff = positions[col] - start - space - (0 if last else 1)
            piece = text[:cutoff]
            breaks = [piece.find(mark) + len(mark) for mark in BREAKS if piece.find(mark) >= 0]
            if breaks:
                cutoff = min(breaks)
                piece = piece[:cutoff]
            line += (" " if col == 0 else "") + piece + " " * space
            left[col] = text[cutoff:]
            line += " " * (positions[col] - len(line))
        lines.append(line)
    return lines


def readable_size(size: float) -> str:
    for unit in ("Byte", "KB", "MB", "GB", "TB", "PB"):
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _count(weights: list) -> tuple[int, int]:
    count = size = 0
    for weight in weights:
        elements = 1
        for dim in weight.shape.as_list():
            elements *= dim
        count += elements
        size += elements * weight.dtype.size
    return count, size


def _is_chain(model: Any) -> bool:
    if type(model).__name__ == "Sequential" or not getattr(model, "_is_graph_network", False):
        return True
    used: dict[int, int] = {}
    for node in model._nodes:
        inputs = [t for t in node.input_tensors() if isinstance(t, KerasTensor)]
        if len(inputs) > 1 or len(node.layer._inbound_nodes) > 1:
            return False
        for tensor in inputs:
            used[id(tensor)] = used.get(id(tensor), 0) + 1
    return len(model.inputs) == 1 and all(count == 1 for count in used.values())


def _shape_text(layer: Any, model: Any) -> str:
    if isinstance(layer, InputLayer):
        return str([tuple(layer.output.shape.as_list())])
    nodes = [node for node in layer._inbound_nodes if node in getattr(model, "_nodes", [])] \
        or layer._inbound_nodes
    shapes = {str([tuple(t.shape.as_list()) for t in flatten(node.outputs)]) for node in nodes}
    if len(shapes) != 1:
        return "multiple"   # tf_keras: output_shape raises AttributeError, never called or several shapes
    outputs = flatten(nodes[0].outputs)
    return str(tuple(outputs[0].shape.as_list())) if len(outputs) == 1 else str(
        [tuple(t.shape.as_list()) for t in outputs])


def _connections(layer: Any, model: Any) -> list:
    found = []
    for node in layer._inbound_nodes:
        if node not in model._nodes:
            continue
        for tensor in node.input_tensors():
            if isinstance(tensor, KerasTensor):
                found.append(f"{tensor.node.layer.name}[{tensor.node.index}][{tensor.index}]")
    return found


def summary_text(model: Any, line_length: int | None = None, positions: Any = None) -> str:
    chain = _is_chain(model)
    line_length = line_length or (65 if chain else 98)
    fractions = positions or ([0.45, 0.85, 1.0] if chain else [0.3, 0.6, 0.7, 1.0])
    columns = [int(line_length * p) for p in fractions] if fractions[-1] <= 1 else list(fractions)
    header = ["Layer (type)", "Output Shape", "Param #"] + ([] if chain else ["Connected to"])
    lines = [f'Model: "{model.name}"', "_" * line_length, *print_rows(header, columns), "=" * line_length]
    for layer in model.layers:
        fields = [f"{layer.name} ({type(layer).__name__})", _shape_text(layer, model), layer.count_params()]
        if not chain:
            fields.append(_connections(layer, model))
        lines += print_rows(fields, columns)
        lines.append(" " * line_length)
    trainable, trainable_size = _count(model.trainable_weights)
    frozen, frozen_size = _count(model.non_trainable_weights)
    lines += ["=" * line_length,
              f"Total params: {trainable + frozen} ({readable_size(trainable_size + frozen_size)})",
              f"Trainable params: {trainable} ({readable_size(trainable_size)})",
              f"Non-trainable params: {frozen} ({readable_size(frozen_size)})",
              "_" * line_length]
    return "\n".join(lines)
