"""What `model.save("m.keras")` keeps of `compile`: the archive's `compile_config` (config.json) and the optimizer's
variables (`optimizer/vars/<i>` in model.weights.h5), as tf_keras writes and reads them.

    "compile_config": {"optimizer": {"module": "keras.optimizers", "class_name": "Adam", "config": {...}},
                       "loss": "mse" | {"module": "keras.losses", ...}, "metrics": ["mae"], "loss_weights": null, ...}

`load_model` compiles the model from it and puts the optimizer's iterations and slots back, so that `fit`
continues exactly where the saved model stopped (optimizers_state.py lists the variables in tf_keras's order).
"""

from __future__ import annotations

import inspect
from typing import Any

from webflow.keras import losses as losses_module
from webflow.keras import metrics as metrics_module
from webflow.keras import optimizers as optimizers_module
from webflow.keras import optimizers_state
from webflow.keras.loss_scale_optimizer import LossScaleOptimizer

_OTHER_ARGUMENTS = ("loss_weights", "weighted_metrics", "run_eagerly", "steps_per_execution", "jit_compile")


def compile_config(model: Any) -> dict | None:
    """tf_keras's `model.get_compile_config()`: the compile arguments, serialized; None if not compiled."""
    arguments = model.__dict__.get("_compile_arguments")
    if arguments is None or model.optimizer is None:
        return None
    metrics = arguments.get("metrics")
    config = {"optimizer": _serialize_optimizer(model.optimizer), "loss": _serialize(arguments["loss"], "keras.losses"),
              "metrics": None if metrics is None else [_serialize(metric, "keras.metrics") for metric in metrics]}
    config.update({name: arguments.get(name) for name in _OTHER_ARGUMENTS})
    return config


def compile_from_config(model: Any, config: dict) -> None:
    """`model.compile(...)` with the arguments of a saved compile_config."""
    metrics = config.get("metrics")
    metrics = None if metrics is None else [_deserialize(metric, metrics_module) for metric in metrics]
    loss = _deserialize(config.get("loss"), losses_module)
    losses_module.get(loss)   # an unknown name fails here, before compile has changed the model
    for metric in metrics or []:
        metrics_module.get(metric)
    model.compile(optimizer=_deserialize_optimizer(config["optimizer"]), loss=loss, metrics=metrics)


# tf_keras writes its mixed-precision wrapper under the name of its third version
_LOSS_SCALE_ENTRY = {"module": "tf_keras.src.mixed_precision.loss_scale_optimizer",
                     "class_name": "LossScaleOptimizerV3", "registered_name": "LossScaleOptimizerV3"}


def _serialize_optimizer(optimizer: Any) -> dict:
    if isinstance(optimizer, LossScaleOptimizer):
        return {**_LOSS_SCALE_ENTRY, "config": optimizer.get_config()}
    return optimizers_module.serialize(optimizer)


def _deserialize_optimizer(config: dict) -> Any:
    if config.get("class_name") in ("LossScaleOptimizer", "LossScaleOptimizerV3"):
        return LossScaleOptimizer.from_config(config["config"])
    return optimizers_module.deserialize(config)


def optimizer_values(model: Any) -> list | None:
    """The optimizer's variables' values in tf_keras's order; None when there is no state tf_keras could read."""
    if model.optimizer is None:
        return None
    try:
        state = optimizers_state.optimizer_state(model.optimizer, model.trainable_weights)
    except ValueError:   # an optimizer whose tf_keras layout webflow does not know: its state is not saved
        return None
    return [variable.numpy() for variable in state]


def set_optimizer_values(model: Any, values: list) -> None:
    optimizers_state.set_optimizer_state(model.optimizer, model.trainable_weights, values)


def _serialize(identifier: Any, module: str) -> Any:
    """A name stays a name; an object becomes {"module", "class_name", "config", "registered_name"}."""
    if identifier is None or isinstance(identifier, (str, dict)):
        return identifier
    if isinstance(identifier, (list, tuple)):
        return [_serialize(item, module) for item in identifier]
    if inspect.isfunction(identifier):   # a loss or metric function: compile finds it again by its name
        return identifier.__name__
    if hasattr(identifier, "get_config"):
        config = identifier.get_config()
    elif isinstance(identifier, losses_module.Loss):
        config = {"reduction": identifier.reduction, "name": identifier.name, **identifier.options}
    else:
        config = {"name": getattr(identifier, "name", None), "dtype": "float32"}
    return {"module": module, "class_name": type(identifier).__name__, "config": config, "registered_name": None}


def _deserialize(identifier: Any, module: Any) -> Any:
    """A name stays a name (compile resolves it); a dict becomes an instance of the class it names."""
    if not isinstance(identifier, dict):
        return identifier
    cls = getattr(module, identifier["class_name"], None)
    if not isinstance(cls, type):
        raise ValueError(f"Could not interpret {module.__name__.rsplit('.', 1)[-1]} identifier: {identifier}")
    accepted = inspect.signature(cls.__init__).parameters
    config = identifier.get("config") or {}
    return cls(**{key: value for key, value in config.items() if key in accepted})


__all__ = ["compile_config", "compile_from_config", "optimizer_values", "set_optimizer_values"]
