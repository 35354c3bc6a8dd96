"""TF1 SavedModels (saved_model/) both ways with real TensorFlow 2.21, and the builder's rules without it.

A small conv + dense classifier trained one Adam step (MODEL_SOURCE, the same source under both engines) is
exported by each engine with `simple_save` and with the Builder (tags `serve` and `train`, a predict and a
supervised-training signature, an asset file and a main op that reads the asset's path into a local variable, one
export in text format). With WEBFLOW_TF_PYTHON, one TensorFlow subprocess loads webflow's exports with
`tf.compat.v1.saved_model.loader.load` (and TF2's `tf.saved_model.load`, and `saved_model_cli show`) and runs
their signatures, writes its own exports (and a TF2 SavedModel, which webflow loads), and reports its error
messages; webflow loads those exports (TF1's loader and TF2's `wf.saved_model.load`), and restores and saves
through their sharded Saver ops. The oracle for outputs is the exporting engine; for the proto
fields, the layout and the variables' bytes, TensorFlow's own export of the same model; for errors, TensorFlow's
exception types and messages for the same directories.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result  # noqa: E402

import webflow as wf  # noqa: E402
import webflow.compat.v1 as tf  # noqa: E402

MODEL_SOURCE = r'''
def build_model(tf):
    images = tf.placeholder(tf.float32, [None, 6, 6, 1], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    kernel = tf.Variable(tf.truncated_normal([3, 3, 1, 4], stddev=0.3), name="conv/kernel")
    h = tf.reshape(tf.nn.relu(tf.nn.conv2d(images, kernel, [1, 1, 1, 1], "SAME")), [-1, 144])
    weights = tf.Variable(tf.truncated_normal([144, 3], stddev=0.1), name="dense/kernel")
    logits = tf.add(tf.matmul(h, weights), tf.Variable(tf.zeros([3]), name="dense/bias"), name="logits")
    probs = tf.nn.softmax(logits, name="probs")
    classes = tf.argmax(logits, 1, name="classes")
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits), name="loss")
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    return images, labels, probs, classes, loss, train


def data(seed):
    rng = np.random.default_rng(seed)
    return rng.random((5, 6, 6, 1), dtype="float32"), rng.integers(0, 3, 5)


def export_all(tf, sess, tensors, out, vocab):
    """simple_save to out/simple; the Builder (serve + train tags, asset, main op) to out/builder, and in
    text format to out/text."""
    images, labels, probs, classes, loss, train = tensors
    tf.saved_model.simple_save(sess, out + "/simple", {"images": images}, {"probs": probs, "classes": classes})
    for name, as_text in (("builder", False), ("text", True)):
        builder = tf.saved_model.builder.SavedModelBuilder(out + "/" + name)
        predict = tf.saved_model.signature_def_utils.predict_signature_def({"images": images}, {"probs": probs})
        train_signature = tf.saved_model.signature_def_utils.build_signature_def(
            {"images": tf.saved_model.utils.build_tensor_info(images),
             "labels": tf.saved_model.utils.build_tensor_info(labels)},
            {"loss": tf.saved_model.utils.build_tensor_info(loss)},
            "tensorflow/supervised/training")
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING], {"serving_default": predict},
            assets_collection=tf.get_collection("vocab_asset"),   # (the main op joins the graph's collection once)
            main_op=None if tf.get_collection("saved_model_main_op") else tf.get_collection("vocab_init")[0])
        builder.add_meta_graph([tf.saved_model.tag_constants.TRAINING], {"train": train_signature})
        builder.save(as_text=as_text)


def asset_graph(tf, vocab):
    """A string Const naming the vocabulary file, and a main op copying the path it is fed into a local variable."""
    asset = tf.constant(vocab, name="vocab_file")
    holder = tf.Variable("", trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="vocab_path")
    tf.add_to_collection("vocab_asset", asset)
    tf.add_to_collection("vocab_init", tf.assign(holder, asset, name="vocab_init").op)


def run_loaded(tf, sess, meta, images):
    """The serving signature's outputs on `images`, by the names in the SignatureDef."""
    signature = meta.signature_def["serving_default"]
    names = sorted(signature.outputs)
    values = sess.run([signature.outputs[k].name for k in names], {signature.inputs["images"].name: images})
    return {k: v.tolist() for k, v in zip(names, values)}


def describe(meta):
    """What saved_model_cli shows of a MetaGraphDef: tags, and per signature its method and tensor infos."""
    def info(t):
        return [t.name, t.dtype, [d.size for d in t.tensor_shape.dim]]
    return {"tags": list(meta.meta_info_def.tags),
            "signatures": {key: {"method": s.method_name, "inputs": {k: info(v) for k, v in s.inputs.items()},
                                 "outputs": {k: info(v) for k, v in s.outputs.items()}}
                           for key, s in meta.signature_def.items()}}
