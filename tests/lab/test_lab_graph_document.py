"""webflow.lab.graph_document: nodes, edges, kinds, shapes, control edges, source lines, kernels, timings.

Oracles: an independent walk of the graph (backwards through inputs/control inputs, forwards through
`tensor.consumers()`), TF1's own shape strings (`str(tensor.shape)` after disable_v2_behavior), the
line numbers of this file (inspect), and the C library's exported symbols.
"""

from __future__ import annotations

import inspect
import json
import os

import pytest

import webflow.compat.v1 as tf
from webflow.backends import selection
from webflow.backends.c import library as c_library
from webflow.lab import graph_document, node_kind
from webflow.ops.registry import OPS


def _training_graph():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (None, 2), name="x")
    w = tf.Variable(tf.ones((2, 1)), name="w")
    b = tf.constant([[0.5]], name="b")
    y = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.square(y))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    init = tf.global_variables_initializer()
    return x, w, y, loss, train, init


def _connected_ops(roots: list) -> set:
    """Names of every op connected to `roots` through inputs, control inputs and consumers."""
    seen, stack = set(), list(roots)
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
        stack.extend(consumer for t in op.outputs for consumer in t.consumers())
    return seen


def test_nodes_and_edges_match_an_independent_walk() -> None:
    x, w, y, loss, train, init = _training_graph()
    graph = tf.get_default_graph()
    document = graph_document(graph)
    json.dumps(document, allow_nan=False)  # plain JSON
    names = [node["name"] for node in document["nodes"]]
    assert len(names) == len(set(names))
    assert set(names) == _connected_ops([x.op, train, init])  # (NoOps have only control inputs)
    # data edges, found forwards from every tensor's consumers
    expected = set()
    for op in graph.get_operations():
        for tensor in op.outputs:
            for consumer in tensor.consumers():
                for index, t in enumerate(consumer.inputs):
                    if t is tensor:
                        expected.add((op.name, consumer.name, tensor.name, index))
    data = {(e["source"], e["target"], e["tensor"], e["input_index"]) for e in document["edges"] if not e["control"]}
    assert data == expected


def test_edge_shapes_are_tf1_static_shape_text() -> None:
    x, w, y, loss, train, init = _training_graph()
    document = graph_document(tf.get_default_graph())
    by_tensor = {e["tensor"]: e for e in document["edges"] if not e["control"]}
    assert by_tensor["x:0"]["shape"] == "(?, 2)" and by_tensor["x:0"]["dtype"] == "float32"
    graph = tf.get_default_graph()
    for tensor_name, edge in by_tensor.items():
        tensor = graph.get_tensor_by_name(tensor_name)
        assert edge["shape"] == str(tensor.shape), tensor_name  # TF1 prints (?, 2), (2,), ()
        assert edge["dtype"] == tensor.dtype.name
    outputs = {o["name"]: o for node in document["nodes"] for o in node["outputs"]}
    assert outputs[y.name]["shape"] == "(?, 1)"
    assert outputs[loss.name]["shape"] == "()"


def test_node_kinds_follow_the_schema_rules() -> None:
    _training_graph()
    document = graph_document(tf.get_default_graph())
    kinds = {node["name"]: node["kind"] for node in document["nodes"]}
    assert kinds["x"] == "placeholder"
    assert kinds["w"] == "variable"
    assert kinds["b"] == "constant"
    assert kinds["MatMul"] == "op"
    gradient_nodes = [name for name in kinds if name.startswith("gradients")]
    assert gradient_nodes and all(kinds[name] == "gradient" for name in gradient_nodes)
    assert node_kind("ScalarSummary", "loss_summary") == "summary"
    assert node_kind("VarHandleOp", "v") == "variable"
    scopes = {node["name"]: node["scope"] for node in document["nodes"]}
    assert scopes["w/read"] == "w" and scopes["x"] == ""


def test_control_edges_are_marked_and_carry_no_shape() -> None:
    tf.disable_v2_behavior()
    a = tf.constant(1.0, name="a")
    first = tf.no_op(name="first")
    with tf.control_dependencies([first]):
        c = tf.identity(a, name="c")
    document = graph_document(tf.get_default_graph())
    control = [e for e in document["edges"] if e["control"]]
    assert [(e["source"], e["target"]) for e in control] == [(op.name, c.op.name) for op in c.op.control_inputs]
    assert control[0]["shape"] is None and control[0]["tensor"] is None


