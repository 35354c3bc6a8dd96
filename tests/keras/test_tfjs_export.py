"""`webflow.keras.tfjs_export.save_keras_model`: models exported in TensorFlow.js's layers format load with
`tf.loadLayersModel` in TensorFlow.js 4.22 (Node, cpu backend, an independent implementation: tests/keras/tfjs/,
installed by `make tfjs` = `npm ci`) and predict what webflow predicts. The files are checked against the format
itself: model.json's fields, shards of at most the given size whose bytes are the weights in manifest order."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import require_or_skip
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

from webflow import keras
from webflow.keras import tfjs_export

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tfjs")
TOLERANCE = 2e-5   # float32: the two engines sum in different orders


@pytest.fixture(autouse=True)
def fresh_layer_names():
    """Layer names count from dense, dense_1 ... in each test, whatever models this process made before."""
    keras.backend.clear_session()


@pytest.fixture(scope="module")
def tfjs_predict():
    if shutil.which("node") is None:
        pytest.skip("node is not installed: cannot run TensorFlow.js")
    if not os.path.isdir(os.path.join(HERE, "node_modules", "@tensorflow", "tfjs")):
        require_or_skip(f"@tensorflow/tfjs is not installed in {HERE} (make tfjs: npm ci there)")

    def predict(model_dir: str, inputs: list) -> dict:
        specs = [{"dtype": str(x.dtype), "shape": list(x.shape), "values": x.ravel().tolist()} for x in inputs]
        inputs_path = os.path.join(model_dir, "..", "inputs.json")
        with open(inputs_path, "w") as file:
            json.dump(specs, file)
        done = subprocess.run(["node", os.path.join(HERE, "predict.mjs"), model_dir, inputs_path],
                              capture_output=True, text=True, timeout=300, cwd=HERE)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout)
        result["outputs"] = [np.array(o["values"], np.float32).reshape(o["shape"]) for o in result["outputs"]]
        return result
    return predict


def _train(model: keras.Model, x, y, loss: str) -> None:
    model.compile(optimizer="adam", loss=loss)
    model.fit(x, y, epochs=2, batch_size=16, verbose=0)


def _same_predictions(model: keras.Model, inputs: list, tmp_path, tfjs_predict) -> dict:
    model_dir = str(tmp_path / "web_model")
    tfjs_export.save_keras_model(model, model_dir)
    result = tfjs_predict(model_dir, inputs)
    expected = model.predict(inputs[0] if len(inputs) == 1 else inputs, verbose=0)
    expected = expected if isinstance(expected, list) else [expected]
    assert len(result["outputs"]) == len(expected)
    for got, want in zip(result["outputs"], expected):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=TOLERANCE, atol=TOLERANCE)
    return result


def test_mlp_trained_predicts_the_same_in_tfjs(tmp_path, tfjs_predict):
    rng = np.random.RandomState(0)
    x, y = rng.rand(64, 20).astype(np.float32), rng.randint(0, 3, 64)
    model = keras.Sequential([keras.Input((20,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.3), keras.layers.Dense(3, activation="softmax")])
    _train(model, x, y, "sparse_categorical_crossentropy")
    result = _same_predictions(model, [x[:10]], tmp_path, tfjs_predict)
    assert result["weights"] == ["dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]


def test_cnn_trained_predicts_the_same_in_tfjs(tmp_path, tfjs_predict):
    rng = np.random.RandomState(1)
    x, y = rng.rand(32, 10, 10, 1).astype(np.float32), rng.randint(0, 4, 32)
    model = keras.Sequential([
        keras.layers.Conv2D(6, 3, activation="relu", padding="same", input_shape=(10, 10, 1)),
        keras.layers.BatchNormalization(), keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(4, 2, strides=2, activation="relu"), keras.layers.Flatten(),
        keras.layers.Dropout(0.25), keras.layers.Dense(4, activation="softmax")])
    _train(model, x, y, "sparse_categorical_crossentropy")
    moving_mean = model.layers[1].moving_mean.numpy()
    assert np.abs(moving_mean).max() > 0   # training moved the statistics tfjs must read (non-trainable weights)
    _same_predictions(model, [x[:8]], tmp_path, tfjs_predict)


def test_lstm_trained_predicts_the_same_in_tfjs(tmp_path, tfjs_predict):
    rng = np.random.RandomState(2)
    x, y = rng.randint(1, 30, size=(48, 9)).astype(np.int32), rng.rand(48, 1).astype(np.float32)
    model = keras.Sequential([keras.Input((9,), dtype="int32"), keras.layers.Embedding(30, 8),
                              keras.layers.LSTM(12), keras.layers.Dense(1)])
    _train(model, x, y, "mse")
    result = _same_predictions(model, [x[:6]], tmp_path, tfjs_predict)
    # the manifest says lstm/lstm_cell/kernel (tf_keras's name); tfjs finds it for its own lstm/kernel
    assert result["weights"][1:4] == ["lstm/kernel", "lstm/recurrent_kernel", "lstm/bias"]


def test_functional_two_inputs_two_outputs_shared_layer_and_recurrences(tmp_path, tfjs_predict):
    rng = np.random.RandomState(3)
    tokens = keras.Input((7,), dtype="int32", name="tokens")
    features = keras.Input((5,), name="features")
    embedded = keras.layers.Embedding(12, 4)(tokens)
    gru = keras.layers.GRU(3, reset_after=False)(embedded)   # tfjs has no reset_after=True GRU
    rnn = keras.layers.SimpleRNN(3, return_sequences=True)(embedded)
    shared = keras.layers.Dense(3, activation="tanh", name="shared")
    merged = keras.layers.Concatenate()([gru, keras.layers.Flatten()(rnn), shared(features)])
    first = keras.layers.Dense(2, name="first")(merged)
    second = keras.layers.Add(name="second")([shared(keras.layers.Dense(5)(gru)), gru])   # shared: 2nd call
    model = keras.Model([tokens, features], [first, second], name="two_heads")
    inputs = [rng.randint(0, 12, size=(4, 7)).astype(np.int32), rng.rand(4, 5).astype(np.float32)]
    _same_predictions(model, inputs, tmp_path, tfjs_predict)


def test_small_shards_are_split_and_still_load(tmp_path, tfjs_predict):
    model = keras.Sequential([keras.Input((30,)), keras.layers.Dense(40), keras.layers.Dense(7)])
    model_dir = str(tmp_path / "sharded")
    tfjs_export.save_keras_model(model, model_dir, weight_shard_size_bytes=1000)
    manifest = json.load(open(os.path.join(model_dir, "model.json")))
    paths = manifest["weightsManifest"][0]["paths"]
    total = (30 * 40 + 40 + 40 * 7 + 7) * 4
    assert paths == [f"group1-shard{i}of{len(paths)}.bin" for i in range(1, len(paths) + 1)]
    assert len(paths) == -(-total // 1000)
    assert [os.path.getsize(os.path.join(model_dir, p)) for p in paths] == [1000] * (len(paths) - 1) + [total % 1000]
    x = np.random.RandomState(4).rand(3, 30).astype(np.float32)
    got = tfjs_predict(model_dir, [x])["outputs"][0]
    np.testing.assert_allclose(got, model.predict(x, verbose=0), rtol=TOLERANCE, atol=TOLERANCE)


def test_model_json_follows_the_layers_format(tmp_path):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="out")])
    model_dir = str(tmp_path / "plain")
    tfjs_export.save_keras_model(model, model_dir, metadata={"lesson": 1})
    assert sorted(os.listdir(model_dir)) == ["group1-shard1of1.bin", "model.json"]   # no temporary files left
    manifest = json.load(open(os.path.join(model_dir, "model.json")))
    assert manifest["format"] == "layers-model"
    assert manifest["generatedBy"].startswith("keras v") and "convertedBy" in manifest
    assert manifest["modelTopology"] == json.loads(model.to_json())
    assert manifest["modelTopology"]["backend"] == "tensorflow" and "keras_version" in manifest["modelTopology"]
    assert manifest["userDefinedMetadata"] == {"lesson": 1}
    assert manifest["weightsManifest"] == [{"paths": ["group1-shard1of1.bin"], "weights": [
        {"name": "out/kernel", "shape": [3, 2], "dtype": "float32"},
        {"name": "out/bias", "shape": [2], "dtype": "float32"}]}]
    data = open(os.path.join(model_dir, "group1-shard1of1.bin"), "rb").read()
    kernel, bias = model.get_weights()
    assert data == kernel.astype("<f4").tobytes() + bias.astype("<f4").tobytes()


def test_subclassed_and_unbuilt_models_are_refused(tmp_path):
    class Tiny(keras.Model):
        def call(self, inputs):
            return inputs

    with pytest.raises(NotImplementedError, match="subclassed"):
        tfjs_export.save_keras_model(Tiny(), str(tmp_path / "a"))
    with pytest.raises(ValueError, match="not yet been built"):
        tfjs_export.save_keras_model(keras.Sequential([keras.layers.Dense(2)]), str(tmp_path / "b"))
    assert not os.path.exists(tmp_path / "a") and not os.path.exists(tmp_path / "b")


IMAGE_ZOO = """
inputs = keras.Input((8, 8, 3))
x = keras.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(inputs)
x = keras.layers.DepthwiseConv2D(3, depth_multiplier=2)(x)
x = keras.layers.SeparableConv2D(4, 3, activation="relu")(x)
x = keras.layers.LeakyReLU(0.2)(keras.layers.AveragePooling2D()(x))
x = keras.layers.Cropping2D(1)(keras.layers.ZeroPadding2D(1)(keras.layers.UpSampling2D()(x)))
x = keras.layers.LayerNormalization()(keras.layers.Activation("tanh")(x))
pooled = keras.layers.Concatenate()([keras.layers.GlobalAveragePooling2D()(x), keras.layers.GlobalMaxPooling2D()(x)])
outputs = keras.layers.Softmax()(keras.layers.ReLU()(keras.layers.Dense(5)(pooled)))
model = keras.Model(inputs, outputs)
"""
SEQUENCE_ZOO = """
tokens = keras.Input((6,), dtype="int32")
embedded = keras.layers.Embedding(9, 4)(tokens)
both = keras.layers.Bidirectional(keras.layers.LSTM(3, return_sequences=True))(embedded)
steps = keras.layers.TimeDistributed(keras.layers.Dense(2))(both)
conv = keras.layers.Conv1D(3, 2)(keras.layers.Reshape((6, 2))(keras.layers.Permute((2, 1))(steps)))
pooled = keras.layers.AveragePooling1D()(keras.layers.MaxPooling1D(1)(conv))
summary = keras.layers.Concatenate()([keras.layers.GlobalAveragePooling1D()(pooled),
                                      keras.layers.GlobalMaxPooling1D()(pooled),
                                      keras.layers.GRU(2, reset_after=False, go_backwards=True)(embedded)])
