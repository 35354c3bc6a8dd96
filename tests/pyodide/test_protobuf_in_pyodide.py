"""TensorFlow's file formats inside Pyodide (Node, offline, no NumPy) with the real protobuf runtime: the
pure-Python wheel the static site ships (site/build.py puts it in site/_build/wheels/, pip-downloaded from PyPI).

One program writes, in Pyodide and in CPython (webflow on NumPy, with protobuf's C runtime), a tf.train.Example
TFRecord, a tf.train.Saver checkpoint (+ .meta), a FileWriter event file (the graph, Summary messages and a
tf.summary.scalar run by the session) and a GraphDef; then each engine reads what the other wrote. The oracle is
CPython webflow, itself checked against TensorFlow by tests/train, tests/summary and tests/io: the checkpoint's
.index/.data, the TFRecord and the GraphDef (deterministic serialization) are byte for byte CPython's; the event
files (which hold wall times) say the same; values are checked against the program's own numbers.

Needs node + npm `pyodide` (tests/pyodide: npm ci) and a built site (make site) for the protobuf wheel.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import textwrap

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from pyodide_session import NODE_MODULES, PyodideSession, PyodideUnavailable, site_protobuf_wheel  # noqa: E402

# Sets `result` (JSON types). OUT: the folder to write into.
WRITE = """
import os
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.reset_default_graph()
os.makedirs(os.path.join(OUT, "ckpt"), exist_ok=True)  # Saver.save wants the folder there, as TensorFlow's
example = tf.train.Example(features=tf.train.Features(feature={
    "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[0.25, -1.5, 3.0])),
    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[7])),
    "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"seven"]))}))
with tf.python_io.TFRecordWriter(os.path.join(OUT, "examples.tfrecord")) as writer:
    writer.write(example.SerializeToString(deterministic=True))
    writer.write(tf.train.Example().SerializeToString())

x = tf.placeholder(tf.float32, [None, 3], name="x")
w = tf.Variable([[0.5, -1.0], [2.0, 0.25], [1.5, 3.0]], name="dense/kernel")
b = tf.Variable([0.1, -0.2], name="dense/bias")
steps = tf.Variable(42, dtype=tf.int64, name="steps")
flags = tf.Variable([True, False, True], name="flags")
scale = tf.Variable(2.5, dtype=tf.float64, name="scale")
y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
saver = tf.train.Saver(save_relative_paths=True)  # the other engine reads the folder at another path
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    prefix = saver.save(sess, os.path.join(OUT, "ckpt", "model"), global_step=5)
    fetched = sess.run(y, {x: [[1.0, 2.0, 3.0]]}).tolist()
tf.train.write_graph(tf.get_default_graph(), OUT, "graph.pb", as_text=False)
graph_hex = tf.get_default_graph().as_graph_def().SerializeToString(deterministic=True).hex()

writer = tf.summary.FileWriter(os.path.join(OUT, "logs"), graph=tf.get_default_graph())
for step, loss in [(0, 2.5), (10, 1.25)]:
    writer.add_summary(tf.summary.Summary(value=[tf.summary.Summary.Value(tag="loss", simple_value=loss)]), step)
accuracy = tf.summary.scalar("accuracy", tf.constant(0.75))  # the ScalarSummary op, run by the session
with tf.Session() as sess:
    writer.add_summary(sess.run(accuracy), 20)
writer.close()
result = {"prefix": os.path.relpath(prefix, OUT), "y": fetched, "graph_def": graph_hex}
"""

# Reads a folder WRITE filled (by either engine). Sets `result`.
READ = """
import glob, os
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
tf.reset_default_graph()
serialized = tf.placeholder(tf.string, [], name="serialized")
parsed = tf.parse_single_example(serialized, {
    "pixels": tf.FixedLenFeature([3], tf.float32), "label": tf.FixedLenFeature([], tf.int64, default_value=-1),
    "name": tf.FixedLenFeature([], tf.string, default_value=b"none")})
with tf.Session() as sess:
    examples = []
    for record in tf.python_io.tf_record_iterator(os.path.join(IN, "examples.tfrecord")):
        if not record:  # the empty Example: every feature takes its default (pixels has none)
            examples.append(len(record))
            continue
        value = sess.run(parsed, {serialized: record})
        examples.append({"pixels": value["pixels"].tolist(), "label": int(value["label"]),
                         "name": getattr(value["name"], "item", lambda: value["name"])().decode()})

tf.reset_default_graph()
w = tf.Variable(tf.zeros([3, 2]), name="dense/kernel")
b = tf.Variable(tf.zeros([2]), name="dense/bias")
steps = tf.Variable(0, dtype=tf.int64, name="steps")
flags = tf.Variable([False, False, False], name="flags")
scale = tf.Variable(0.0, dtype=tf.float64, name="scale")
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    latest = tf.train.latest_checkpoint(os.path.join(IN, "ckpt"))
    saver.restore(sess, latest)
    restored = [value.tolist() for value in sess.run([w, b, steps, flags, scale])]
listed = tf.train.list_variables(latest)
loaded = tf.train.load_variable(latest, "dense/kernel").tolist()

events = []
for path in sorted(glob.glob(os.path.join(IN, "logs", "events.out.tfevents.*"))):
    for event in tf.train.summary_iterator(path):
        kind = event.WhichOneof("what")
        if kind == "summary":
            values = [(v.tag, v.simple_value) for v in event.summary.value]
        elif kind in ("graph_def", "meta_graph_def"):  # the graph, alone and inside a MetaGraphDef
            graph = (tf.GraphDef.FromString(event.graph_def) if kind == "graph_def"
                     else tf.MetaGraphDef.FromString(event.meta_graph_def).graph_def)
            values = [node.op for node in graph.node if node.name in ("x", "y")]
        else:
            values = event.file_version
        events.append([event.step, kind, values])

graph_def = tf.GraphDef()
with open(os.path.join(IN, "graph.pb"), "rb") as file:
    graph_def.ParseFromString(file.read())
nodes = [[node.name, node.op] for node in graph_def.node]
result = {"examples": examples, "restored": restored, "latest": os.path.basename(latest), "listed": listed,
          "loaded": loaded, "events": events, "nodes": nodes}
"""

# Pyodide's view of itself: the runtime in use, the time to import every webflow _pb2 module, NumPy absent.
RUNTIME = """
import sys, time
for name in [m for m in sys.modules if m == "webflow" or m.startswith("webflow.")]:
    del sys.modules[name]  # the runner's bare package: import the real one
import webflow
loaded_by_import = "google.protobuf" in sys.modules
start = time.perf_counter()
import google.protobuf
from google.protobuf.internal import api_implementation
from webflow.protos import (checkpoint_state_pb2, event_pb2, example_pb2, graph_pb2, meta_graph_pb2,
                            saved_model_pb2, summary_pb2, tensor_bundle_pb2)
{"implementation": api_implementation.Type(), "version": google.protobuf.__version__,
 "import_s": time.perf_counter() - start, "loaded_by_import_webflow": loaded_by_import,
 "numpy": "numpy" in sys.modules, "platform": sys.platform}
"""


@pytest.fixture(scope="module")
def pyodide():
    if shutil.which("node") is None or not os.path.isdir(NODE_MODULES):
        require_or_skip(f"no node or npm pyodide (npm ci in {HERE})")
    wheel = site_protobuf_wheel()
    try:
        session = PyodideSession.start(os.path.join(ROOT, "webflow"), extra_wheels=[wheel])
    except PyodideUnavailable as error:
        pytest.fail(f"Pyodide did not start with the protobuf wheel: {error}")
    session.wheel = wheel
    session.runtime = session.evaluate(textwrap.dedent(RUNTIME))
    yield session
    session.close()
    print(f"\nPyodide + protobuf: wheel {os.path.getsize(wheel) / 1e3:.0f} kB, loadPackage "
          f"{session.extra_wheels_seconds:.2f} s, import of protobuf + 8 webflow _pb2 modules "
          f"{session.runtime['import_s']:.2f} s")


def in_pyodide(session: PyodideSession, program: str, **names: str) -> dict:
    setup = "".join(f"{name} = {value!r}\n" for name, value in names.items())
    return session.evaluate(setup + textwrap.dedent(program) + "\nresult")


def in_cpython(program: str, **names: str) -> dict:
    """The program's `result` from a fresh CPython on webflow's NumPy kernels (protobuf's C runtime)."""
    setup = "".join(f"{name} = {value!r}\n" for name, value in names.items())
    code = setup + textwrap.dedent(program) + "\nimport json\nprint(json.dumps(result))\n"
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", WEBFLOW_BACKEND="numpy")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def written(pyodide):
    """Both engines' files: {"pyodide": (folder, result), "cpython": (folder, result)}."""
    ours = os.path.join(pyodide.exchange, "pyodide")
    theirs = os.path.join(pyodide.exchange, "cpython")
    return {"pyodide": (ours, in_pyodide(pyodide, WRITE, OUT="/exchange/pyodide")),
            "cpython": (theirs, in_cpython(WRITE, OUT=theirs))}


def test_the_shipped_wheel_is_pure_python_and_runs_without_numpy(pyodide) -> None:
    assert os.path.basename(pyodide.wheel).endswith("-py3-none-any.whl")
    runtime = pyodide.runtime
    assert runtime["platform"] == "emscripten" and runtime["numpy"] is False
    assert runtime["implementation"] == "python"  # no PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION needed
    assert os.path.basename(pyodide.wheel).startswith(f"protobuf-{runtime['version']}-")
    assert runtime["loaded_by_import_webflow"] is False  # `import webflow` still loads no protobuf


def test_example_parsing_uses_protobuf_in_pyodide(pyodide) -> None:
    found = pyodide.evaluate("from webflow.ops import example_parsing\nexample_parsing.decoder_name()")
    assert found == "protobuf"


def test_files_are_byte_for_byte_cpythons(written) -> None:
    (ours, mine), (theirs, reference) = written["pyodide"], written["cpython"]
    assert mine["prefix"] == reference["prefix"] == os.path.join("ckpt", "model-5")
    for name in ("examples.tfrecord", "ckpt/model-5.index", "ckpt/model-5.data-00000-of-00001"):
        with open(os.path.join(ours, name), "rb") as a, open(os.path.join(theirs, name), "rb") as b:
            assert a.read() == b.read(), name
    assert mine["graph_def"] == reference["graph_def"]
    # relu(x @ w + b) for x = [1, 2, 3]: [0.5 + 4 + 4.5 + 0.1, -1 + 0.5 + 9 - 0.2]
    assert mine["y"][0] == pytest.approx(reference["y"][0])
    assert mine["y"][0] == pytest.approx([9.1, 8.3])
    assert os.path.exists(os.path.join(ours, "ckpt", "model-5.meta"))
    with open(os.path.join(ours, "ckpt", "checkpoint")) as file:
        assert file.readline() == 'model_checkpoint_path: "model-5"\n'


EXPECTED_EXAMPLES = [{"pixels": [0.25, -1.5, 3.0], "label": 7, "name": "seven"}, 0]
F32_TENTH, F32_MINUS_FIFTH = struct.unpack("<2f", struct.pack("<2f", 0.1, -0.2))  # dense/bias as float32 holds it
EXPECTED_VARIABLES = [[[0.5, -1.0], [2.0, 0.25], [1.5, 3.0]], [F32_TENTH, F32_MINUS_FIFTH], 42, [True, False, True],
                      2.5]


@pytest.mark.parametrize("reader,writer", [("pyodide", "cpython"), ("pyodide", "pyodide"), ("cpython", "pyodide")])
def test_each_engine_reads_the_others_files(pyodide, written, reader, writer) -> None:
    folder = written[writer][0]
    if reader == "pyodide":
        found = in_pyodide(pyodide, READ, IN=f"/exchange/{writer}")
    else:
        found = in_cpython(READ, IN=folder)
    assert found["examples"] == EXPECTED_EXAMPLES
    assert found["restored"] == EXPECTED_VARIABLES  # exactly: the same bytes went in
    assert found["latest"] == "model-5"
    assert found["loaded"] == EXPECTED_VARIABLES[0]
    assert found["listed"] == [["dense/bias", [2]], ["dense/kernel", [3, 2]], ["flags", [3]], ["scale", []],
                               ["steps", []]]
    assert found["events"] == [[0, "file_version", "brain.Event:2"], [0, "graph_def", ["Placeholder", "Relu"]],
                               [0, "meta_graph_def", ["Placeholder", "Relu"]], [0, "summary", [["loss", 2.5]]],
                               [10, "summary", [["loss", 1.25]]], [20, "summary", [["accuracy", 0.75]]]]
    ops = dict(found["nodes"])
    assert (ops["x"], ops["y"], ops["dense/kernel"], ops["MatMul"]) == ("Placeholder", "Relu", "VariableV2", "MatMul")
