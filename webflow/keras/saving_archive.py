"""`model.save("model.keras")` / `keras.models.load_model("model.keras")`: tf_keras's `.keras` zip archive.

    model.keras = zip{ metadata.json   {"keras_version", "date_saved"}
                       config.json     {"module": "keras", "class_name", "config", "registered_name"}  (saving.py)
                       model.weights.h5  /layers/<dense, dense_1 ...>/vars/<0, 1 ...>  each layer's weights in order }

tf_keras loads webflow's archive and the other way round. The weights file is HDF5, written and read with h5py
(an optional dependency: `pip install h5py`, imported only here). A compiled model also keeps its compile
arguments (config.json's compile_config) and its optimizer's variables (optimizer/vars/<i>: saving_compile.py), so
that the loaded model is compiled and `fit` continues where it stopped. Layers whose weights live in nested
sublayers (RNN cells, wrappers) are stored flat, which webflow reads back but tf_keras does not.
"""

from __future__ import annotations

import io
import json
import os
import tempfile
import time
import warnings
import zipfile
from typing import Any

from webflow.keras import backend, saving, saving_compile


def _h5py() -> Any:
    try:
        import h5py
    except ImportError:
        raise ImportError("`model.save(... .keras)` and `load_model` need h5py for the weights file: "
                          "pip install h5py (or use model.save_weights, TensorFlow's checkpoint format)") from None
    return h5py


def _weights_h5(model: Any) -> bytes:
    h5py = _h5py()
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as file:
        layers = file.create_group("layers")
        for key, layer in _saved_layers(model):
            group = layers.create_group(key).create_group("vars")
            for index, weight in enumerate(layer.weights):
                group.create_dataset(str(index), data=weight.numpy())
        file.create_group("vars")
        state = saving_compile.optimizer_values(model)
        if state is not None:   # as tf_keras: optimizer/vars/0 is `iterations`, then the slots
            group = file.create_group("optimizer").create_group("vars")
            for index, value in enumerate(state):
                group.create_dataset(str(index), data=value)
    return buffer.getvalue()


def _saved_layers(model: Any) -> list:
    """(group name, layer) in model.layers order; as tf_keras names them: the snake-case class name, numbered
    from the second of a class on (`dense`, `dense_1` ...), whatever the layers' own names."""
    layers = model.layers if saving.model_class_name(model) == "Sequential" else list(model._graph_layers)
    named, counts = [], {}
    for layer in layers:
        base = backend.to_snake_case(type(layer).__name__)
        count = counts.get(base, 0)
        counts[base] = count + 1
        named.append((base if count == 0 else f"{base}_{count}", layer))
    return named


def save_model(model: Any, filepath: Any, overwrite: bool = True) -> None:
    filepath = os.fspath(filepath)
    if not filepath.endswith(".keras"):
        raise ValueError("webflow saves whole models in the `.keras` format only: give a path ending in `.keras` "
                         f"(received: filepath={filepath}); use save_weights for TensorFlow checkpoints.")
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(filepath)
    config = {"module": "keras", "class_name": saving.model_class_name(model), "config": saving.model_config(model),
              "registered_name": None}
    if config["class_name"] == "Functional":   # where tf_keras finds the class (it writes the same)
        config.update(module="tf_keras.src.engine.functional", registered_name="Functional")
    built_on = saving.dict_build_config(model)
    if built_on is not None:   # a Sequential built on a dict of features: tf_keras builds it from this
        config["build_config"] = built_on
    compiled = saving_compile.compile_config(model)
    if compiled is not None:
        config["compile_config"] = compiled
    metadata = {"keras_version": saving.KERAS_VERSION, "date_saved": time.strftime("%Y-%m-%d@%H:%M:%S")}
    folder = os.path.dirname(os.path.abspath(filepath))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".keras.tmp")
    os.close(handle)
    try:   # written beside the target, then renamed: never a half-written archive
        with zipfile.ZipFile(temporary, "w") as archive:
            archive.writestr("metadata.json", json.dumps(metadata))
            archive.writestr("config.json", json.dumps(config))
            archive.writestr("model.weights.h5", _weights_h5(model))
        os.replace(temporary, filepath)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def read_archive(filepath: Any) -> tuple:
    """(the model's config dict, the weights file's bytes) of a `.keras` archive."""
    filepath = os.fspath(filepath)
    if not zipfile.is_zipfile(filepath):
        raise ValueError(f"webflow loads `.keras` archives only; {filepath} is not one (TF checkpoints load with "
                         "model.load_weights, SavedModels with tf.saved_model.load).")
    with zipfile.ZipFile(filepath) as archive:
        config = json.loads(archive.read("config.json"))
        if "model.weights.h5" not in archive.namelist():   # tf_keras's answer (webflow reads no .npz weights)
            raise ValueError("Expected a model.weights.h5 or model.weights.npz file.")
        return config, archive.read("model.weights.h5")


def load_weights_h5(model: Any, data: bytes) -> None:
    h5py = _h5py()
    with _open_h5(h5py, data) as file:
        for key, layer in _saved_layers(model):
            group = file["layers"].get(key)
            stored = [] if group is None else _stored_weights(h5py, group)
            if len(stored) != len(layer.weights):
                raise ValueError(f"Layer '{layer.name}' expected {len(layer.weights)} variables, but received "
                                 f"{len(stored)} variables during loading. Expected: "
                                 f"{[w.name for w in layer.weights]}")
            if stored:
                layer.set_weights(stored)


def _stored_weights(h5py: Any, group: Any) -> list:
    """The arrays of one layer's `vars` group, in order."""
    found = group["vars"]
    items = [found[str(i)] for i in range(len(found))] if isinstance(found, h5py.Group) else None
    if items is None or not all(isinstance(item, h5py.Dataset) for item in items):
        # a damaged file (found by tools/fuzz_table.py): tf_keras says ValueError there too
        raise ValueError(f"Damaged weights file: {found.name} is not a group of variables")
    return [item[()] for item in items]


def _open_h5(h5py: Any, data: bytes) -> Any:
    try:
        return h5py.File(io.BytesIO(data), "r")
    except OverflowError as error:   # h5py's in-memory file driver on a forged offset (found by tools/fuzz_table.py)
        raise OSError(f"Unable to synchronously open file (damaged weights file: {error})") from None


def load_compiled_state(model: Any, config: dict, data: bytes) -> None:
    """`load_model(compile=True)`: compiles `model` as the archive's compile_config says and restores its optimizer's
    variables (tf_keras does the same; an archive without them gives a fresh optimizer)."""
    if not config.get("compile_config"):
        return
    try:
        saving_compile.compile_from_config(model, config["compile_config"])
    except ValueError as error:   # a loss or metric webflow does not have: the weights are still good
        warnings.warn(f"The model was loaded but not compiled: {error} Compile it yourself.", stacklevel=3)
        return
    with _open_h5(_h5py(), data) as file:
        group = file.get("optimizer/vars")
        if group is not None and len(group):
            saving_compile.set_optimizer_values(model, [group[str(i)][()] for i in range(len(group))])