'''

_TF_SCRIPT = r'''
import json, os, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
job = json.load(sys.stdin)
exec(job["model_source"])
test_images, _ = data(2)
out = {"load": {}}

# 1. webflow's exports, loaded and run (the serving signature), the asset's path fed to the main op
for name, tags in (("simple", ["serve"]), ("builder", ["serve"]), ("text", ["serve"]), ("builder", ["train"])):
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, tags, job["wf"] + "/" + name)
        got = {"describe": describe(meta)}
        if tags == ["serve"]:
            got["outputs"] = run_loaded(tf, sess, meta, test_images)
        if name != "simple":
            got["vocab_path"] = sess.run("vocab_path:0").decode()
        out["load"][name + ":" + tags[0]] = got

# 2. TensorFlow's own exports of the same model, after one Adam step
with tf.Graph().as_default():
    tf.set_random_seed(5)
    tensors = build_model(tf)
    asset_graph(tf, job["vocab"])
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        images, labels = data(1)
        sess.run(tensors[-1], {tensors[0]: images, tensors[1]: labels})
        out["tf_outputs"] = {"classes": sess.run(tensors[3], {tensors[0]: test_images}).tolist(),
                             "probs": sess.run(tensors[2], {tensors[0]: test_images}).tolist()}
        export_all(tf, sess, tensors, job["tf"], job["vocab"])

# 3. TensorFlow's errors for a directory without a SavedModel and for tags it does not hold
for key, (tags, directory) in {"no_model": (["serve"], job["empty"]),
                               "bad_tags": (["serve", "gpu"], job["wf"] + "/simple")}.items():
    try:
        with tf.Graph().as_default(), tf.Session() as sess:
            tf.saved_model.loader.load(sess, tags, directory)
        out[key] = None
    except Exception as error:
        out[key] = [type(error).__name__, str(error)]
import subprocess   # 4. TensorFlow's saved_model_cli on webflow's export
cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
out["cli"] = subprocess.run([cli, "show", "--dir", job["wf"] + "/simple", "--all"], capture_output=True,
                            text=True).stdout
tf2_program = ("import json, sys, numpy as np, tensorflow as tf\n"   # 5. TF2's tf.saved_model.load of it, eager
               "f = tf.saved_model.load(sys.argv[1]).signatures['serving_default']\n"
               "got = f(images=tf.constant(np.array(json.loads(sys.argv[2]), np.float32)))\n"
               "m = tf.Module(); m.v = tf.Variable(2.0)\n"   # and a TF2 SavedModel, which webflow loads
               "m.f = tf.function(lambda x: x * m.v, input_signature=[tf.TensorSpec([], tf.float32)])\n"
               "tf.saved_model.save(m, sys.argv[3])\n"
               "print('RESULT:' + json.dumps({k: v.numpy().tolist() for k, v in got.items()}))")
tf2 = subprocess.run([sys.executable, "-c", tf2_program, job["wf"] + "/simple", json.dumps(test_images.tolist()),
                      job["tf"] + "/tf2"], capture_output=True, text=True)
out["tf2_outputs"] = json.loads([x for x in tf2.stdout.splitlines() if x.startswith("RESULT:")][-1][7:])
out["contains"] = [tf.saved_model.contains_saved_model(job["wf"] + "/simple"),
                   tf.saved_model.contains_saved_model(job["empty"])]