repeated = keras.layers.SimpleRNN(2)(keras.layers.RepeatVector(3)(summary))
other = keras.layers.Dense(2)(summary)
products = [layer()([repeated, other]) for layer in (keras.layers.Multiply, keras.layers.Average,
                                                     keras.layers.Maximum, keras.layers.Minimum)]
model = keras.Model(tokens, keras.layers.Concatenate()(products + [keras.layers.Dot(axes=1)([repeated, other])]))
"""
# Masks (tfjs 4.22 differs from tf_keras on masked steps of Bidirectional(return_sequences=True), and in a
# functional graph mixing a masked and an unmasked Embedding: both left out here, listed in tfjs_export.py).
MASKED = """
model = keras.Sequential([keras.Input((6,), dtype="int32"), keras.layers.Embedding(9, 4, mask_zero=True),
                          keras.layers.LSTM(3, return_sequences=True),
                          keras.layers.TimeDistributed(keras.layers.Dense(4)),
                          keras.layers.GRU(2, reset_after=False, go_backwards=True)])
"""


@pytest.mark.parametrize("source", [IMAGE_ZOO, SEQUENCE_ZOO, MASKED], ids=["image_layers", "sequence_layers", "masked"])
def test_more_layers_predict_the_same_in_tfjs(source, tmp_path, tfjs_predict):
    keras.backend.clear_session()
    scope = {"keras": keras}
    exec(source, scope)
    rng = np.random.RandomState(5)
    if "int32" in source:
        inputs = [np.array([[1, 2, 3, 0, 0, 0], [4, 5, 6, 7, 8, 0], [2, 2, 2, 2, 2, 2]], np.int32)]
    else:
        inputs = [rng.rand(3, 8, 8, 3).astype(np.float32)]
    _same_predictions(scope["model"], inputs, tmp_path, tfjs_predict)


# What tensorflowjs's own Python loader does with model.json: tf_keras rebuilds the topology and takes each weight
# by its manifest name - the names tf_keras gives its weights, without ":0", in the same order.
TF_KERAS_LOADS = """
import json, os
import numpy as np
import tf_keras as keras
manifest = json.load(open(os.path.join(MODEL_DIR, "model.json")))
model = keras.models.model_from_json(json.dumps(manifest["modelTopology"]))
group = manifest["weightsManifest"][0]
data = b"".join(open(os.path.join(MODEL_DIR, path), "rb").read() for path in group["paths"])
values, offset = {}, 0
for spec in group["weights"]:
    size = int(np.prod(spec["shape"])) * 4
    values[spec["name"]] = np.frombuffer(data[offset:offset + size], "<f4").reshape(spec["shape"])
    offset += size
