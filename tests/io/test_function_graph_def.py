"""Functional control flow in GraphDefs, both ways (webflow/io: function_def.py, function_def_import.py).

webflow's tf.cond, tf.while_loop (nested too) and wf.function make If, While and PartitionedCall ops whose sub-graphs
go into `GraphDef.library` as FunctionDefs. Without TensorFlow: the FunctionDefs have TensorFlow's layout (argument
names, "node:output_arg:index" inputs, ret), a GraphDef imported back into webflow gives the program's outputs, and
what cannot be written or read says so. With WEBFLOW_TF_PYTHON (one TensorFlow 2.21 subprocess for the module):
(a) TensorFlow imports webflow's GraphDef and gets webflow's outputs; (b) webflow imports TensorFlow's GraphDef of the
same program (control flow v2: StatelessIf, StatelessWhile, PartitionedCall) and gets TensorFlow's outputs;
(c) TensorFlow's import_meta_graph reads the demo CNN's .meta (dropout under tf.cond, Adam) and, restored from
webflow's checkpoint, computes webflow's loss and trains.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_graph_def import run_tensorflow_jobs
from tf_subprocess import SKIP_REASON, TF_PYTHON

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.framework.graph import Graph
from webflow.io.graph_def_import import import_graph_def
from webflow.protos import graph_pb2

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Each program is TF1 source run unchanged by webflow.compat.v1 and by TensorFlow (`function` is wf.function or
# tf.function); it sets `spec`: feeds {name: array}, init (op name or None), fetches (names of tensors).
PROGRAMS = {
    "cond_and_its_gradient": """
x = tf.placeholder(tf.float32, [2], name="x")
w = tf.Variable([1.5, -2.0], name="w")
y = tf.identity(tf.cond(x[0] > 0, lambda: x * w, lambda: x - 1.0), name="y")
n = tf.identity(tf.cond(x[0] < 0, lambda: x * w, lambda: tf.square(x)), name="n")
g = tf.identity(tf.gradients(y + n, x)[0], name="g")
spec = dict(feeds={"x:0": np.array([1.0, 2.0], np.float32)}, init=tf.global_variables_initializer().name,
            fetches=["y:0", "n:0", "g:0"])
""",
    "while_loop_with_captures": """
x = tf.placeholder(tf.float32, [3], name="x")
scale = tf.constant(0.5, name="scale")
i, s = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * scale + tf.cast(i, tf.float32)),
                     [tf.constant(0), x])
i, s = tf.identity(i, name="i"), tf.identity(s, name="s")
spec = dict(feeds={"x:0": np.array([1.0, -2.0, 8.0], np.float32)}, init=None, fetches=["i:0", "s:0"])
""",
    "nested_loops_and_conds": """
x = tf.placeholder(tf.float32, [2], name="x")
w = tf.Variable([2.0, 3.0], name="w")
def body(i, s):
    inner = lambda: tf.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, t + w), [0, s])[1]
    return i + 1, tf.cond(i < 1, lambda: s * 2.0, inner)
i, s = tf.while_loop(lambda i, s: i < 3, body, [tf.constant(0), x])
s = tf.identity(s, name="s")
spec = dict(feeds={"x:0": np.array([1.0, 2.0], np.float32)}, init=tf.global_variables_initializer().name,
            fetches=["s:0"])
""",
    "function_calls": """
x = tf.placeholder(tf.float32, [2, 2], name="x")
w = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="w")
@function
def layer(a):
    return tf.nn.relu(tf.matmul(a, w) - 1.0)
@function
def twice(a):
    return layer(layer(a)) + tf.cond(tf.reduce_sum(a) > 0, lambda: 1.0, lambda: -1.0)
y = tf.identity(twice(x), name="y")
spec = dict(feeds={"x:0": np.array([[1.0, 2.0], [3.0, -4.0]], np.float32)},
            init=tf.global_variables_initializer().name, fetches=["y:0"])
""",
    "stateful_branch_gradient": """
