"""The whole graph as text, one line per node in creation order: what a learner sees in a graph view
(no framework import: programs pass their graph)."""

from __future__ import annotations

from typing import Any


def graph_nodes(graph: Any) -> list[str]:
    """'name:type <- inputs ^control inputs -> output shapes' for every node. Control inputs are sorted by name:
    TensorFlow's group() (an initializer's, a Saver's restore_all) lists them in an order that varies by run."""
    return [f"{op.name}:{op.type} <- {','.join(t.name for t in op.inputs)} "
            f"^{','.join(sorted(c.name for c in op.control_inputs))} -> {';'.join(str(t.shape) for t in op.outputs)}"
            for op in graph.get_operations()]