def test_source_points_at_the_line_that_built_the_op() -> None:
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (None, 2), name="x")
    y = tf.add(x, 1.0, name="y"); line = inspect.currentframe().f_lineno  # noqa: E702 - same line on purpose
    node = {n["name"]: n for n in graph_document(tf.get_default_graph())["nodes"]}[y.op.name]
    assert node["source"]["file"] == __file__
    assert node["source"]["line"] == line
    assert node["source"]["code"].startswith('y = tf.add(x, 1.0, name="y")')
    assert node["source"]["function"] == "test_source_points_at_the_line_that_built_the_op"


def test_kernel_names_the_numpy_function_and_the_c_symbol() -> None:
    tf.disable_v2_behavior()
    a32 = tf.placeholder(tf.float32, (2, 3))
    a64 = tf.placeholder(tf.float64, (2, 3))
    m32 = tf.matmul(a32, tf.ones((3, 4)))
    m64 = tf.matmul(a64, tf.ones((3, 4), tf.float64))
    nodes = {n["name"]: n for n in graph_document(tf.get_default_graph())["nodes"]}
    kernel = nodes[m32.op.name]["kernel"]
    assert kernel["c_symbol"] == "wf_gemm_f32"
    assert nodes[m64.op.name]["kernel"]["c_symbol"] == "wf_gemm_f64"
    assert nodes[a32.op.name]["kernel"]["c_symbol"] is None  # Placeholder has no C kernel
    if kernel["backend"] == "numpy":
        source, start = inspect.getsourcelines(OPS["MatMul"].kernels["numpy"])
        assert kernel["python"]["file"] == inspect.getsourcefile(OPS["MatMul"].kernels["numpy"])
        assert start < kernel["python"]["line"] < start + len(source)
        assert any(f"{kernel['python']['file']}:{kernel['python']['line']}" in hint for hint in kernel["hints"])
    if c_library.available():
        assert hasattr(c_library.library(), "wf_gemm_f32")  # the named function really exists


def test_native_backend_gives_a_ready_gdb_command() -> None:
    if c_library.IN_PYODIDE or not c_library.available():
        pytest.skip(f"no native C library: {c_library.unavailable_reason()}")
    tf.disable_v2_behavior()
    a = tf.placeholder(tf.float32, (2, 3))
    m = tf.matmul(a, tf.ones((3, 4)))
    selection.set_backend("native")
    try:
        kernel = {n["name"]: n for n in graph_document(tf.get_default_graph())["nodes"]}[m.op.name]["kernel"]
    finally:
        selection.set_backend(None)
    assert kernel["backend"] == "native"
    assert f"gdb -p {os.getpid()} -ex 'break wf_gemm_f32' -ex continue" in "\n".join(kernel["hints"])
    assert kernel["python"]["file"].endswith(os.path.join("backends", "c", "gemm.py"))


def test_run_metadata_gives_timing_backend_and_executed_flags() -> None:
    x, w, y, loss, train, init = _training_graph()
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(init)
        sess.run(loss, {x: [[1.0, 2.0]]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        document = graph_document(sess.graph, run_metadata=metadata)
    stats = {s.node_name: s for s in metadata.step_stats.dev_stats}
    assert stats, "FULL_TRACE recorded nothing"
    for node in document["nodes"]:
        stat = stats.get(node["name"])
        if stat is None:
            assert node["timing_us"] is None and node["backend"] is None
        else:
            assert node["timing_us"] == pytest.approx(stat.all_end_rel_micros)
            assert node["backend"] == stat.backend and node["executed"]
    executed = {n["name"] for n in document["nodes"] if n["executed"]}
    assert executed >= set(stats)
    assert "GradientDescent" not in executed and "x" not in executed  # not fetched / fed
    assert "b" in executed  # a Const the run used
    assert document["profile"]["ops"] and sum(o["duration_us"] for o in document["profile"]["ops"]) == \
        pytest.approx(sum(s.all_end_rel_micros for s in stats.values()))