x = tf.placeholder(tf.float32, [4, 3], name="x")
p = tf.placeholder_with_default(True, [], name="p")
noise = lambda: 1.0 + 0.0 * tf.random_uniform([4, 3], seed=1)   # a stateful branch: TensorFlow's cond_v2 hands
y = tf.identity(tf.cond(p, lambda: tf.square(x) * noise(), lambda: x), name="y")  # its intermediates out
g = tf.identity(tf.gradients(y, x)[0], name="g")                  # as Optionals for the gradient
spec = dict(feeds={"x:0": np.arange(12, dtype=np.float32).reshape(4, 3)}, init=None, fetches=["y:0", "g:0"])
""",
    "dropout_switch": """
x = tf.placeholder(tf.float32, [4, 3], name="x")
training = tf.placeholder_with_default(False, [], name="training")
h = tf.layers.dropout(x, rate=0.4, training=training)
y = tf.identity(tf.reduce_sum(h * 2.0, axis=1), name="y")
spec = dict(feeds={"x:0": np.arange(12, dtype=np.float32).reshape(4, 3)}, init=None, fetches=["y:0"])
""",
}


def run_program(tf, graph: Graph | None, source: str, function) -> tuple:
    """(graph, spec, fetched values) of `source` built in `graph` by `tf` and run once."""
    scope = {"tf": tf, "np": np, "function": function}
    exec(source, scope)  # noqa: S102
    spec = scope["spec"]
    return scope["spec"], run_spec(tf, graph, spec)


def run_spec(tf, graph, spec: dict) -> list:
    with tf.Session(graph=graph) as sess:
        if spec["init"]:
            sess.run(spec["init"])
        return [np.asarray(v).tolist() for v in sess.run(spec["fetches"], spec["feeds"])]


def build_webflow(key: str) -> tuple:
    tf1.disable_v2_behavior()
    graph = Graph()
    with graph.as_default():
        spec, values = run_program(tf1, graph, PROGRAMS[key], wf.function)
    return graph, spec, values


def run_imported(graph_def, spec: dict) -> list:
    graph = Graph()
    with graph.as_default():
        import_graph_def(graph_def, name="")
    init = spec["init"]
    if init and init not in [op.name for op in graph.get_operations()]:
        init = [op.name for op in graph.get_operations() if op.type == "Assign"]
    return run_spec(tf1, graph, dict(spec, init=init))


# --- without TensorFlow --------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_graph_def_with_functions_imported_back_into_webflow(key: str) -> None:
    graph, spec, values = build_webflow(key)
    graph_def = graph_pb2.GraphDef.FromString(graph.as_graph_def().SerializeToString())
    assert len(graph_def.library.function) >= 1
    np.testing.assert_allclose(np.concatenate([np.ravel(v) for v in run_imported(graph_def, spec)]),
                               np.concatenate([np.ravel(v) for v in values]), rtol=1e-6)


def test_function_defs_as_tensorflow_writes_them() -> None:
    graph, _, _ = build_webflow("cond_and_its_gradient")
    graph_def = graph.as_graph_def()
    node = next(n for n in graph_def.node if n.op == "If")
    assert list(node.input) == ["Greater", "x", "w/read"]
    assert node.attr["Tcond"].type == wf.bool.as_datatype_enum
    assert list(node.attr["Tin"].list.type) == [wf.float32.as_datatype_enum] * 2
    assert list(node.attr["Tout"].list.type) == [wf.float32.as_datatype_enum]
    assert [list(s.dim) for s in node.attr["output_shapes"].list.shape][0][0].size == 2
    functions = {f.signature.name: f for f in graph_def.library.function}
    assert [f.signature.name for f in graph_def.library.function] == sorted(functions)  # TensorFlow's order
    then = functions[node.attr["then_branch"].func.name]
    # TensorFlow's names for the same program: arguments named after their placeholders ("mul/x" -> "mul_x",
    # "mul/w/read" -> "mul_w_read"), outputs after their ops; a node named like an output argument made unique
    # ("mul" -> "mul_0"); inputs "argument" or "node:output_arg:index"
    assert [a.name for a in then.signature.input_arg] == ["mul_x", "mul_w_read"]
    assert [a.name for a in then.signature.output_arg] == ["mul"]
    mul = next(n for n in then.node_def if n.op == "Mul")
    assert (mul.name, list(mul.input)) == ("mul_0", ["mul_x", "mul_w_read"])
    assert dict(then.ret) == {"mul": "mul_0:z:0"}
    other = functions[node.attr["else_branch"].func.name]
    sub = next(n for n in other.node_def if n.op == "Sub")
    assert list(sub.input)[1] == "sub/y:output:0"
    assert then.arg_attr[0].attr["_output_shapes"].list.shape[0].dim[0].size == 2


def test_while_body_returns_its_captured_inputs_too() -> None:
    """TensorFlow's While returns every input: webflow's captured tensors are passed through the body."""
    graph, _, _ = build_webflow("while_loop_with_captures")
    graph_def = graph.as_graph_def()
    node = next(n for n in graph_def.node if n.op == "While")
    functions = {f.signature.name: f for f in graph_def.library.function}
    body, cond = functions[node.attr["body"].func.name], functions[node.attr["cond"].func.name]
    count = len(node.input)
    assert len(node.attr["T"].list.type) == len(node.attr["output_shapes"].list.shape) == count == 3
    assert len(body.signature.input_arg) == len(body.signature.output_arg) == len(cond.signature.input_arg) == count
    captured = body.signature.input_arg[2].name
    assert body.ret[body.signature.output_arg[2].name] == captured


def test_demos_meta_graph_round_trip_in_webflow(tmp_path) -> None:
    """The demo CNN's .meta (dropout under tf.cond, its gradient, Adam) read back by webflow's import_meta_graph and
    restored: the same loss, and it trains."""
    ours, job = demo_checkpoint(tmp_path)
    feeds = {name: np.array(values, dtype) for name, (dtype, values) in job["spec"]["feeds"].items()}
    with Graph().as_default() as graph:
        saver = tf1.train.import_meta_graph(job["meta"])
        assert any(op.type == "If" for op in graph.get_operations())
        with tf1.Session() as sess:
            saver.restore(sess, job["prefix"])
            before = sess.run(job["loss"], feeds)
            for _ in range(3):
                sess.run(job["train"], dict(feeds, **{"training:0": True}))
            after = sess.run(job["loss"], feeds)
    assert before == pytest.approx(ours["before"], rel=1e-6)
    assert after < before


def test_frozen_graph_keeps_its_functions() -> None:
    graph, spec, values = build_webflow("nested_loops_and_conds")
    with tf1.Session(graph=graph) as sess:
        sess.run(spec["init"])
        frozen = tf1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["s"])
    assert len(frozen.library.function) >= 4 and "VariableV2" not in {n.op for n in frozen.node}
    np.testing.assert_allclose(_flat(run_imported(frozen, dict(spec, init=None))), _flat(values), rtol=1e-6)


def test_what_cannot_be_written_or_read_says_why() -> None:
    tf1.disable_v2_behavior()
    with Graph().as_default() as graph:  # a TF1 variable assigned inside a branch: held by reference
        v = tf1.Variable(1.0, name="v")
        tf1.cond(tf1.constant(True), lambda: tf1.assign_add(v, 1.0), lambda: tf1.identity(v))
        with pytest.raises(ValueError, match="TF1 variable.*by reference"):
            graph.as_graph_def()
    with Graph().as_default() as graph:  # webflow's own loop gradient
        x = tf1.placeholder(tf1.float32, [], name="x")
        _, y = tf1.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s * x), [0, x])
        tf1.gradients(y, x)
        with pytest.raises(ValueError, match="WhileGrad"):
            graph.as_graph_def()
    switch = graph_pb2.GraphDef()
    switch.node.add(name="p", op="Placeholder").attr["dtype"].type = wf.bool.as_datatype_enum
    switch.node.add(name="s", op="Switch", input=["p", "p"])
    missing = graph_pb2.GraphDef()
    node = missing.node.add(name="c", op="PartitionedCall")
    node.attr["f"].func.name = "nowhere"
    node.attr["Tout"].list.SetInParent()
    node.attr["Tin"].list.SetInParent()
    with Graph().as_default():
        with pytest.raises(ValueError, match="TF1 control flow \\(Switch\\).*enable_control_flow_v2"):
            import_graph_def(switch)
        with pytest.raises(ValueError, match="'nowhere' is not in the GraphDef's function library"):
            import_graph_def(missing)


# --- against TensorFlow ----------------------------------------------------------------------------------------
_DRIVER = r'''
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

def run(spec, graph=None):
    with tf.Session(graph=graph) as sess:
        if spec["init"]:
            sess.run(spec["init"])
        return [np.asarray(v).tolist() for v in sess.run(spec["fetches"], spec["feeds"])]

def feeds(spec):
    return dict(spec, feeds={k: np.array(v, dtype) for k, (dtype, v) in spec["feeds"].items()})

def run_graph(job):  # (a) webflow's GraphDef
    graph_def = tf.GraphDef.FromString(open(job["path"], "rb").read())
    graph = tf.Graph()
    with graph.as_default():
        tf.import_graph_def(graph_def, name="")
    spec = feeds(job["spec"])
    if spec["init"]:
        spec["init"] = [op.name for op in graph.get_operations() if op.type == "Assign"]
    return {"values": run(spec, graph), "types": sorted({op.type for op in graph.get_operations()})}

def program(job):  # (b) TensorFlow's GraphDef of the same program
    if job["v2"]:
        tf.enable_control_flow_v2()
    else:
        tf.disable_control_flow_v2()
    scope = {"tf": tf, "np": np, "function": tf.function}
    exec(job["source"], scope)
    with open(job["path"], "wb") as file:
        file.write(tf.get_default_graph().as_graph_def().SerializeToString())
    return {"values": run(scope["spec"])}

def saved_program(job):  # (d) TensorFlow's .meta and checkpoint of a program
    tf.enable_control_flow_v2()
    scope = {"tf": tf, "np": np, "function": tf.function}
    exec(job["source"], scope)
    spec = scope["spec"]
    with tf.Session() as sess:
        if spec["init"]:
            sess.run(spec["init"])
        values = [np.asarray(v).tolist() for v in sess.run(spec["fetches"], spec["feeds"])]
        tf.train.Saver().save(sess, job["prefix"])
    return {"values": values}

def meta_graph(job):  # (c) the demo's .meta and checkpoint
    saver = tf.train.import_meta_graph(job["meta"])
    graph = tf.get_default_graph()
    spec = feeds(job["spec"])
    with tf.Session() as sess:
        saver.restore(sess, job["prefix"])
        before = sess.run(job["loss"], spec["feeds"])
        for _ in range(3):
            sess.run(job["train"], dict(spec["feeds"], **{"training:0": True}))
        after = sess.run(job["loss"], spec["feeds"])
    return {"before": float(before), "after": float(after)}

out = {}
for key, job in json.load(sys.stdin).items():
    tf.reset_default_graph()
    try:
        out[key] = globals()[job["kind"]](job)
    except Exception as error:
        out[key] = {"error": f"{type(error).__name__}: {error}"}
print("RESULT:" + json.dumps(out))
'''


def encoded(spec: dict) -> dict:
    return dict(spec, feeds={k: [np.asarray(v).dtype.name, np.asarray(v).tolist()] for k, v in spec["feeds"].items()})


def demo_checkpoint(folder) -> tuple[dict, dict]:
    """The demo's model saved by webflow's Saver (.meta included): (what webflow computes, TensorFlow's job)."""
    from webflow import demo

    tf1.disable_v2_behavior()
    rng = np.random.default_rng(0)
    feeds = {"images:0": rng.random((8, 784), dtype=np.float32), "labels:0": np.array([3, 1, 4, 1, 5, 9, 2, 6])}
    with Graph().as_default():
        model = demo.build_model(1e-3, 0)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = tf1.train.Saver().save(sess, str(folder / "demo"))
            loss = sess.run(model["loss"], feeds)
            for _ in range(3):
                sess.run(model["train_op"], dict(feeds, **{"training:0": True}))
    job = {"kind": "meta_graph", "meta": prefix + ".meta", "prefix": prefix, "loss": model["loss"].name,
           "train": model["train_op"].name, "spec": encoded({"feeds": feeds, "init": None, "fetches": []})}
    return {"before": float(loss)}, job


@pytest.fixture(scope="module")
def exchanged(tmp_path_factory) -> dict:
    """{check: (webflow's side, TensorFlow's side, job)} from one TensorFlow subprocess."""
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    folder = tmp_path_factory.mktemp("function_graph_defs")
    ours, jobs = {}, {}
    for key, source in PROGRAMS.items():
        graph, spec, values = build_webflow(key)
        path = str(folder / f"{key}.webflow.pb")
        with open(path, "wb") as file:
            file.write(graph.as_graph_def().SerializeToString())
        ours[f"a:{key}"] = values
        jobs[f"a:{key}"] = {"kind": "run_graph", "path": path, "spec": encoded(spec)}
        jobs[f"b:{key}"] = {"kind": "program", "source": source, "v2": True, "path": str(folder / f"{key}.tf.pb")}
    jobs["switch_merge"] = {"kind": "program", "source": PROGRAMS["cond_and_its_gradient"], "v2": False,
                            "path": str(folder / "v1.tf.pb")}
    ours["c"], jobs["c"] = demo_checkpoint(folder)
    jobs["d"] = {"kind": "saved_program", "source": PROGRAMS["nested_loops_and_conds"], "prefix": str(folder / "tf")}
    theirs = run_tensorflow_jobs(jobs, _DRIVER)
    return {key: (ours.get(key), theirs.get(key), jobs[key]) for key in jobs}


def _sides(exchanged: dict, key: str) -> tuple:
    ours, theirs, job = exchanged[key]
    if "error" in theirs:
        pytest.fail(f"TensorFlow: {theirs['error']}")
    return ours, theirs, job


def _flat(values: list) -> np.ndarray:
    return np.concatenate([np.ravel(np.asarray(v, np.float64)) for v in values])


@needs_tf
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_a_tensorflow_runs_webflows_functions(exchanged: dict, key: str) -> None:
    ours, theirs, _ = _sides(exchanged, f"a:{key}")
    assert {"If", "While", "PartitionedCall", "StatefulPartitionedCall"} & set(theirs["types"])
    np.testing.assert_allclose(_flat(theirs["values"]), _flat(ours), rtol=1e-5, atol=1e-6)


@needs_tf
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_b_webflow_runs_tensorflows_functions(exchanged: dict, key: str) -> None:
    _, theirs, job = _sides(exchanged, f"b:{key}")
    with open(job["path"], "rb") as file:
        graph_def = graph_pb2.GraphDef.FromString(file.read())
    assert len(graph_def.library.function) >= 1
    _, spec, _ = build_webflow(key)
    got = run_imported(graph_def, spec)
    np.testing.assert_allclose(_flat(got), _flat(theirs["values"]), rtol=1e-5, atol=1e-6)


@needs_tf
def test_b_tensorflows_switch_merge_graphs_are_refused_clearly(exchanged: dict) -> None:
    _, _, job = _sides(exchanged, "switch_merge")
    with open(job["path"], "rb") as file:
        graph_def = graph_pb2.GraphDef.FromString(file.read())
    with Graph().as_default(), pytest.raises(ValueError, match="TF1 control flow"):
        import_graph_def(graph_def)


@needs_tf
def test_c_tensorflow_reads_the_demos_meta_graph(exchanged: dict) -> None:
    ours, theirs, _ = _sides(exchanged, "c")
    assert theirs["before"] == pytest.approx(ours["before"], rel=1e-5)
    assert theirs["after"] < theirs["before"]   # Adam through the tf.cond'ed dropout trains in TensorFlow


@needs_tf
def test_d_webflow_reads_tensorflows_meta_graph_with_functions(exchanged: dict) -> None:
    _, theirs, job = _sides(exchanged, "d")
    _, spec, _ = build_webflow("nested_loops_and_conds")
    with Graph().as_default() as graph:
        saver = tf1.train.import_meta_graph(job["prefix"] + ".meta")
        assert {"StatelessWhile", "StatelessIf"} & {node.op for node in graph.as_graph_def().node} == set()
        with tf1.Session() as sess:
            saver.restore(sess, job["prefix"])
            got = sess.run(spec["fetches"], spec["feeds"])
    np.testing.assert_allclose(_flat(got), _flat(theirs["values"]), rtol=1e-6)
