"""The graph half of tests/no_numpy_tables.py: a row built on placeholders and run by Session.run.

Eagerly some ops never run their kernels (a TensorArray is a Python list eagerly, ops/tensor_array.py), so for
the tables in GRAPH_TABLES each row is also built in a fresh graph, run with its inputs fed as plain lists, and,
for rows with `grad=True`, differentiated with tf.gradients of sum(weights * outputs) (float64 inputs, as the
eager gradient). The results go in the row's JSON as "graph_outputs" / "graph_grads" (or "graph_error").
"""

from __future__ import annotations

import math
from typing import Any

GRAPH_TABLES = ("tensor_array", "assert_print")  # tables whose kernels only a graph runs


def run_row_in_graph(case: Any, inputs: list, weights: Any, value: Any, outputs: Any) -> dict:
    """{"graph_outputs": [...], "graph_grads": [...]} of the row, or "graph_error" naming what failed."""
    result: dict = {}
    try:
        result["graph_outputs"] = [value(v) for v in _run(case, inputs, weights, outputs, None)]
        float_inputs = [i for i, (_, d) in enumerate(inputs) if d.startswith("float")]
        indices = list(case.grad_inputs) if case.grad_inputs is not None else float_inputs
        if case.grad and indices:
            result["graph_grads"] = [None if g is None else value(g)
                                     for g in _run(case, inputs, weights, outputs, indices)]
    except Exception as error:  # noqa: BLE001 - reported to the parent, which lists it
        text = f"{type(error).__name__}: {error}"
        result["graph_error"] = text if len(text) <= 600 else text[:300] + " ... " + text[-300:]
    return result


def _run(case: Any, inputs: list, weights: Any, outputs: Any, indices: list | None) -> list:
    """The row's outputs (indices None) or its gradients w.r.t. inputs[indices], run in a fresh graph."""
    import webflow as wf
    import webflow.compat.v1 as tf

    graph = tf.Graph()
    with graph.as_default():
        holders = [tf.placeholder(wf.float64 if indices and i in indices else wf.as_dtype(d), _list_shape(v))
                   for i, (v, d) in enumerate(inputs)]
        outs = outputs(case.build(*holders))
        fetch = outs
        if indices is not None:
            terms = [tf.reduce_sum(o * tf.reshape(tf.constant(weights(math.prod(_shape(o, graph, holders, inputs))),
                                                              dtype=o.dtype), tf.shape(o))) for o in outs]
            grads = tf.gradients(tf.add_n(terms), [holders[i] for i in indices])
            fetch = [g for g in grads if g is not None]
        with tf.Session(graph=graph) as session:
            values = session.run(fetch, {h: v for h, (v, _) in zip(holders, inputs)})
    if indices is None:
        return values
    found = iter(values)
    return [None if g is None else next(found) for g in grads]


def _shape(output: Any, graph: Any, holders: list, inputs: list) -> list:
    """The output's shape (run once when the graph does not know it)."""
    if output.shape.is_fully_defined():
        return output.shape.as_list()
    import webflow.compat.v1 as tf

    with tf.Session(graph=graph) as session:
        return list(session.run(tf.shape(output), {h: v for h, (v, _) in zip(holders, inputs)}).tolist())


def _list_shape(value: Any) -> list:
    """The shape of a nested list (the shapes known, as the harness's first graph mode builds rows)."""
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0] if value else None
    return shape