names = [weight.name[:-2] for weight in model.weights]
model.set_weights([values[name] for name in names])
result = {"names": names, "predict": model.predict(np.load(INPUTS), verbose=0).tolist()}
"""


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
@pytest.mark.parametrize("source", [IMAGE_ZOO, SEQUENCE_ZOO, MASKED], ids=["image_layers", "sequence_layers", "masked"])
def test_tf_keras_reads_the_export_by_the_same_weight_names(source, tmp_path):
    keras.backend.clear_session()
    scope = {"keras": keras}
    exec(source, scope)
    model = scope["model"]
    x = (np.array([[1, 2, 3, 0, 0, 0], [4, 5, 6, 7, 8, 0]], np.int32) if "int32" in source
         else np.random.RandomState(6).rand(2, 8, 8, 3).astype(np.float32))
    tfjs_export.save_keras_model(model, str(tmp_path / "web_model"))
    np.save(tmp_path / "x.npy", x)
    result = run_oracle(f"MODEL_DIR = {str(tmp_path / 'web_model')!r}\nINPUTS = {str(tmp_path / 'x.npy')!r}\n"
                        + TF_KERAS_LOADS)
    manifest = json.load(open(tmp_path / "web_model" / "model.json"))
    assert result["names"] == [spec["name"] for spec in manifest["weightsManifest"][0]["weights"]]
    np.testing.assert_allclose(result["predict"], model.predict(x, verbose=0), rtol=TOLERANCE, atol=TOLERANCE)
