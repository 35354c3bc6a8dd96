"""Colocation groups (`_class` attrs) as TensorFlow records them: `tf.colocate_with` blocks (nested, reset with
ignore_existing, a variable made inside one), and tf.import_graph_def keeping them, each `loc:@name` under the
import's name prefix, so that a re-exported GraphDef carries them. Oracle: TF 2.21
(WEBFLOW_TF_PYTHON). Only the optimizer's nodes are compared: the gradients' tuples and the variables' own nodes
are not colocated by webflow yet (webflow/train/README.md)."""

from __future__ import annotations

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

PROGRAM = """
v = tf.Variable(1.0, name="v")
w = tf.Variable([2.0, 3.0], name="w")
train = tf.train.AdamOptimizer(0.1).minimize(v * v + tf.reduce_sum(w * w))
exported = tf.get_default_graph().as_graph_def()
imported = tf.Graph()
with imported.as_default():
    tf.import_graph_def(exported, name={prefix!r})
    again = imported.as_graph_def()
result = {{
    "attr": [group.decode() for group in imported.get_operation_by_name({adam!r}).get_attr("_class")],
    "exported": sorted([node.name, [group.decode() for group in node.attr["_class"].list.s]]
                       for node in again.node if "_class" in node.attr and "/gradients/" not in "/" + node.name
                       and not node.name.endswith(("v/Assign", "v/read", "w/Assign", "w/read"))),
}}
"""
PROGRAMS = {prefix or "no_prefix": PROGRAM.format(prefix=prefix, adam=f"{prefix}/w/Adam_1" if prefix else "w/Adam_1")
            for prefix in ("", "imported", "outer/inner")}
PROGRAMS["colocate_with_blocks"] = """
a = tf.constant(1.0, name="a")
with tf.colocate_with(a):
    b = tf.add(a, 1.0, name="b")
    with tf.colocate_with(None, ignore_existing=True):
        c = tf.identity(b, name="c")
    v = tf.Variable(2.0, name="v")
    with tf.colocate_with(v):
        d = tf.multiply(v, 2.0, name="d")
try:
    with tf.colocate_with(None):
        pass
    error = None
except ValueError as caught:
    error = str(caught)
result = {"error": error, "colocated": sorted([node.name, [group.decode() for group in node.attr["_class"].list.s]]
                                              for node in tf.get_default_graph().as_graph_def().node
                                              if "_class" in node.attr)}
"""


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    return run_tensorflow(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_imported_colocation_matches_tensorflow(tensorflow_results: dict, name: str) -> None:
    ours, theirs = run_webflow(PROGRAMS[name]), tensorflow_results[name]
    assert theirs.get("exported", theirs.get("colocated")), "TensorFlow's graph has colocated nodes: not empty"
    assert ours == theirs
