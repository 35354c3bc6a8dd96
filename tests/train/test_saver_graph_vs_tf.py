"""The Saver's save/ nodes cross over to TensorFlow 2.21: TensorFlow imports webflow's `.meta` (plain and sharded
Savers), finds the SaverDef naming webflow's nodes, restores webflow's checkpoint by running `save/restore_all`
and saves a new one by running webflow's `save/SaveV2` (and, sharded, `save/MergeV2Checkpoints`); webflow reads
that checkpoint back."""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

IN_TENSORFLOW = r'''
import os
folder = {folder!r}
saver = tf.train.import_meta_graph(os.path.join(folder, "model-7.meta"))
d = saver.saver_def
graph = tf.get_default_graph()
with tf.Session() as sess:
    saver.restore(sess, os.path.join(folder, "model-7"))
    restored = {{name: sess.run(name + ":0") for name in ("w", "b", "global_step")}}
    sess.run(tf.assign(graph.get_tensor_by_name("w:0"), [[9.0, 8.0], [7.0, 6.0]]))
    written = saver.save(sess, os.path.join(folder, "by_tensorflow"), write_meta_graph=False)
result = {{"saver_def": [d.filename_tensor_name, d.save_tensor_name, d.restore_op_name, d.sharded],
          "restored": restored, "written": os.path.basename(written)}}
'''


def _write(folder: str, sharded: bool) -> None:
    with tf.Graph().as_default():
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        b = tf.Variable([0.5, -0.5], dtype=tf.float64, name="b")
        step = tf.train.get_or_create_global_step()
        saver = tf.train.Saver(sharded=sharded)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([w.assign(w * 2.0), b.assign([1.5, 2.5]), step.assign(7)])
            saver.save(sess, os.path.join(folder, "model"), global_step=step)


@pytest.mark.parametrize("sharded", [False, True], ids=["plain", "sharded"])
def test_tensorflow_runs_webflow_save_nodes(sharded: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        _write(folder, sharded)
        result = run_tensorflow({"run": IN_TENSORFLOW.format(folder=folder)})["run"]
        save_tensor = "save/Identity:0" if sharded else "save/control_dependency:0"
        assert result["saver_def"] == ["save/Const:0", save_tensor, "save/restore_all", sharded]
        assert result["restored"] == {"w": [[2.0, 4.0], [6.0, 8.0]], "b": [1.5, 2.5], "global_step": 7}
        assert result["written"] == "by_tensorflow"
        prefix = os.path.join(folder, "by_tensorflow")
        assert sorted(name for name, _ in tf.train.list_variables(prefix)) == ["b", "global_step", "w"]
        np.testing.assert_array_equal(tf.train.load_variable(prefix, "w"), [[9.0, 8.0], [7.0, 6.0]])
        assert not any(name.endswith("_temp") for name in os.listdir(folder))   # the shard folder merged away


# The save/ NodeDefs of a graph: name, op, inputs (control inputs sorted: TensorFlow's GraphDef lists them by
# name, webflow's in the order they were added), device and every attr, the colocation attr `_class` included.
# Left out: `_has_manual_control_dependencies`, which TensorFlow's Graph.control_dependencies puts on every op used
# as a control input anywhere in a graph (an MLIR-bridge usage counter), not the Saver's doing.
SAVE_NODES = r"""
result = []
for node in tf.get_default_graph().as_graph_def().node:
    if node.name.startswith(("save/", "save_1/")):
        attrs = {key: str(node.attr[key]).replace("\n", " ") for key in sorted(node.attr)
                 if key != "_has_manual_control_dependencies"}
        inputs = [i for i in node.input if not i.startswith("^")] + sorted(i for i in node.input if i.startswith("^"))
        result.append([node.name, node.op, inputs, node.device, attrs])
"""

VARIABLES = r"""
v = tf.Variable([1.0, 2.0], name="v")
with tf.variable_scope("s"):
    w = tf.get_variable("w", [2, 3], dtype=tf.float64, initializer=tf.zeros_initializer())
step = tf.train.get_or_create_global_step()
"""

PROGRAMS = {
    "plain": VARIABLES + "saver = tf.train.Saver()\n",
    "sharded": VARIABLES + "saver = tf.train.Saver(sharded=True)\n",
    "reshape": VARIABLES + "saver = tf.train.Saver(reshape=True)\n",
    # a dict var_list under other checkpoint names, and a second Saver (scope save_1) of a subset
    "renamed": VARIABLES + "saver = tf.train.Saver({'model/weights': w, 'a_vector': v, 'step': step})\n"
                           "second = tf.train.Saver([v], sharded=True)\n",
    "unknown_shape": "u = tf.Variable(tf.placeholder_with_default([1, 2, 3], [None]), validate_shape=False, name='u')\n"
                     "saver = tf.train.Saver()\n",
}


@pytest.fixture(scope="module")
def their_nodes() -> dict:
    return run_tensorflow({key: source + SAVE_NODES for key, source in PROGRAMS.items()})


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_save_node_defs_as_tensorflow(program: str, their_nodes: dict) -> None:
    """Each save/ NodeDef as TensorFlow writes it, node for node."""
    scope: dict = {"tf": tf}
    with tf.Graph().as_default():
        exec(PROGRAMS[program] + SAVE_NODES, scope)
    mine, theirs = scope["result"], their_nodes[program]
    assert [node[0] for node in mine] == [node[0] for node in theirs]
    for their_node, my_node in zip(theirs, mine):
        assert my_node == their_node
    assert any("_class" in node[4] for node in theirs)   # the colocation attrs are compared


OPTIMIZER_SLOTS = VARIABLES + "tf.train.AdamOptimizer().minimize(tf.reduce_sum(v * v), global_step=step)\n" \
                              "saver = tf.train.Saver()\n"


def test_optimizer_slot_restores_colocate_with_their_variable() -> None:
    """Slots (v/Adam) and beta powers are made under colocate_with(v), so their restore Assigns carry `loc:@v`."""
    theirs = run_tensorflow({"slots": OPTIMIZER_SLOTS + SAVE_NODES})["slots"]
    scope: dict = {"tf": tf}
    with tf.Graph().as_default():
        exec(OPTIMIZER_SLOTS + SAVE_NODES, scope)
    assert scope["result"] == theirs
