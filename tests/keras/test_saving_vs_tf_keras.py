"""Whole-model persistence: get_config / from_config, to_json / model_from_json, model.save / load_model (.keras
archive: config.json + model.weights.h5). Round trips in webflow give the same predictions; tf_keras (oracle venv)
loads webflow's archive and JSON with the same predictions, and webflow loads tf_keras's archive."""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

from webflow import keras

pytest.importorskip("h5py")

SEQUENTIAL = """
model = keras.Sequential([keras.layers.Flatten(input_shape=(6, 6, 1)), keras.layers.Dense(7, activation="relu"),
                          keras.layers.Dropout(0.2), keras.layers.Dense(3, activation="softmax")])
"""
FUNCTIONAL = """
inputs = keras.Input((6, 6, 1), name="image")
x = keras.layers.Conv2D(4, 3, activation="relu", padding="same")(inputs)
x = keras.layers.MaxPooling2D()(x)
x = keras.layers.BatchNormalization()(x)
flat = keras.layers.Flatten()(x)
a = keras.layers.Dense(5, activation="tanh", name="a")(flat)
b = keras.layers.Dense(5, name="b")(flat)
outputs = keras.layers.Dense(2, name="out")(keras.layers.Add()([a, b]))
model = keras.Model(inputs, outputs, name="two_paths")
"""
MODELS = {"sequential": SEQUENTIAL, "functional": FUNCTIONAL}
X = np.random.RandomState(0).rand(4, 6, 6, 1).astype(np.float32)


def _build(source: str) -> keras.Model:
    keras.backend.clear_session()
    scope = {"keras": keras}
    exec(source, scope)
    model = scope["model"]
    rng = np.random.RandomState(1)
    model.set_weights([rng.randn(*w.shape).astype(np.float32) * 0.5 + (1.0 if "variance" in w.name else 0.0)
                       for w in model.weights])
    return model


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_round_trips_in_webflow(kind: str, tmp_path: object) -> None:
    model = _build(MODELS[kind])
    expected = model.predict(X, verbose=0)
    rebuilt = type(model).from_config(model.get_config())
    rebuilt.set_weights(model.get_weights())
    from_json = keras.models.model_from_json(model.to_json())
    from_json.set_weights(model.get_weights())
    path = tmp_path / f"{kind}.keras"
    model.save(path)
    loaded = keras.models.load_model(path)
    for other in (rebuilt, from_json, loaded):
        assert [layer.name for layer in other.layers] == [layer.name for layer in model.layers]
        np.testing.assert_array_equal(other.predict(X, verbose=0), expected)
    assert json.loads(json.dumps(loaded.get_config())) == json.loads(json.dumps(model.get_config()))


def test_a_subclassed_model_has_no_config() -> None:
    class Mine(keras.Model):
        def call(self, inputs: object) -> object:
            return inputs

    with pytest.raises(NotImplementedError, match="subclassed"):
        Mine().to_json()


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_tf_keras_loads_webflow_models_and_webflow_loads_tf_keras_models(tmp_path: object) -> None:
    ours, oracle = {}, ["import numpy as np, tensorflow as tf\nkeras = tf.keras\nresult = {}\n",
                        f"x_data = np.load({str(tmp_path / 'x.npy')!r})\n"]
    np.save(tmp_path / "x.npy", X)
    for kind, source in MODELS.items():
        model = _build(source)
        ours[kind] = model.predict(X, verbose=0)
        model.save(tmp_path / f"wf_{kind}.keras")
        (tmp_path / f"wf_{kind}.json").write_text(model.to_json())
        np.savez(tmp_path / f"wf_{kind}.npz", *model.get_weights())
        oracle.append(f"""
loaded = keras.models.load_model({str(tmp_path / f'wf_{kind}.keras')!r})
from_json = keras.models.model_from_json(open({str(tmp_path / f'wf_{kind}.json')!r}).read())
weights = np.load({str(tmp_path / f'wf_{kind}.npz')!r})
from_json.set_weights([weights[f"arr_{{i}}"] for i in range(len(weights.files))])
result["{kind}"] = {{"loaded": loaded.predict(x_data, verbose=0), "json": from_json.predict(x_data, verbose=0),
                    "names": [layer.name for layer in loaded.layers]}}
keras.backend.clear_session()
{source}
rng = np.random.RandomState(2)
model.set_weights([rng.randn(*w.shape).astype(np.float32) * 0.5 + (1.0 if "variance" in w.name else 0.0)
                   for w in model.weights])
model.save({str(tmp_path / f'tf_{kind}.keras')!r})
result["{kind}"]["tf_predict"] = model.predict(x_data, verbose=0)
""")
    oracle.append("result = json.loads(json.dumps(result, default=lambda v: np.asarray(v).tolist()))\nimport json\n")
    oracle[-1] = "import json\n" + oracle[-1]
    theirs = run_oracle("".join(oracle))
    for kind in MODELS:
        model = _build(MODELS[kind])
        assert theirs[kind]["names"] == [layer.name for layer in model.layers]
        np.testing.assert_allclose(theirs[kind]["loaded"], ours[kind], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(theirs[kind]["json"], ours[kind], rtol=1e-5, atol=1e-6)
        loaded = keras.models.load_model(tmp_path / f"tf_{kind}.keras")
        np.testing.assert_allclose(loaded.predict(X, verbose=0), theirs[kind]["tf_predict"], rtol=1e-5, atol=1e-6)
