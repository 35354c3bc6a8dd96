"""Model configs as tf_keras writes them: `get_config` / `from_config` of Sequential and Functional models,
`model.to_json()` / `keras.models.model_from_json` (tf_keras reads webflow's JSON and the other way round).

    {"class_name": "Sequential", "config": {"name": ..., "layers": [{"module": "keras.layers",
     "class_name": "Dense", "config": {...}, "registered_name": null}, ...]}, "keras_version": ..., "backend": ...}

A Functional config lists every layer with its `inbound_nodes` (`[[["dense", 0, 0, {}]]]`: the layer, node and
tensor each call's inputs came from) and the model's `input_layers` / `output_layers`; rebuilding calls the
layers in that order on new Inputs. Each layer is rebuilt by `cls.from_config(layer.get_config())`, so a layer
round-trips as far as its get_config is complete. Subclassed models have no config (as in tf_keras).
"""

from __future__ import annotations

import inspect
import json
from typing import Any

KERAS_VERSION = "2.15.0"   # the tf_keras API webflow follows


def serialize_layer(layer: Any) -> dict:
    return {"module": "keras.layers", "class_name": type(layer).__name__, "config": layer_config(layer),
            "registered_name": None}


def layer_config(layer: Any) -> dict:
    """The layer's own get_config; for a layer that has none beyond Layer's (name, trainable, dtype), its
    constructor arguments read back from the attributes of the same names, in tf_keras's spelling."""
    from webflow.keras.base_layer import Layer
    config = layer.get_config()
    if type(layer).get_config is not Layer.get_config:
        return config
    for name in inspect.signature(type(layer).__init__).parameters:
        if name not in ("self", "args", "kwargs") and name not in config and name in vars(layer):
            config[name] = _plain(name, vars(layer)[name])
    return config


def _plain(name: str, value: Any) -> Any:
    from webflow.keras import activations, constraints, initializers, regularizers
    if name == "activation":
        return activations.serialize(value)
    if name.endswith("_initializer"):
        return initializers.serialize(value)
    if name.endswith("_regularizer"):
        return regularizers.serialize(value)
    if name.endswith("_constraint"):
        return constraints.serialize(value)
    if name == "padding" and isinstance(value, str):
        return value.lower()   # webflow keeps the op's "VALID"; tf_keras's config says "valid"
    if isinstance(value, tuple):
        return list(value)
    return value


def layer_class(class_name: str, custom_objects: Any = None) -> type:
    from webflow.keras import layers
    from webflow.keras.input_layer import InputLayer
    found = (custom_objects or {}).get(class_name) or getattr(layers, class_name, None)
    if found is None and class_name == "InputLayer":
        found = InputLayer
    if found is None:
        raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a `keras.utils."
                         "custom_object_scope` and that this object is included in the scope.")
    return found


def deserialize_layer(entry: dict, custom_objects: Any = None) -> Any:
    cls = layer_class(entry["class_name"], custom_objects)
    config = dict(entry["config"])
    if entry["class_name"] == "BatchNormalization" and isinstance(config.get("axis"), list) \
            and len(config["axis"]) == 1:
        config["axis"] = config["axis"][0]   # tf_keras writes [3]; webflow's layer takes one axis
    return cls.from_config(_accepted(cls, config))


def _accepted(cls: type, config: dict) -> dict:
    """The config without the keys neither the class nor Layer takes (newer tf_keras writes `optional` ...)."""
    from webflow.keras.base_layer import Layer
    names = set(inspect.signature(cls.__init__).parameters) | set(inspect.signature(Layer.__init__).parameters)
    names |= {"batch_input_shape", "input_shape", "batch_size", "input_dim"}   # Layer takes these as **kwargs
    if issubclass(cls, Layer) and cls.from_config.__func__ is Layer.from_config.__func__:
        return {key: value for key, value in config.items() if key in names}
    return config


# --- Sequential ------------------------------------------------------------------------------------------------
def sequential_config(model: Any) -> dict:
    entries = []
    if model._input_tensor is not None:
        entries.append(serialize_layer(model._input_tensor.node.layer))
    for layer in model.layers:
        entry = serialize_layer(layer)
        if not model._is_graph_network and layer._build_input_shape is not None:   # built on a dict of features
            entry["build_config"] = {"input_shape": _shape_json(layer._build_input_shape)}
        entries.append(entry)
    return {"name": model.name, "layers": entries}


def dict_build_config(model: Any) -> Any:
    """`{"input_shape": {feature: shape}}` for a Sequential built on a dict of features (None otherwise)."""
    layers = model.layers if model_class_name(model) == "Sequential" and not model._is_graph_network else []
    shape = layers[0]._build_input_shape if layers else None
    return {"input_shape": _shape_json(shape)} if isinstance(shape, dict) else None


