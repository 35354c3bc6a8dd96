"""TF1's `make_one_shot_iterator` node as TensorFlow 2.21 builds it: a `OneShotIterator` with no inputs whose
`dataset_factory` attr names a function (in GraphDef.library) that builds the dataset, copied into it by value.
The node's name, type, inputs and attrs (as a GraphDef reader sees them) are compared with TensorFlow's; the
GraphDef goes both ways (TensorFlow runs webflow's, webflow runs TensorFlow's) and iterates the same elements."""

import os
import tempfile

import numpy as np
import pytest
from data_oracle import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow as wf
import webflow.compat.v1 as tf1

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

PIPELINES = {
    "range_batch": "tf.data.Dataset.range(7).batch(3)",
    "mapped": "tf.data.Dataset.from_tensor_slices(np.arange(6.0, dtype=np.float32)).map(lambda v: v * 2.0 + 1.0)",
    "zipped": "tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)))",
}

NODE = r'''
iterator = tf.data.make_one_shot_iterator({pipeline})
element = iterator.get_next(name="next")
graph = tf.get_default_graph()
op = graph.get_operation_by_name("OneShotIterator")
graph_def = graph.as_graph_def()
node = [n for n in graph_def.node if n.name == "OneShotIterator"][0]
factory = node.attr["dataset_factory"].func.name
functions = {{f.signature.name: f for f in graph_def.library.function}}
signature = functions[factory].signature
out = []
with tf.Session() as session:
    try:
        while True:
            out.append(session.run(element))
    except tf.errors.OutOfRangeError:
        pass
result = {{"op": [op.name, op.type, [t.name for t in op.inputs], [str(t.shape) for t in op.outputs]],
          "attrs": sorted(k for k in node.attr if not k.startswith("_")), "inputs": list(node.input),
          "output_types": list(node.attr["output_types"].list.type),
          "output_shapes": [str(s) for s in node.attr["output_shapes"].list.shape],
          "factory_signature": [len(signature.input_arg), [a.type for a in signature.output_arg]],
          "elements": out}}
'''


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    with tempfile.TemporaryDirectory() as folder:
        programs = {key: NODE.format(pipeline=pipeline) for key, pipeline in PIPELINES.items()}
        return run_tensorflow(programs, "graph", folder)


@pytest.mark.parametrize("key", list(PIPELINES))
def test_node_and_elements_as_tensorflow(key: str, tensorflow_results: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        mine = run_webflow(NODE.format(pipeline=PIPELINES[key]), "graph", folder)
    assert mine == tensorflow_results[key]


EXPORTED_READER = r'''
import os
graph_def = tf.GraphDef()
graph_def.ParseFromString(open(os.path.join(tmp, "one_shot.pb"), "rb").read())
tf.import_graph_def(graph_def, name="")
out = []
with tf.Session() as session:
    try:
        while True:
            out.append(session.run("next:0"))
    except tf.errors.OutOfRangeError:
        pass
result = out
'''


def test_exported_one_shot_iterator_runs_in_tensorflow() -> None:
    graph = wf.Graph()
    with graph.as_default():
        dataset = tf1.data.Dataset.range(5).map(lambda v: v * 3).batch(2)
        tf1.data.make_one_shot_iterator(dataset).get_next(name="next")
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "one_shot.pb"), "wb") as handle:
                handle.write(graph.as_graph_def().SerializeToString())
            assert run_tensorflow({"read": EXPORTED_READER}, "graph", folder)["read"] == [[0, 3], [6, 9], [12]]


def test_tensorflow_one_shot_iterator_runs_in_webflow() -> None:
    writer = ("import os\ntf.data.make_one_shot_iterator(tf.data.Dataset.range(4).batch(3)).get_next(name='next')\n"
              "open(os.path.join(tmp, 'one_shot.pb'), 'wb').write(tf.get_default_graph().as_graph_def()"
              ".SerializeToString())\nresult = 0\n")
    with tempfile.TemporaryDirectory() as folder:
        run_tensorflow({"write": writer}, "graph", folder)
        graph = wf.Graph()
        with graph.as_default():
            graph_def = tf1.GraphDef()
            with open(os.path.join(folder, "one_shot.pb"), "rb") as handle:
                graph_def.ParseFromString(handle.read())
            tf1.import_graph_def(graph_def, name="")
            assert list(graph.get_operation_by_name("OneShotIterator").inputs) == []
            with tf1.Session(graph=graph) as session:
                first, second = session.run("next:0"), session.run("next:0")
                with pytest.raises(wf.errors.OutOfRangeError):
                    session.run("next:0")
    np.testing.assert_array_equal(first, [0, 1, 2])
    np.testing.assert_array_equal(second, [3])
