"""TF1 input pipelines as GraphDefs, both ways with real TensorFlow 2.21: the dataset and iterator ops are
TensorFlow's own op types with TensorFlow's attrs, so TensorFlow runs webflow's exported graph, webflow runs
TensorFlow's, and both give the same (seeded-shuffle) batches. Pipelines with traced functions (map, filter ...)
need a FunctionDef library, which webflow's GraphDef writer does not write yet.
"""

import os
import tempfile

import numpy as np
import pytest
from data_oracle import SKIP_REASON, TF_PYTHON, run_tensorflow

import webflow as wf
import webflow.compat.v1 as tf1

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

READER = r'''
import os
graph_def = tf.GraphDef()
graph_def.ParseFromString(open(os.path.join(tmp, "pipeline.pb"), "rb").read())
tf.import_graph_def(graph_def, name="")
graph = tf.get_default_graph()
out = []
with tf.Session() as session:
    session.run(graph.get_operation_by_name("MakeIterator"), {"x:0": np.arange(16, dtype=np.float32).reshape(8, 2)})
    try:
        while True:
            out.append(session.run("next:0"))
    except tf.errors.OutOfRangeError:
        pass
result = out
'''


WRITER = r'''
import os
x = tf.placeholder(tf.float32, [None, 2], name="x")
iterator = tf.data.Dataset.from_tensor_slices(x).shuffle(5, seed=2).repeat(2).batch(3).prefetch(1) \
    .make_initializable_iterator()
element = iterator.get_next(name="next")
open(os.path.join(tmp, "pipeline.pb"), "wb").write(tf.get_default_graph().as_graph_def().SerializeToString())
''' + READER


def _run_imported(folder: str) -> list:
    """webflow imports the GraphDef TensorFlow wrote and runs it as READER does."""
    graph = wf.Graph()
    with graph.as_default():
        graph_def = tf1.GraphDef()
        graph_def.ParseFromString(open(os.path.join(folder, "pipeline.pb"), "rb").read())
        tf1.import_graph_def(graph_def, name="")
        out = []
        with tf1.Session(graph=graph) as session:
            session.run(graph.get_operation_by_name("MakeIterator"),
                        {"x:0": np.arange(16, dtype=np.float32).reshape(8, 2)})
            try:
                while True:
                    out.append(session.run("next:0").tolist())
            except wf.errors.OutOfRangeError:
                pass
    return out


def test_tensorflow_pipeline_runs_in_webflow():
    with tempfile.TemporaryDirectory() as folder:
        expected = run_tensorflow({"pipeline": WRITER}, "graph", folder)["pipeline"]
        assert len(expected) == 6
        assert _run_imported(folder) == expected


def test_exported_pipeline_runs_in_tensorflow():
    graph = wf.Graph()
    with graph.as_default():
        x = tf1.placeholder(wf.float32, [None, 2], name="x")
        dataset = tf1.data.Dataset.from_tensor_slices(x).shuffle(5, seed=2).repeat(2).batch(3).prefetch(1)
        iterator = dataset.make_initializable_iterator()
        element = iterator.get_next(name="next")
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "pipeline.pb"), "wb") as file:
                file.write(graph.as_graph_def().SerializeToString())
            expected = run_tensorflow({"pipeline": READER}, "graph", folder)["pipeline"]
        mine = []
        with tf1.Session(graph=graph) as session:
            session.run(iterator.initializer, {x: np.arange(16, dtype=np.float32).reshape(8, 2)})
            try:
                while True:
                    mine.append(session.run(element).tolist())
            except wf.errors.OutOfRangeError:
                pass
    assert len(mine) == 6  # 8 rows twice: 16 elements in batches of 3
    assert mine == expected
