"""`tf.train.export_meta_graph` / `import_meta_graph` (train/meta_graph*.py) both ways with real TensorFlow 2.21.

One Deep-MNIST-style CNN (conv, max-pool, dense, dropout, softmax cross-entropy, Adam), built by the same source
under both engines (CNN_SOURCE), with collections of every kind: train_op, summaries, a user's tensors, ints,
floats, bytes. With WEBFLOW_TF_PYTHON, one TensorFlow subprocess for the module
- imports webflow's `.meta` (webflow's Saver: no SaverDef), restores webflow's checkpoint, runs `logits:0` on a
  fixed batch, then one more Adam step through the imported `train_op`, and reports the collections;
- builds, trains and saves the CNN itself (TensorFlow's Saver: save/SaveV2, save/RestoreV2, save/restore_all
  and a SaverDef in the `.meta`; also a text-format `.meta`), with the logits before and after one more step.
webflow then does the same with TensorFlow's files: same logits, same step, the collections; the SaverDef's
restore op run by name; a re-save through TensorFlow's SaveV2 op byte-identical to TensorFlow's checkpoint.
The oracle for every number is the other engine; for the collections, what the building program put there.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402

CNN_SOURCE = r'''
def build_cnn(tf):
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")
    keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")

    def weight(shape, name):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1), name=name)

    h = tf.reshape(x, [-1, 28, 28, 1])
    h = tf.nn.relu(tf.nn.conv2d(h, weight([5, 5, 1, 8], "conv1/kernel"), [1, 1, 1, 1], "SAME")
                   + weight([8], "conv1/bias"))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 14 * 14 * 8]), weight([1568, 32], "fc1/kernel"))
                   + weight([32], "fc1/bias"))
    h = tf.nn.dropout(h, keep_prob)
    logits = tf.add(tf.matmul(h, weight([32, 10], "fc2/kernel")), weight([10], "fc2/bias"), name="logits")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits), name="loss")
    step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(1e-3).minimize(loss, global_step=step, name="train")
    # (minimize puts train_op in the "train_op" collection itself, in both engines)
    tf.add_to_collection("my_logits", logits)
    for value in (3, -7):
        tf.add_to_collection("my_ints", value)
    tf.add_to_collection("my_floats", 0.5)
    tf.add_to_collection("my_bytes", b"hello")
    tf.summary.scalar("loss_summary", loss)
    return train_op


def batch(seed):
    rng = np.random.default_rng(seed)
    return rng.random((4, 784), dtype="float32"), np.eye(10, dtype="float32")[rng.integers(0, 10, 4)]


def collections(tf):
    names = lambda key: [getattr(item, "name", item) for item in tf.get_collection(key)]
    return {"trainable": [v.op.name for v in tf.trainable_variables()],
            "globals": sorted(v.op.name for v in tf.global_variables()),
            "train_op": names("train_op"), "my_logits": names("my_logits"), "summaries": names("summaries"),
            "my_ints": tf.get_collection("my_ints"), "my_floats": tf.get_collection("my_floats"),
            "my_bytes": [b.decode() for b in tf.get_collection("my_bytes")],
            "global_step": tf.train.get_global_step().op.name}
'''

_TF_SCRIPT = r'''
import json, os, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
job = json.load(sys.stdin)
exec(job["cnn_source"])
images, labels = batch(1)
test_images, _ = batch(2)
out = {}

# 1. webflow's .meta (no SaverDef) and checkpoint
with tf.Graph().as_default():
    saver = tf.train.import_meta_graph(job["wf_prefix"] + ".meta")
    out["wf_collections"] = collections(tf)
    with tf.Session() as sess:
        saver.restore(sess, job["wf_prefix"])
        out["wf_logits"] = sess.run("logits:0", {"x:0": test_images}).tolist()
        sess.run(tf.get_collection("train_op"), {"x:0": images, "labels:0": labels})
        out["wf_logits_after"] = sess.run("logits:0", {"x:0": test_images}).tolist()

# 2. TensorFlow's own: a Saver with ops, a SaverDef, every collection; a text .meta too
with tf.Graph().as_default():
    tf.set_random_seed(3)
    train_op = build_cnn(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, {"x:0": images, "labels:0": labels})
        saver = tf.train.Saver()
        out["tf_prefix"] = saver.save(sess, job["tf_dir"] + "/model", global_step=1)
        tf.train.export_meta_graph(job["tf_dir"] + "/text.meta", as_text=True, saver_def=saver.as_saver_def())
        out["tf_collections"] = collections(tf)
        out["tf_logits"] = sess.run("logits:0", {"x:0": test_images}).tolist()
        sess.run(train_op, {"x:0": images, "labels:0": labels})
        out["tf_logits_after"] = sess.run("logits:0", {"x:0": test_images}).tolist()
print("RESULT:" + json.dumps(out))
'''

EXPECTED_COLLECTIONS = {"train_op": ["train"], "my_logits": ["logits:0"], "my_ints": [3, -7], "my_floats": [0.5],
                        "my_bytes": ["hello"], "summaries": ["loss_summary:0"], "global_step": "global_step"}
needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
_scope: dict = {"np": np}
exec(CNN_SOURCE, _scope)
build_cnn, batch, collections = _scope["build_cnn"], _scope["batch"], _scope["collections"]


def logits_of(sess, name: str = "logits:0", x_name: str = "x:0") -> np.ndarray:
    return sess.run(name, {x_name: batch(2)[0]})


def train_step(sess) -> None:
    images, labels = batch(1)
    sess.run(tf.get_collection("train_op"), {"x:0": images, "labels:0": labels})


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    """webflow's trained CNN saved (+ its logits before and after one more step), then TensorFlow's run."""
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    out = tmp_path_factory.mktemp("meta")
    result = {"tf_dir": str(out / "tf")}
    os.makedirs(out / "wf")
    os.makedirs(out / "tf")
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        build_cnn(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            train_step(sess)
            result["wf_prefix"] = tf.train.Saver().save(sess, str(out / "wf" / "model"), global_step=1)
            result["wf_logits"] = logits_of(sess)
            train_step(sess)
            result["wf_logits_after"] = logits_of(sess)
            result["wf_collections"] = collections(tf)
    job = {"cnn_source": CNN_SOURCE, "wf_prefix": result["wf_prefix"], "tf_dir": result["tf_dir"]}
    result["tf"] = child_result(_TF_SCRIPT, json.dumps(job))
    return result


def _expected_collections(got: dict) -> None:
    for key, value in EXPECTED_COLLECTIONS.items():
        assert got[key] == value, key


@needs_tf
def test_tensorflow_imports_webflow_meta_graph(exchange) -> None:
    """TF's import_meta_graph rebuilds webflow's CNN, its variables and collections; after restoring webflow's
    checkpoint it gives webflow's logits, and one Adam step through the imported train_op gives webflow's next."""
    tf_side = exchange["tf"]
    assert tf_side["wf_collections"]["trainable"] == exchange["wf_collections"]["trainable"]
    assert tf_side["wf_collections"]["globals"] == exchange["wf_collections"]["globals"]
    _expected_collections(tf_side["wf_collections"])
    np.testing.assert_allclose(tf_side["wf_logits"], exchange["wf_logits"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(tf_side["wf_logits_after"], exchange["wf_logits_after"], rtol=1e-4, atol=1e-4)


@needs_tf
def test_webflow_imports_tensorflow_meta_graph_and_restores_through_its_saver_def(exchange) -> None:
    tf_side = exchange["tf"]
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(tf_side["tf_prefix"] + ".meta")
        assert saver.saver_def.restore_op_name == "save/restore_all"
        assert saver.saver_def.filename_tensor_name == "save/Const:0"
        got = collections(tf)
        assert got["trainable"] == tf_side["tf_collections"]["trainable"]
        assert got["globals"] == tf_side["tf_collections"]["globals"]
        _expected_collections(got)
        with tf.Session() as sess:
            saver.restore(sess, tf_side["tf_prefix"])
            np.testing.assert_allclose(logits_of(sess), tf_side["tf_logits"], rtol=1e-5, atol=1e-5)
            train_step(sess)
            np.testing.assert_allclose(logits_of(sess), tf_side["tf_logits_after"], rtol=1e-4, atol=1e-4)
        with tf.Session() as sess:   # TensorFlow's restore op, run by name with the prefix fed
            sess.run("save/restore_all", {"save/Const:0": tf_side["tf_prefix"]})
            np.testing.assert_allclose(logits_of(sess), tf_side["tf_logits"], rtol=1e-5, atol=1e-5)


@needs_tf
def test_resave_through_tensorflow_save_op_is_byte_identical(exchange, tmp_path) -> None:
    """Restored, then saved again by TensorFlow's own SaveV2 op (run by webflow): the same bytes TensorFlow wrote,
    and the .meta written beside them keeps the SaverDef."""
    tf_side = exchange["tf"]
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(tf_side["tf_prefix"] + ".meta")
        with tf.Session() as sess:
            saver.restore(sess, tf_side["tf_prefix"])
            prefix = saver.save(sess, str(tmp_path / "again"))
    assert prefix == str(tmp_path / "again")
    for suffix in (".index", ".data-00000-of-00001"):
        with open(tf_side["tf_prefix"] + suffix, "rb") as theirs, open(prefix + suffix, "rb") as ours:
            assert ours.read() == theirs.read(), suffix
    meta = tf.train.import_meta_graph  # the .meta webflow wrote imports again, with the same SaverDef
    with tf.Graph().as_default():
        assert meta(prefix + ".meta").saver_def.save_tensor_name == "save/control_dependency:0"


@needs_tf
def test_text_meta_graph_and_import_scope(exchange) -> None:
    tf_side = exchange["tf"]
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(os.path.join(exchange["tf_dir"], "text.meta"), import_scope="imported")
        assert saver.saver_def.restore_op_name == "imported/save/restore_all"
        assert tf.get_collection("my_logits")[0].name == "imported/logits:0"
        assert tf.trainable_variables()[0].op.name == "imported/conv1/kernel"
        with tf.Session() as sess:
            saver.restore(sess, tf_side["tf_prefix"])
            got = logits_of(sess, "imported/logits:0", "imported/x:0")
    np.testing.assert_allclose(got, tf_side["tf_logits"], rtol=1e-5, atol=1e-5)


# --- webflow alone ------------------------------------------------------------------------------------------------
def test_export_import_round_trip_in_webflow(tmp_path) -> None:
    """export_meta_graph (text and binary) then import_meta_graph into a new graph: the collections come back,
    variables are Variables again (one object in both variable collections), the webflow Saver restores."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        build_cnn(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = tf.train.Saver().save(sess, str(tmp_path / "model"), write_meta_graph=False)
            want = logits_of(sess)
        for as_text in (False, True):
            meta = tf.train.export_meta_graph(str(tmp_path / f"m{as_text}.meta"), as_text=as_text)
            assert sorted(meta.collection_def) == sorted(
                ["global_step", "my_bytes", "my_floats", "my_ints", "my_logits", "summaries", "train_op",
                 "trainable_variables", "variables"])
            assert len(meta.collection_def["global_step"].bytes_list.value) == 1   # a VariableDef, as TensorFlow
            assert meta.collection_def["my_ints"].int64_list.value == [3, -7]
            assert not meta.HasField("saver_def")
    for as_text in (False, True):
        with tf.Graph().as_default():
            saver = tf.train.import_meta_graph(str(tmp_path / f"m{as_text}.meta"))
            _expected_collections(collections(tf))
            assert set(tf.trainable_variables()) <= set(tf.global_variables())
            assert tf.trainable_variables()[0].initializer.type == "Assign"
            with tf.Session() as sess:
                saver.restore(sess, prefix)
                np.testing.assert_array_equal(logits_of(sess), want)
            with tf.Session() as sess:   # the rebuilt variables' initializers run too
                sess.run(tf.global_variables_initializer())
                train_step(sess)


