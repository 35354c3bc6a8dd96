"""The op test table's harness: one `OpCase` per row checks an op four ways.

1. eager forward == an independent NumPy reference;
2. graph mode: the shape rule's static shape (with fully known and with unknown placeholder shapes)
   agrees with the actual output, and Session.run gives the eager result;
3. the gradient (GradientTape, float64) == central differences of the reference's forward pass;
4. the graph gradient (`tf.gradients`) == the eager gradient.

tests/test_op_inventory.py builds the same graphs (build_graph, build_gradient_graph) to find which op types
the rows exercise.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

import webflow as wf
from webflow.framework import context
from webflow.framework.graph import Graph
from webflow.runtime.session import Session


@dataclasses.dataclass
class OpCase:
    id: str
    build: Callable[..., Any]            # webflow ops on the input tensors (works eagerly and in a graph)
    inputs: list                         # NumPy arrays
    reference: Callable[..., Any]        # NumPy oracle: same inputs -> expected output
    grad: bool = True                    # check gradients w.r.t. the float inputs
    grad_inputs: tuple | None = None     # which inputs to differentiate (default: every float input)
    atol: float = 1e-5
    rtol: float = 1e-5
    grad_atol: float = 1e-4
    unknown_shapes: bool = True          # also build with fully unknown placeholder shapes
    fully_static: bool = True            # known input shapes give a fully known output shape (False for
                                         # value-dependent sizes such as unique, as in TensorFlow)

    def __str__(self) -> str:
        return self.id


def after_initializers(*variables: Any) -> Any:
    """For rows on variables (wf.Variable: a TF1 RefVariable in a graph, a ResourceVariable eagerly): in a graph,
    ops built under this run after the variables' initializers, within the same Session.run; eagerly a variable
    holds its value from the start, so nothing is needed."""
    if wf.executing_eagerly():
        return contextlib.nullcontext()
    return wf.control_dependencies([v.initializer for v in variables])


def _outputs(result: Any) -> list:
    return list(result) if isinstance(result, (list, tuple)) else [result]


def check_forward_eager(case: OpCase) -> list:
    tensors = [wf.constant(x) for x in case.inputs]
    got = _outputs(case.build(*tensors))
    expected = _outputs(case.reference(*case.inputs))
    assert len(got) == len(expected), f"{case.id}: {len(got)} outputs, expected {len(expected)}"
    for g, e in zip(got, expected):
        e = np.asarray(e)
        assert g.shape.as_list() == list(e.shape), f"{case.id}: shape {g.shape} vs reference {e.shape}"
        assert_values(g.numpy(), e, case, case.id)
        assert g.dtype.as_numpy_dtype == e.dtype.type or e.dtype == object, \
            f"{case.id}: dtype {g.dtype.name} vs reference {e.dtype}"
    return [g.numpy() for g in got]


def assert_values(got: Any, expected: Any, case: OpCase, message: str) -> None:
    """Numbers within the row's tolerance; strings (an object array, such as a summary op's serialized Summary)
    equal, byte for byte."""
    if isinstance(expected, bytes):  # np.asarray(b"...") would drop trailing zero bytes
        expected = np.array([expected], dtype=object).reshape(())
    expected = np.asarray(expected)
    if expected.dtype == object:
        assert np.array([got], dtype=object).reshape(np.shape(expected)).tolist() == expected.tolist(), message
        return
    np.testing.assert_allclose(got, expected, atol=case.atol, rtol=case.rtol, err_msg=message)


def build_graph(case: OpCase, known_shapes: bool) -> tuple[Graph, list, list]:
    """(graph, placeholders, outputs): the row built on placeholders (shapes known or not) in a fresh graph."""
    graph = Graph()
    with graph.as_default():
        from webflow.ops.constants import placeholder

        holders = [placeholder(wf.as_dtype(x.dtype), shape=x.shape if known_shapes else None)
                   for x in case.inputs]
        outputs = _outputs(case.build(*holders))
    return graph, holders, outputs


def graph_modes(case: OpCase) -> list:
    """The `known_shapes` values check_graph builds the row with."""
    return [True, False] if case.unknown_shapes else [True]


def run_in_graph(case: OpCase, known_shapes: bool) -> tuple[list, list]:
    """(static shapes, values) of the outputs when built on placeholders in a fresh graph."""
    graph, holders, outputs = build_graph(case, known_shapes)
    with graph.as_default(), Session(graph=graph) as session:
        values = session.run(outputs, dict(zip(holders, case.inputs)))
    return [o.shape for o in outputs], values


def check_graph(case: OpCase, eager_values: list) -> None:
    for known in graph_modes(case):
        shapes, values = run_in_graph(case, known)
        for static, value, eager in zip(shapes, values, eager_values):
            assert static.is_compatible_with(np.shape(value)), \
                f"{case.id}: shape rule said {static}, kernel gave {np.shape(value)} (known inputs: {known})"
            if known and case.fully_static:
                assert static.is_fully_defined(), f"{case.id}: static shape {static} not fully inferred"
            assert_values(value, eager, case, f"{case.id} graph")


def _float_indices(case: OpCase) -> list:
    if case.grad_inputs is not None:
        return list(case.grad_inputs)
    return [i for i, x in enumerate(case.inputs) if np.asarray(x).dtype.kind == "f"]


def _weights(expected: list) -> list:
    rng = np.random.default_rng(7)
    return [rng.uniform(0.5, 1.5, np.shape(e)) for e in expected]


def numerical_gradient(case: OpCase, inputs: list, index: int, weights: list, eps: float = 1e-6) -> np.ndarray:
    """Central differences of sum(w * reference(inputs)) w.r.t. inputs[index], in float64."""
    def objective(values: list) -> float:
        outs = _outputs(case.reference(*values))
        return float(sum(np.sum(w * np.asarray(o, dtype=np.float64)) for w, o in zip(weights, outs)))

    x = np.array(inputs[index], dtype=np.float64)
    grad = np.zeros_like(x)
    for position in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[position] += eps
        minus[position] -= eps
        difference = objective(_replace(inputs, index, plus)) - objective(_replace(inputs, index, minus))
        grad[position] = difference / (2 * eps)
    return grad


def _replace(values: list, index: int, new: Any) -> list:
    return [new if i == index else v for i, v in enumerate(values)]


def gradient_setup(case: OpCase) -> tuple | None:
    """(float64 inputs, indices differentiated, output weights) of a row that checks gradients, else None."""
    indices = _float_indices(case)
    if not case.grad or not indices:
        return None
    inputs64 = [np.asarray(x, dtype=np.float64) if i in indices else x for i, x in enumerate(case.inputs)]
    return inputs64, indices, _weights(_outputs(case.reference(*inputs64)))


def check_gradients(case: OpCase) -> None:
    setup = gradient_setup(case)
    if setup is None:
        return
    inputs64, indices, weights = setup
    tensors = [wf.constant(x) for x in inputs64]
    with wf.GradientTape(persistent=True) as tape:
        for i in indices:
            tape.watch(tensors[i])
        outs = _outputs(case.build(*tensors))
        objective = wf.add_n([wf.reduce_sum(o * wf.constant(w, dtype=o.dtype)) for o, w in zip(outs, weights)])
    eager_grads = tape.gradient(objective, [tensors[i] for i in indices])
    for i, grad in zip(indices, eager_grads):
        expected = numerical_gradient(case, inputs64, i, weights)
        got = np.zeros_like(expected) if grad is None else np.asarray(wf.convert_to_tensor(grad).numpy())
        np.testing.assert_allclose(got, expected, atol=case.grad_atol, rtol=1e-3, err_msg=f"{case.id} d/dx{i}")
    check_graph_gradients(case, inputs64, indices, weights, eager_grads)


def build_gradient_graph(case: OpCase, inputs64: list, indices: list, weights: list) -> tuple[Graph, list, list]:
    """(graph, placeholders, gradients): the row and tf.gradients of sum(weights * outputs) in a fresh graph."""
    from webflow.autodiff.gradients import gradients
    from webflow.ops.constants import placeholder

    graph = Graph()
    with graph.as_default():
        holders = [placeholder(wf.as_dtype(np.asarray(x).dtype), shape=np.shape(x)) for x in inputs64]
        outs = _outputs(case.build(*holders))
        objective = wf.add_n([wf.reduce_sum(o * wf.constant(w, dtype=o.dtype)) for o, w in zip(outs, weights)])
        grads = gradients(objective, [holders[i] for i in indices])
    return graph, holders, grads


def check_graph_gradients(case: OpCase, inputs64: list, indices: list, weights: list, eager_grads: list) -> None:
    graph, holders, grads = build_gradient_graph(case, inputs64, indices, weights)
    with graph.as_default():
        fetch = [g if g is not None else holders[i] for g, i in zip(grads, indices)]
        with Session(graph=graph) as session:
            values = session.run(fetch, dict(zip(holders, inputs64)))
    for grad, value, eager in zip(grads, values, eager_grads):
        if grad is None:
            assert eager is None, f"{case.id}: graph gradient None but eager gradient is not"
            continue
        value = value if not hasattr(value, "indices") else _densify(value)
        np.testing.assert_allclose(value, wf.convert_to_tensor(eager).numpy(), atol=1e-8, rtol=1e-6,
                                   err_msg=f"{case.id} graph vs eager gradient")


def _densify(value: Any) -> np.ndarray:
    dense = np.zeros(value.dense_shape, dtype=value.values.dtype)
    np.add.at(dense, value.indices, value.values)
    return dense


def check_case(case: OpCase) -> None:
    assert context.executing_eagerly(), "op table runs in eager mode (the TF2 default)"
    eager_values = check_forward_eager(case)
    check_graph(case, eager_values)
    check_gradients(case)
