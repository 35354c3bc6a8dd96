"""tf.train.Example, the parsing ops, decode_raw / decode_csv, SparseToDense and read_file against TensorFlow 2.21.

tests/io/example_programs.py is one TF2 program; it runs under TensorFlow (the oracle interpreter named by
WEBFLOW_TF_PYTHON, skipped when unset) and under webflow (`import webflow as tf`) in this process. Compared:
the serialized bytes of the same Examples and SequenceExamples (identical), every parse result (values, dtypes,
shapes, SparseTensor components), each engine parsing the records the other serialized, every error's class and
message word for word, and the (name, type) of the ops a graph-mode parse builds.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

import pytest
from example_programs import source
from tf_subprocess import SKIP_REASON, TF_PYTHON

import webflow as wf
from webflow.protos import example_pb2

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

MISSING = os.path.join(tempfile.gettempdir(), "webflow_no_such_dir", "missing.txt")


def _run(program: str) -> dict:
    scope: dict = {}
    exec(program, scope)  # noqa: S102 - the test's own program
    return json.loads(json.dumps(scope["result"]))


def _webflow_records() -> list:
    return [r.hex() for r in _bytes_of(_run(source("webflow", [], MISSING))["bytes"][:3])]


def _bytes_of(hexes: list) -> list:
    return [bytes.fromhex(h) for h in hexes]


@pytest.fixture(scope="module")
def results() -> tuple:
    """(TensorFlow's results, webflow's results); each engine also parses the records the other serialized."""
    ours_first = _webflow_records()
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
    driver = ("import json, sys\nscope = {}\nexec(sys.stdin.read(), scope)\n"
              "print('RESULT:' + json.dumps(scope['result']))")
    done = subprocess.run([TF_PYTHON, "-c", driver], input=source("tensorflow", ours_first, MISSING),
                          capture_output=True, text=True, timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, done.stderr[-4000:]
    theirs = json.loads(lines[-1][len("RESULT:"):])
    ours = _run(source("webflow", theirs["bytes"][:3], MISSING))
    return theirs, ours


@pytest.mark.parametrize("key", ["deterministic_bytes", "one_key_bytes", "sequence_one_key_bytes"])
def test_serialized_examples_are_byte_identical(results, key):
    """A one-key message is byte-identical as serialized; several keys in deterministic (sorted) serialization, since
    protobuf writes a map in its hash order, which changes from process to process in TensorFlow too."""
    theirs, ours = results
    assert ours[key] == theirs[key]


def test_webflow_messages_read_tensorflow_bytes(results):
    theirs, _ = results
    classes = [example_pb2.Example] * 3 + [example_pb2.SequenceExample] * 2
    for message, data, sorted_bytes in zip(classes, _bytes_of(theirs["bytes"]), theirs["deterministic_bytes"]):
        assert message.FromString(data).SerializeToString(deterministic=True).hex() == sorted_bytes


@pytest.mark.parametrize("key", ["parse_example", "parse_example_other", "parse_empty_batch", "parse_named_batch",
                                 "parse_single_example",
                                 "parse_uniform_batch", "parse_sequence_feature", "parse_single_sequence_example",
                                 "parse_sequence_example"])
def test_parse_results_match(results, key):
    theirs, ours = results
    assert "error" not in json.dumps(theirs[key])[:20], theirs[key]
    assert ours[key] == theirs[key]


@pytest.mark.parametrize("key", ["errors_batch", "errors_single", "error_names", "sequence_errors",
                                 "sequence_corrupt"])
def test_parse_errors_match(results, key):
    theirs, ours = results
    assert ours[key] == theirs[key]


@pytest.mark.parametrize("key", ["decode_raw", "decode_raw_cases", "decode_csv"])
def test_decode_ops_match(results, key):
    theirs, ours = results
    for i, (got, expected) in enumerate(zip(ours[key], theirs[key])):
        assert got == expected, f"{key}[{i}]"


@pytest.mark.parametrize("key", ["to_dense", "to_dense_unvalidated", "reorder", "read_missing", "serialize_tensor",
                                 "parse_tensor", "parse_tensor_errors"])
def test_sparse_files_and_tensor_protos_match(results, key):
    theirs, ours = results
    assert ours[key] == theirs[key]


@pytest.mark.parametrize("key", ["graph_parse_example", "graph_parse_single_example",
                                 "graph_parse_single_sequence_example", "graph_files"])
def test_graphs_hold_tensorflows_ops(results, key):
    theirs, ours = results
    assert ours[key] == theirs[key]


def test_python_level_errors_match_tensorflow():
    with pytest.raises(ValueError, match="FixedLenSequenceFeature requires allow_missing to be True"):
        wf.io.parse_example([b""], {"a": wf.io.FixedLenSequenceFeature([], wf.float32)})
    with pytest.raises(ValueError, match="select_cols is not strictly increasing"):
        wf.io.decode_csv(["1,2"], [[0], [0]], select_cols=[1, 0])


GRAPH_RUN = r'''
import json, sys
import tensorflow as tf
graph_def = tf.compat.v1.GraphDef.FromString(bytes.fromhex(sys.argv[1]))
feeds = json.loads(sys.argv[2])
with tf.Graph().as_default():
    tf.graph_util.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session() as session:
        values = session.run(["parsed/ParseExampleV2:2", "parsed/ParseExampleV2:3", "dense_b:0", "csv:1"],
                             {"records:0": [bytes.fromhex(h) for h in feeds["records"]], "lines:0": feeds["lines"]})
print("RESULT:" + json.dumps([v.tolist() for v in values]))
'''


def test_tensorflow_runs_the_graph_webflow_exports():
    """ParseExampleV2, SparseToDense and DecodeCSV nodes as webflow writes them (GraphDef, TensorFlow's attrs) import
    into TensorFlow and give webflow's results."""
    import webflow.compat.v1 as tf1

    records = [wf.train.Example(features=wf.train.Features(feature={
        "a": wf.train.Feature(float_list=wf.train.FloatList(value=[3.0 * i, 4.0])),
        "b": wf.train.Feature(int64_list=wf.train.Int64List(value=list(range(i))))})).SerializeToString()
        for i in range(3)]
    lines = ["1,2.5", "3,"]
    graph = tf1.Graph()
    with graph.as_default():
        holder = tf1.placeholder(tf1.string, [None], name="records")
        parsed = tf1.parse_example(holder, {"a": tf1.FixedLenFeature([2], tf1.float32),
                                            "b": tf1.VarLenFeature(tf1.int64)}, name="parsed")
        dense = tf1.sparse.to_dense(parsed["b"], name="dense_b")
        lines_holder = tf1.placeholder(tf1.string, [None], name="lines")
        column = tf1.decode_csv(lines_holder, [[0], [1.0]], name="csv")[1]
        with tf1.Session() as session:
            ours = session.run([parsed["b"].dense_shape, parsed["a"], dense, column],
                               {holder: records, lines_holder: lines})
        graph_def = graph.as_graph_def()
    feeds = json.dumps({"records": [r.hex() for r in records], "lines": lines})
    done = subprocess.run([TF_PYTHON, "-c", GRAPH_RUN, graph_def.SerializeToString().hex(), feeds],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
    lines_out = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines_out, done.stderr[-3000:]
    assert json.loads(lines_out[-1][len("RESULT:"):]) == [v.tolist() for v in ours]