print("RESULT:" + json.dumps(out))
'''

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
_scope: dict = {"np": np}
exec(MODEL_SOURCE, _scope)
build_model, data, export_all, asset_graph = (_scope[k] for k in ("build_model", "data", "export_all", "asset_graph"))
run_loaded, describe = _scope["run_loaded"], _scope["describe"]


def webflow_exports(out: str, vocab: str) -> dict:
    """webflow's model after one Adam step, exported the three ways; returns its outputs on the test batch."""
    with tf.Graph().as_default():
        tf.set_random_seed(4)
        tensors = build_model(tf)
        asset_graph(tf, vocab)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            images, labels = data(1)
            sess.run(tensors[-1], {tensors[0]: images, tensors[1]: labels})
            test_images = data(2)[0]
            outputs = {"classes": sess.run(tensors[3], {tensors[0]: test_images}).tolist(),
                       "probs": sess.run(tensors[2], {tensors[0]: test_images}).tolist()}
            export_all(tf, sess, tensors, out, vocab)
    return outputs


@pytest.fixture(scope="module")
def exchange(tmp_path_factory):
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    root = tmp_path_factory.mktemp("saved_models")
    vocab = root / "vocab.txt"
    vocab.write_text("cat\ndog\nbird\n")
    for name in ("wf", "tf", "empty"):
        os.makedirs(root / name)
    result = {"root": str(root), "wf_outputs": webflow_exports(str(root / "wf"), str(vocab))}
    job = {"model_source": MODEL_SOURCE, "wf": str(root / "wf"), "tf": str(root / "tf"),
           "empty": str(root / "empty"), "vocab": str(vocab)}
    result["tf"] = child_result(_TF_SCRIPT, json.dumps(job))
    return result


def assert_outputs(got: dict, want: dict) -> None:
    """The signature's outputs (probs; classes too for simple_save's) equal the exporting engine's."""
    assert set(got) in ({"probs"}, {"probs", "classes"})
    if "classes" in got:
        assert got["classes"] == want["classes"]
    np.testing.assert_allclose(got["probs"], want["probs"], rtol=1e-5, atol=1e-6)


def load_in_webflow(export_dir: str, tags: list) -> dict:
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, tags, export_dir)
        got = {"describe": describe(meta)}
        if "serve" in tags:
            got["outputs"] = run_loaded(tf, sess, meta, data(2)[0])
        if "saved_model_main_op" in meta.collection_def:   # (simple_save's exports have no main op)
            got["vocab_path"] = sess.run("vocab_path:0").decode()
    return got


@needs_tf
@pytest.mark.parametrize("name", ["simple", "builder", "text"])
def test_tensorflow_loads_webflow_saved_model_and_runs_its_signature(exchange, name) -> None:
    loaded = exchange["tf"]["load"][f"{name}:serve"]
    assert_outputs(loaded["outputs"], exchange["wf_outputs"])
    if name != "simple":   # the main op ran with the asset's path inside the SavedModel fed
        assert loaded["vocab_path"] == os.path.join(exchange["root"], "wf", name, "assets", "vocab.txt")


@needs_tf
@pytest.mark.parametrize("name", ["simple", "builder", "text"])
def test_webflow_loads_tensorflow_saved_model_and_runs_its_signature(exchange, name) -> None:
    loaded = load_in_webflow(os.path.join(exchange["root"], "tf", name), ["serve"])
    assert_outputs(loaded["outputs"], exchange["tf"]["tf_outputs"])
    if name != "simple":
        assert loaded["vocab_path"] == os.path.join(exchange["root"], "tf", name, "assets", "vocab.txt")


@needs_tf
@pytest.mark.parametrize("key", ["simple:serve", "builder:serve", "builder:train"])
def test_signatures_and_tags_are_tensorflow_s(exchange, key) -> None:
    """saved_model_cli's view (tags; per signature the method name and each tensor's name, dtype, shape) of
    webflow's export, read by TensorFlow, equals that of TensorFlow's own export of the same model, read by
    webflow."""
    name, tag = key.split(":")
    theirs = load_in_webflow(os.path.join(exchange["root"], "tf", name), [tag])["describe"]
    assert exchange["tf"]["load"][key]["describe"] == theirs
    assert theirs["signatures"]  # (the comparison is not vacuous)


@needs_tf
def test_tensorflow2_loads_webflow_saved_model_eagerly(exchange) -> None:
    """TF2's `tf.saved_model.load` (a TF1 SavedModel wrapped as a function) calls webflow's signature."""
    assert_outputs(exchange["tf"]["tf2_outputs"], exchange["wf_outputs"])


@needs_tf
def test_saved_model_cli_reads_webflow_export(exchange) -> None:
    cli = exchange["tf"]["cli"]
    for line in ("MetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:",
                 "signature_def['serving_default']:", "inputs['images'] tensor_info:", "shape: (-1, 6, 6, 1)",
                 "name: images:0", "outputs['classes'] tensor_info:", "dtype: DT_INT64", "name: classes:0",
                 "outputs['probs'] tensor_info:", "shape: (-1, 3)", "Method name is: tensorflow/serving/predict"):
        assert line in cli, line


@needs_tf
def test_layout_is_tensorflow_s(exchange) -> None:
    def files(top: str) -> list:
        return sorted(os.path.relpath(os.path.join(d, f), top) for d, _, names in os.walk(top) for f in names)

    for name in ("simple", "builder", "text"):
        assert files(os.path.join(exchange["root"], "wf", name)) == files(os.path.join(exchange["root"], "tf", name))
    assert files(os.path.join(exchange["root"], "wf", "builder")) == [
        "assets/vocab.txt", "saved_model.pb", "variables/variables.data-00000-of-00001", "variables/variables.index"]
    assert not [n for n in os.listdir(os.path.join(exchange["root"], "wf")) if n.startswith(".")]   # no staging left


@needs_tf
def test_errors_are_tensorflow_s(exchange) -> None:
    tf_side = exchange["tf"]
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(OSError) as no_model:
            tf.saved_model.loader.load(sess, ["serve"], os.path.join(exchange["root"], "empty"))
        with pytest.raises(RuntimeError) as bad_tags:
            tf.saved_model.loader.load(sess, ["serve", "gpu"], os.path.join(exchange["root"], "wf", "simple"))
    assert tf_side["no_model"] == ["OSError", str(no_model.value)]
    assert tf_side["bad_tags"][0] == "RuntimeError"
    # (a set's printed order is Python's hash order in each process: compare the rest, and the set's items)
    assert tf_side["bad_tags"][1].replace("'gpu', 'serve'", "'serve', 'gpu'") == str(bad_tags.value)
    assert tf_side["contains"] == [True, False]
    assert [tf.saved_model.contains_saved_model(os.path.join(exchange["root"], n)) for n in ("wf/simple", "empty")] \
        == [True, False]


# --- webflow alone ------------------------------------------------------------------------------------------------
def _tiny_graph():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0], [-2.0]], name="w")
    return x, tf.matmul(x, w, name="y")


def test_builder_is_atomic_and_round_trips(tmp_path) -> None:
    export_dir = tmp_path / "model"
    with tf.Graph().as_default():
        x, y = _tiny_graph()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder = tf.saved_model.Builder(str(export_dir))
            assert os.listdir(export_dir) == []   # created empty, as TensorFlow's
            builder.add_meta_graph_and_variables(sess, ["serve"], {
                "serving_default": tf.saved_model.predict_signature_def({"x": x}, {"y": y})})
            assert os.listdir(export_dir) == []   # variables are staged, not yet published
            assert not tf.saved_model.contains_saved_model(str(export_dir))
            path = builder.save()
    assert path == os.path.join(str(export_dir), "saved_model.pb").encode()
    assert sorted(os.listdir(tmp_path)) == ["model"]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], str(export_dir))
        signature = meta.signature_def["serving_default"]
        assert signature.method_name == "tensorflow/serving/predict"
        got = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: [[3.0, 1.0]]})
    np.testing.assert_array_equal(got, [[1.0]])


def test_builder_errors(tmp_path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "full"))
    with tf.Graph().as_default():
        x, y = _tiny_graph()
        builder = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "new"))
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["serve"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            signature = tf.saved_model.predict_signature_def({"x": x}, {"y": y})
            with pytest.raises(KeyError, match="__saved_model_init_op"):
                builder.add_meta_graph_and_variables(sess, ["serve"], {"__saved_model_init_op": signature})
            with pytest.raises(AssertionError, match="dtype field set"):
                builder.add_meta_graph_and_variables(sess, ["serve"], {"s": tf.saved_model.build_signature_def(
                    {"x": wf.compat.v1.saved_model.utils.build_tensor_info_from_op(x.op)})})
            builder.add_meta_graph_and_variables(sess, ["serve"])
            with pytest.raises(AssertionError, match="already been saved"):
                builder.add_meta_graph_and_variables(sess, ["train"])


def test_signature_utilities() -> None:
    with tf.Graph().as_default():
        x, y = _tiny_graph()
        serialized = tf.placeholder(tf.string, [None], name="examples")
        with pytest.raises(ValueError, match="Prediction `inputs` cannot be None or empty."):
            tf.saved_model.predict_signature_def({}, {"y": y})
        info = tf.saved_model.build_tensor_info(x)
        assert (info.name, info.dtype, [d.size for d in info.tensor_shape.dim]) == ("x:0", 1, [-1, 2])
        assert tf.saved_model.get_tensor_from_tensor_info(info) is x
        classify = tf.saved_model.classification_signature_def(serialized, None, tf.reshape(y, [-1]))
        assert classify.method_name == "tensorflow/serving/classify"
        assert tf.saved_model.is_valid_signature(classify)
        assert not tf.saved_model.is_valid_signature(tf.saved_model.build_signature_def({"i": info}, {},
                                                                                       "tensorflow/serving/predict"))
        with pytest.raises(ValueError, match="Regression input tensors must be of type string"):
            tf.saved_model.regression_signature_def(x, y)
    with pytest.raises(RuntimeError, match="not supported in eager execution"):
        wf.compat.v1.saved_model.utils.build_tensor_info(wf.constant(1.0))
    assert (wf.saved_model.SERVING, wf.saved_model.PREDICT_METHOD_NAME) == ("serve", "tensorflow/serving/predict")


@needs_tf
def test_resave_through_tensorflow_sharded_saver_is_byte_identical(exchange, tmp_path) -> None:
    """The MetaGraphDef of TensorFlow's export holds a sharded Saver (StringJoin, ShardedFilename, SaveV2,
    MergeV2Checkpoints ...): webflow restores through it, saves through it, and writes TensorFlow's bytes."""
    from webflow.saved_model import loader

    export_dir = os.path.join(exchange["root"], "tf", "builder")
    meta = loader.meta_graph_def_from_tags(loader.parse_saved_model(export_dir), ["serve"])
    assert meta.saver_def.sharded
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(meta)
        assert {"MergeV2Checkpoints", "ShardedFilename", "StringJoin"} <= {
            op.type for op in tf.get_default_graph().get_operations()}
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(export_dir, "variables", "variables"))
            prefix = saver.save(sess, str(tmp_path / "variables"), write_meta_graph=False, write_state=False)
    assert sorted(os.listdir(tmp_path)) == ["variables.data-00000-of-00001", "variables.index"]   # temp dir gone
    for suffix in (".index", ".data-00000-of-00001"):
        with open(os.path.join(export_dir, "variables", "variables" + suffix), "rb") as theirs, \
                open(prefix + suffix, "rb") as ours:
            assert ours.read() == theirs.read(), suffix


@needs_tf
def test_webflow_reexports_tensorflow_saved_model_with_tensorflow_s_variable_bytes(exchange, tmp_path) -> None:
    """TensorFlow's simple_save export loaded into webflow and exported again by webflow's Builder: the signature
    carried over, the variables files byte for byte TensorFlow's (one shard, the same index)."""
    source = os.path.join(exchange["root"], "tf", "simple")
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], source)
        builder = tf.saved_model.Builder(str(tmp_path / "again"))
        builder.add_meta_graph_and_variables(sess, ["serve"], dict(meta.signature_def))
        builder.save()
    assert load_in_webflow(str(tmp_path / "again"), ["serve"])["outputs"]["probs"] == \
        load_in_webflow(source, ["serve"])["outputs"]["probs"]
    for suffix in (".index", ".data-00000-of-00001"):
        with open(os.path.join(source, "variables", "variables" + suffix), "rb") as theirs, \
                open(tmp_path / "again" / "variables" / ("variables" + suffix), "rb") as ours:
            assert ours.read() == theirs.read(), suffix


@needs_tf
@pytest.mark.parametrize("engine", ["wf", "tf"])
def test_tf2_style_load_calls_signatures_eagerly(exchange, engine) -> None:
    """`wf.saved_model.load` of a TF1 SavedModel (either engine's simple_save): the serving signature is a function
    of keyword arguments returning EagerTensors, as TensorFlow's tf.saved_model.load wraps it."""
    model = wf.saved_model.load(os.path.join(exchange["root"], engine, "simple"))
    got = model.signatures["serving_default"](images=wf.constant(data(2)[0]))
    assert sorted(got) == ["classes", "probs"] and got["classes"].dtype == wf.int64
    want = exchange["wf_outputs"] if engine == "wf" else exchange["tf"]["tf_outputs"]
    assert_outputs({k: v.numpy().tolist() for k, v in got.items()}, want)
    assert sorted(v.op.name for v in model.variables)[:3] == ["beta1_power", "beta2_power", "conv/kernel"]
    with pytest.raises(TypeError, match="takes the keyword arguments"):
        model.signatures["serving_default"](x=data(2)[0])
    with pytest.raises(ValueError, match="requires a `tags=` argument if there is more than one MetaGraph"):
        wf.saved_model.load(os.path.join(exchange["root"], engine, "builder"))
    train = wf.saved_model.load(os.path.join(exchange["root"], engine, "builder"), tags=["train"])
    images, labels = data(1)
    assert train.signatures["train"](images=images, labels=labels)["loss"].shape == []


@needs_tf
def test_tf2_saved_model_of_tensorflow_loads(exchange) -> None:
    """(TF2 SavedModels both ways in detail: tests/saved_model/test_saved_model_v2.py.)"""
    loaded = wf.saved_model.load(os.path.join(exchange["root"], "tf", "tf2"))
    assert float(loaded.f(3.0)) == 6.0 and float(loaded.v.numpy()) == 2.0
