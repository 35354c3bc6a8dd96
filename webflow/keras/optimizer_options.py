"""What every tf_keras optimizer does around its update rule (Keras >= 2.11's `Optimizer` base):

    1. clip the gradients: `clipnorm` (each by its own norm), else `global_clipnorm` (all by their joint norm),
       else `clipvalue` (each element into [-clipvalue, clipvalue]) - the first one set wins, as tf_keras does;
    2. decoupled weight decay, before the update: var -= var * weight_decay * lr (every optimizer takes
       `weight_decay`; AdamW defaults it to 0.004), skipping variables `exclude_from_weight_decay` named;
    3. `get_config` / `from_config`: the base's keys, the learning rate (a schedule as its serialized dict),
       then the optimizer's own hyperparameters (the arguments of its `__init__`).
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from webflow.framework import dtypes
from webflow.ops.math_ops import cast
from webflow.train import clip_ops

_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None, "jit_compile": True}
_NOT_HYPERPARAMETERS = {"self", "learning_rate", "name", "kwargs", "clipnorm", "clipvalue", *_BASE_DEFAULTS}


def read_options(optimizer: Any, clipnorm: Any, clipvalue: Any, kwargs: dict) -> None:
    """Stores the base options on `optimizer` (tf_keras's checks and messages)."""
    options = {**_BASE_DEFAULTS, **getattr(optimizer, "_option_defaults", {}), "clipnorm": clipnorm,
               "clipvalue": clipvalue}
    for key in list(kwargs):
        if key in options:
            options[key] = kwargs.pop(key)
    _check_leftovers(type(optimizer).__name__, kwargs)
    if options["clipnorm"] is not None and options["global_clipnorm"] is not None:
        raise ValueError("At most one of `clipnorm` and `global_clipnorm` can be set. Received: "
                         f"clipnorm={options['clipnorm']}, global_clipnorm={options['global_clipnorm']}.")
    options["jit_compile"] = False   # tf_keras turns XLA off without a GPU; webflow has none
    for key, value in options.items():
        setattr(optimizer, key, value)
    optimizer._excluded_variables, optimizer._excluded_names = set(), None


def _check_leftovers(name: str, kwargs: dict) -> None:
    """tf_keras's `_process_kwargs`: `lr=` is only warned about (and ignored!), TF1-era arguments are errors."""
    kwargs.pop("is_legacy_optimizer", None)
    if kwargs.pop("lr", None):
        import logging
        logging.getLogger("tensorflow").warning(
            "`lr` is deprecated in TF-Keras optimizer, please use `learning_rate` or use the legacy optimizer, "
            f"e.g.,tf.keras.optimizers.legacy.{name}.")
    for key in kwargs:
        if key in ("decay", "gradient_aggregator", "gradient_transformers"):
            raise ValueError(f"{key} is deprecated in the new TF-Keras optimizer, please check the docstring for "
                             f"valid arguments, or use the legacy optimizer, e.g., tf.keras.optimizers.legacy.{name}.")
        raise TypeError(f"{key} is not a valid argument, kwargs should be empty  for "
                        "`optimizer_experimental.Optimizer`.")


def clip_gradients(optimizer: Any, gradients: list) -> list:
    """tf_keras's `_clip_gradients`: one of clipnorm / global_clipnorm / clipvalue, in that order."""
    if optimizer.clipnorm and optimizer.clipnorm > 0:
        return [clip_ops.clip_by_norm(g, optimizer.clipnorm) for g in gradients]
    if optimizer.global_clipnorm and optimizer.global_clipnorm > 0:
        return list(clip_ops.clip_by_global_norm(gradients, optimizer.global_clipnorm)[0])
    if optimizer.clipvalue and optimizer.clipvalue > 0:
        return [clip_ops.clip_by_value(g, -optimizer.clipvalue, optimizer.clipvalue) for g in gradients]
    return gradients


def exclude_from_weight_decay(optimizer: Any, var_list: Any = None, var_names: Any = None) -> None:
    optimizer._excluded_variables = {id(v) for v in var_list or []}
    optimizer._excluded_names = re.compile("|".join(set(var_names))) if var_names else None


def _decays(optimizer: Any, variable: Any) -> bool:
    if id(variable) in optimizer._excluded_variables:
        return False
    names = optimizer._excluded_names
    return not (names is not None and names.search(variable.name))


def apply_weight_decay(optimizer: Any, variables: list, lr: Any) -> None:
    """var -= var * weight_decay * lr for each variable not excluded (nothing when weight_decay is None)."""
    if optimizer.weight_decay is None:
        return
    for variable in variables:
        if _decays(optimizer, variable):
            rate = cast(lr, variable.dtype.base_dtype) if hasattr(lr, "dtype") else lr
            variable.assign_sub(variable * optimizer.weight_decay * rate)


def prepare(optimizer: Any, pairs: list, lr: Any) -> list:
    """The (gradient, variable) pairs after clipping; weight decay applied to the variables."""
    from webflow.keras import backend
    gradients = clip_gradients(optimizer, [backend.convert_to_tensor(g) for g, _ in pairs])
    variables = [v for _, v in pairs]
    apply_weight_decay(optimizer, variables, lr)
    return list(zip(gradients, variables))


def _float32(value: float) -> float:
    """`value` rounded to float32, as tf_keras reports a learning rate kept in a float32 variable."""
    import struct
    return struct.unpack("f", struct.pack("f", value))[0]


def get_config(optimizer: Any) -> dict:
    config = {"name": optimizer.name, **{key: getattr(optimizer, key) for key in _BASE_DEFAULTS},
              "is_legacy_optimizer": False}
    schedule = getattr(optimizer, "_schedule", None)
    if schedule is not None:
        from webflow.keras import schedules
        config["learning_rate"] = schedules.serialize(schedule)
    else:
        config["learning_rate"] = _float32(optimizer._learning_rate)
    for name in inspect.signature(type(optimizer).__init__).parameters:
        if name not in _NOT_HYPERPARAMETERS and hasattr(optimizer, name):
            config[name] = getattr(optimizer, name)
    return config


def from_config(cls: type, config: dict) -> Any:
    config = dict(config)
    config.pop("is_legacy_optimizer", None)
    if isinstance(config.get("learning_rate"), dict):
        from webflow.keras import schedules
        config["learning_rate"] = schedules.deserialize(config["learning_rate"])
    return cls(**config)


def as_float32(value: Any) -> Any:
    """A float32 tensor of a Python number or a tensor (a traced step or learning rate)."""
    from webflow.keras import backend
    if hasattr(value, "dtype"):
        return cast(value, dtypes.float32)
    return backend.constant(float(value), dtype=dtypes.float32)
