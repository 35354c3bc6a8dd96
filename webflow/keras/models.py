"""`keras.models`: Model and Sequential; `model_from_config` / `model_from_json` (saving.py), `load_model` /
`save_model` (the `.keras` archive, saving_archive.py)."""

from __future__ import annotations

import json
from typing import Any

from webflow.keras import saving, saving_archive
from webflow.keras.model import Model
from webflow.keras.saving_archive import save_model
from webflow.keras.sequential import Sequential


def model_from_config(config: dict, custom_objects: Any = None) -> Model:
    return saving.model_from_config(config, custom_objects, Model, Sequential)


def model_from_json(json_string: str, custom_objects: Any = None) -> Model:
    return model_from_config(json.loads(json_string), custom_objects)


def load_model(filepath: Any, custom_objects: Any = None, compile: bool = True,  # noqa: A002 - tf_keras's name
               safe_mode: bool = True) -> Model:
    """A model saved by `model.save("m.keras")` (webflow's or tf_keras's): rebuilt from config.json, then its
    weights set from model.weights.h5; with `compile`, compiled as saved, with its optimizer's state."""
    config, weights = saving_archive.read_archive(filepath)
    model = model_from_config(config, custom_objects)
    saving_archive.load_weights_h5(model, weights)
    if compile:
        saving_archive.load_compiled_state(model, config, weights)
    return model


__all__ = ["Model", "Sequential", "model_from_config", "model_from_json", "load_model", "save_model"]
