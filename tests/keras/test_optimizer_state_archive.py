"""A compiled model's `.keras` archive keeps its compile arguments and its optimizer's variables, both ways with
tf_keras (oracle venv): `load_model` gives a compiled model whose `fit` continues exactly as if it had not been
saved. Checked per optimizer: the stored variables (iterations, then the slots in tf_keras's order) equal the
other library's, and the continued training curves equal the unsaved run's."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

from webflow import keras

RNG = np.random.RandomState(11)
X = RNG.rand(96, 4).astype(np.float32)
Y = RNG.randint(0, 3, 96).astype(np.int64)

MODELS = {
    "sequential": """
model = keras.Sequential([keras.layers.Dense(5, activation="tanh", input_shape=(4,)), keras.layers.Dense(3)])
""",
    # two branches and a BatchNormalization (whose moving statistics are not trainable: not in the optimizer)
    "functional": """
inputs = keras.Input((4,))
a = keras.layers.Dense(5, activation="relu")(inputs)
b = keras.layers.BatchNormalization()(keras.layers.Dense(5)(inputs))
model = keras.Model(inputs, keras.layers.Dense(3)(keras.layers.Concatenate()([a, b])))
"""}

COMPILE = """
keras.backend.clear_session()
{model}
model.set_weights([np.random.RandomState(5 + i).randn(*w.shape).astype(np.float32) * 0.5
                   for i, w in enumerate(model.get_weights())])
model.compile({optimizer}, keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
"""

# case -> (model, optimizer)
OPTIMIZERS = {"adam": ("sequential", "keras.optimizers.Adam(0.02)"),
              "amsgrad": ("sequential", "keras.optimizers.Adam(0.02, amsgrad=True)"),
              "sgd": ("sequential", "keras.optimizers.SGD(0.1, momentum=0.9)"),
              "rmsprop": ("sequential", "keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True)"),
              "adagrad": ("sequential", "keras.optimizers.Adagrad(0.1)"),
              "functional_adam": ("functional", "keras.optimizers.Adam(0.02)"),
              # tf_keras saves the inner optimizer's variables (the loss scale starts again from initial_scale)
              "loss_scale_sgd": ("sequential",
                                 "keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1, momentum=0.9))")}


def _source(case: str) -> str:
    kind, optimizer = OPTIMIZERS[case]
    return COMPILE.format(model=MODELS[kind], optimizer=optimizer)

FIT = "model.fit(x_data, y_data, batch_size=32, epochs=2, shuffle=False, verbose=0).history"


def _compiled(case: str) -> keras.Model:
    scope = {"keras": keras, "np": np}
    exec(_source(case), scope)
    return scope["model"]


def _fit(model: keras.Model) -> dict:
    return model.fit(X, Y, batch_size=32, epochs=2, shuffle=False, verbose=0).history


def _optimizer_values(model: keras.Model) -> list:
    from webflow.keras import optimizers_state
    return [v.numpy().tolist() for v in optimizers_state.optimizer_state(model.optimizer, model.trainable_weights)]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_load_model_continues_training_as_if_not_saved(name: str, tmp_path: object) -> None:
    model = _compiled(name)
    _fit(model)
    model.save(tmp_path / "m.keras")
    continued = _fit(model)
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert type(loaded.optimizer) is type(model.optimizer) and int(loaded.optimizer.iterations.numpy()) == 6
    assert _fit(loaded) == continued


def test_an_unstepped_optimizer_is_saved_as_its_iterations_alone(tmp_path: object) -> None:
    import zipfile

    import h5py
    model = _compiled("adam")
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as archive:
        (tmp_path / "w.h5").write_bytes(archive.read("model.weights.h5"))
    with h5py.File(tmp_path / "w.h5") as file:
        assert list(file["optimizer/vars"]) == ["0"]
    loaded = keras.models.load_model(tmp_path / "m.keras")
    assert loaded.optimizer.get_config()["learning_rate"] == pytest.approx(0.02)
    assert _fit(loaded) == _fit(model)


def test_load_model_without_compile_gives_an_uncompiled_model(tmp_path: object) -> None:
    model = _compiled("sgd")
    _fit(model)
    model.save(tmp_path / "m.keras")
    assert keras.models.load_model(tmp_path / "m.keras", compile=False).optimizer is None


@pytest.fixture(scope="module")
def exchanged(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """webflow's archives (saved after 2 epochs) and its continued curves; tf_keras's archives and curves, and what
    tf_keras reads from webflow's archives: the optimizer variables and the continued curves."""
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    folder = tmp_path_factory.mktemp("archives")
    np.save(folder / "x.npy", X)
    np.save(folder / "y.npy", Y)
    ours = {}
    oracle = ["import numpy as np, tensorflow as tf\nkeras = tf.keras\nresult = {}\n",
              f"x_data, y_data = np.load({str(folder / 'x.npy')!r}), np.load({str(folder / 'y.npy')!r})\n"]
    for name in OPTIMIZERS:
        model = _compiled(name)
        _fit(model)
        model.save(folder / f"wf_{name}.keras")
        ours[name] = {"state": _optimizer_values(model), "continued": _fit(model)}
        oracle.append(f"""
loaded = keras.models.load_model({str(folder / f'wf_{name}.keras')!r})
state = [v.numpy().tolist() for v in loaded.optimizer.variables]
model = loaded
from_webflow = {{"state": state, "continued": {FIT}}}
{_source(name)}
{FIT}
model.save({str(folder / f'tf_{name}.keras')!r})
state = [v.numpy().tolist() for v in model.optimizer.variables]
result[{name!r}] = {{"from_webflow": from_webflow, "state": state, "continued": {FIT}}}
""")
    return folder, ours, run_oracle("".join(oracle))


def _assert_close(actual: list, expected: list, rtol: float) -> None:
    assert len(actual) == len(expected)
    for mine, reference in zip(actual, expected):
        np.testing.assert_allclose(np.asarray(mine, np.float64), np.asarray(reference, np.float64), rtol=rtol,
                                   atol=rtol * 1e-2)


def _assert_curves(actual: dict, expected: dict) -> None:
    assert sorted(actual) == sorted(expected)
    for key in expected:
        np.testing.assert_allclose(actual[key], expected[key], rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_tf_keras_reads_webflows_optimizer_state(name: str, exchanged: tuple) -> None:
    _, ours, theirs = exchanged
    read = theirs[name]["from_webflow"]
    _assert_close(read["state"], ours[name]["state"], rtol=0.0)   # the same values, in the same order
    _assert_curves(read["continued"], ours[name]["continued"])


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_webflow_reads_tf_keras_optimizer_state(name: str, exchanged: tuple) -> None:
    folder, _, theirs = exchanged
    loaded = keras.models.load_model(folder / f"tf_{name}.keras")
    assert type(loaded.optimizer).__name__ == type(_compiled(name).optimizer).__name__
    _assert_close(_optimizer_values(loaded), theirs[name]["state"], rtol=0.0)
    _assert_curves(_fit(loaded), theirs[name]["continued"])


def test_a_compile_config_webflow_cannot_follow_leaves_the_loaded_model_uncompiled(tmp_path: object) -> None:
    import json
    import zipfile
    model = _compiled("sgd")
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(files["config.json"])
    config["compile_config"]["metrics"] = ["no_such_metric"]
    files["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "edited.keras", "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    with pytest.warns(UserWarning, match="loaded but not compiled"):
        loaded = keras.models.load_model(tmp_path / "edited.keras")
    assert loaded.optimizer is None
    np.testing.assert_array_equal(loaded.predict(X[:4], verbose=0), model.predict(X[:4], verbose=0))