def _shape_json(shape: Any) -> Any:
    if isinstance(shape, dict):
        return {key: _shape_json(value) for key, value in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and not isinstance(shape[0], (int, type(None))):
        return [_shape_json(item) for item in shape]
    return list(shape.as_list() if hasattr(shape, "as_list") else shape)


def sequential_from_config(cls: type, config: dict, custom_objects: Any = None) -> Any:
    model = cls(name=config.get("name"))
    for entry in config["layers"]:
        model.add(deserialize_layer(entry, custom_objects))
    if not model._is_graph_network:
        _build_from_configs(model, config["layers"])
    return model


def _build_from_configs(model: Any, entries: list) -> None:
    """A Sequential first called on a dict of features has no input shape: each layer is built on the
    `build_config` input shape tf_keras wrote, inside the model's scope (`sequential/dense/kernel:0`)."""
    from webflow.framework.tensor_shape import TensorShape
    from webflow.keras import backend
    configs = [entry.get("build_config") for entry in entries if entry["class_name"] != "InputLayer"]
    for layer, build in zip(model.layers, configs):
        shape = (build or {}).get("input_shape")
        if shape is None or layer.built:
            continue
        shape = {key: TensorShape(value) for key, value in shape.items()} if isinstance(shape, dict) \
            else TensorShape(shape)
        with backend.layer_name_scope(model.name), backend.layer_name_scope(layer.name):
            layer.build(shape)
        object.__setattr__(layer, "_build_input_shape", shape)
        layer.built = True


# --- Functional --------------------------------------------------------------------------------------------------
def _history(tensor: Any) -> list:
    return [tensor.node.layer.name, tensor.node.index, tensor.index]


def _structured(inputs: Any, describe: Any) -> Any:
    """A dict of inputs stays a dict of descriptions (tf_keras writes DenseFeatures' inputs so), else a list."""
    from webflow.keras.keras_tensor import flatten
    if isinstance(inputs, dict):
        return {key: describe(tensor) for key, tensor in inputs.items()}
    return [describe(tensor) for tensor in flatten(inputs)]


def _inbound(inputs: Any) -> Any:
    return _structured(inputs, lambda tensor: [*_history(tensor), {}])


def functional_config(model: Any) -> dict:
    entries = []
    for layer in model._graph_layers:
        nodes = [node for node in model._nodes if node.layer is layer]
        inbound = [_inbound(node.inputs) for node in nodes if node.inputs]
        entries.append({**serialize_layer(layer), "name": layer.name, "inbound_nodes": inbound})
    return {"name": model.name, "trainable": model.trainable, "layers": entries,
            "input_layers": _structured(model._input_structure, _history),
            "output_layers": [_history(tensor) for tensor in model.outputs]}


def functional_from_config(cls: type, config: dict, custom_objects: Any = None) -> Any:
    """New layers called in the config's order; a layer's later calls (shared layers) wait for their inputs."""
    layers = {entry["name"]: deserialize_layer(entry, custom_objects) for entry in config["layers"]}
    outputs: dict[tuple, Any] = {}   # (layer name, node index) -> that call's output(s)
    from webflow.keras.input_layer import InputLayer
    for name, layer in layers.items():
        if isinstance(layer, InputLayer):
            outputs[(name, 0)] = layer.output
    pending = [(entry["name"], index, node) for entry in config["layers"]
               for index, node in enumerate(entry["inbound_nodes"])]
    while pending:
        waiting = []
        for name, index, node in pending:
            sources = list(node.values()) if isinstance(node, dict) else node
            if all((source, node_index) in outputs for source, node_index, *_ in sources):
                inputs = [_pick(outputs[(source, node_index)], tensor_index)
                          for source, node_index, tensor_index, *_ in sources]
                if isinstance(node, dict):   # a layer called on a dict (DenseFeatures)
                    inputs = [dict(zip(node, inputs))]
                outputs[(name, index)] = layers[name](inputs[0] if len(inputs) == 1 else inputs)
            else:
                waiting.append((name, index, node))
        if len(waiting) == len(pending):
            raise ValueError(f"Cannot rebuild the model: layers {[w[0] for w in waiting]} wait on missing inputs.")
        pending = waiting
    input_layers = config["input_layers"]
    if isinstance(input_layers, dict):   # a dict of Inputs
        given = {key: _pick(outputs[(name, node)], tensor) for key, (name, node, tensor) in input_layers.items()}
        model_outputs = [_pick(outputs[(name, node)], tensor) for name, node, tensor in config["output_layers"]]
        return cls(given, model_outputs[0] if len(model_outputs) == 1 else model_outputs, name=config.get("name"))
    model_inputs = [_pick(outputs[(name, node)], tensor) for name, node, tensor in input_layers]
    model_outputs = [_pick(outputs[(name, node)], tensor) for name, node, tensor in config["output_layers"]]
    return cls(model_inputs[0] if len(model_inputs) == 1 else model_inputs,
               model_outputs[0] if len(model_outputs) == 1 else model_outputs, name=config.get("name"))


def _pick(output: Any, index: int) -> Any:
    return output[index] if isinstance(output, (list, tuple)) else output


# --- whole models -----------------------------------------------------------------------------------------------
def model_class_name(model: Any) -> str:
    if any(cls.__name__ == "Sequential" and cls.__module__ == "webflow.keras.sequential"
           for cls in type(model).__mro__):
        return "Sequential"
    if getattr(model, "_is_graph_network", False):
        return "Functional"
    raise NotImplementedError("Saving a subclassed model's config is not supported: override `get_config` (and "
                              "`from_config`), or save its weights with `save_weights`.")


def model_config(model: Any) -> dict:
    return sequential_config(model) if model_class_name(model) == "Sequential" else functional_config(model)


def model_from_config(config: dict, custom_objects: Any, model_class: type, sequential_class: type) -> Any:
    """`keras.models.model_from_config({"class_name": ..., "config": ...})` (models.py passes the two classes:
    this module sits below them)."""
    class_name = config["class_name"]
    custom = (custom_objects or {}).get(class_name)
    if class_name == "Sequential" or (custom is not None and issubclass(custom, sequential_class)):
        return sequential_from_config(custom or sequential_class, config["config"], custom_objects)
    if class_name in ("Functional", "Model") or custom is not None:
        return functional_from_config(custom or model_class, config["config"], custom_objects)
    raise ValueError(f"Unknown model class: '{class_name}'.")


def to_json(model: Any, **kwargs: Any) -> str:
    return json.dumps({"class_name": model_class_name(model), "config": model_config(model),
                       "keras_version": KERAS_VERSION, "backend": "tensorflow"}, **kwargs)


