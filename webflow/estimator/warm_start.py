"""Warm starting (`warm_start_from=`): a new model's variables start from another model's checkpoint.

TF applies it when training starts from no checkpoint of its own: each trainable variable whose name
matches `vars_to_warm_start` (a regular expression, default '.*') takes the value saved under the same
name (or `var_name_to_prev_var_name[name]`) in `ckpt_to_initialize_from` (a checkpoint or a folder, whose
latest checkpoint is used). A variable the checkpoint lacks is an error, as in TensorFlow.
"""

from __future__ import annotations

import re
from typing import Any


class WarmStartSettings:
    """`tf.estimator.WarmStartSettings(ckpt_to_initialize_from, vars_to_warm_start='.*', ...)`."""

    def __init__(self, ckpt_to_initialize_from: str, vars_to_warm_start: Any = ".*",
                 var_name_to_vocab_info: Any = None, var_name_to_prev_var_name: Any = None):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        if var_name_to_vocab_info:
            raise NotImplementedError("var_name_to_vocab_info is not supported by webflow yet.")
        self.ckpt_to_initialize_from = ckpt_to_initialize_from
        self.vars_to_warm_start = vars_to_warm_start
        self.var_name_to_prev_var_name = dict(var_name_to_prev_var_name or {})


def as_settings(warm_start_from: Any) -> WarmStartSettings | None:
    if warm_start_from is None or isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if isinstance(warm_start_from, str):
        return WarmStartSettings(warm_start_from)
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead got {type(warm_start_from)}")


def _checkpoint_path(path: str) -> str:
    import os

    from webflow.train.saver import latest_checkpoint
    if os.path.isdir(path):
        found = latest_checkpoint(path)
        if not found:
            raise ValueError(f"Could not find a checkpoint in {path} to warm-start from.")
        return found
    return path


def _wanted(name: str, pattern: Any) -> bool:
    patterns = [pattern] if isinstance(pattern, str) else list(pattern or [])
    return any(re.match(p, name) for p in patterns)


def warm_start(session: Any, settings: WarmStartSettings) -> None:
    """Loads the chosen trainable variables from the checkpoint into `session`."""
    from webflow.ops.variables import trainable_variables
    from webflow.train.saver import list_variables, load_variable
    path = _checkpoint_path(settings.ckpt_to_initialize_from)
    saved = {name for name, _ in list_variables(path)}
    for variable in trainable_variables():
        name = variable.op.name
        if not _wanted(name, settings.vars_to_warm_start):
            continue
        previous = settings.var_name_to_prev_var_name.get(name, name)
        if previous not in saved:
            raise ValueError(f"Tensor {previous} is not found in {path} checkpoint")
        variable.load(load_variable(path, previous), session)