def test_import_meta_graph_errors(tmp_path) -> None:
    (tmp_path / "junk.meta").write_bytes(b"\xff\xfe not a protocol buffer {")
    with tf.Graph().as_default():
        with pytest.raises(OSError, match="does not exist"):
            tf.train.import_meta_graph(str(tmp_path / "missing.meta"))
        with pytest.raises(OSError, match="Cannot parse file"):
            tf.train.import_meta_graph(str(tmp_path / "junk.meta"))
    if tf.executing_eagerly():   # (this module leaves TF2 behaviour on: eagerly there is no graph, as in TensorFlow)
        with pytest.raises(RuntimeError, match="not supported when eager execution is enabled"):
            tf.train.export_meta_graph()
    with tf.Graph().as_default():   # no variables, no SaverDef: no Saver
        tf.constant(1.0, name="c")
        meta = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        assert tf.train.import_meta_graph(meta) is None
        assert tf.get_default_graph().get_operation_by_name("c").type == "Const"


def test_saver_from_saver_def_runs_the_graph_s_ops(tmp_path) -> None:
    """A Saver(saver_def=...) over save/restore ops built by hand as TensorFlow's Saver builds them: save and
    restore run those ops; restore errors carry TensorFlow's explanation (checked without TensorFlow)."""
    from webflow.io import checkpoint_bundle, checkpoint_ops
    from webflow.protos import saver_pb2

    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.name_scope("save"):
            prefix = tf.placeholder_with_default("model", [], name="Const")
            saved = checkpoint_ops.save_v2(prefix, ["v"], [""], [v], name="SaveV2")
            with tf.control_dependencies([saved]):
                tf.identity(prefix, name="control_dependency")
            restored = checkpoint_ops.restore_v2(prefix, ["v"], [""], [tf.float32], name="RestoreV2")
            tf.group(tf.assign(v, restored[0], name="Assign"), name="restore_all")
        saver = tf.train.Saver(saver_def=saver_pb2.SaverDef(
            filename_tensor_name="save/Const:0", save_tensor_name="save/control_dependency:0",
            restore_op_name="save/restore_all", version=saver_pb2.SaverDef.V2))
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, str(tmp_path / "model"), global_step=2)
            assert path == str(tmp_path / "model-2") and tf.train.latest_checkpoint(str(tmp_path)) == path
            sess.run(tf.assign(v, [5.0, 6.0]))
            saver.restore(sess, path)
            assert sess.run(v).tolist() == [1.0, 2.0]
            checkpoint_bundle.write_bundle(str(tmp_path / "other"), [("w", np.zeros(2, np.float32))])
            with pytest.raises(tf.errors.NotFoundError, match="(?s)due to a Variable name or other graph key that "
                                                               "is missing.*Key v not found in checkpoint"):
                saver.restore(sess, str(tmp_path / "other"))
            checkpoint_bundle.write_bundle(str(tmp_path / "wide"), [("v", np.zeros(3, np.float32))])
            with pytest.raises(tf.errors.InvalidArgumentError, match="(?s)due to a mismatch between the current "
                                                                      "graph.*Assign requires shapes"):
                saver.restore(sess, str(tmp_path / "wide"))
