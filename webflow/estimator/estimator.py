"""`tf.estimator.Estimator`: a model_fn plus a model_dir; `train`, `evaluate` and `predict` each build a graph.

Every call starts from the latest checkpoint in model_dir, so training resumes where it stopped, and
evaluate / predict see the trained variables (TensorFlow <= 2.15's behaviour and log lines).
"""

from __future__ import annotations

import copy
import os
import tempfile
from typing import Any

from webflow.estimator.calls import call_input_fn, call_model_fn, check_model_fn
from webflow.estimator.hooks import LoggingTensorHook, StopAtStepHook
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.run_config import RunConfig
from webflow.estimator.session_setup import latest_checkpoint
from webflow.estimator.warm_start import as_settings


def _log(message: str) -> None:
    from webflow.platform import tf_logging
    tf_logging.info(message)


def _model_dir(model_dir: str | None, config: RunConfig) -> str:
    if model_dir and config.model_dir and os.path.abspath(model_dir) != os.path.abspath(config.model_dir):
        raise ValueError(f"`model_dir` are set both in constructor and `RunConfig`, but with different values. "
                         f"In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' ")
    chosen = model_dir or config.model_dir
    if not chosen:
        chosen = tempfile.mkdtemp()
        _log(f"Using temporary folder as model directory: {chosen}")
    return chosen


def _check_steps(steps: int | None, max_steps: int | None) -> None:
    if steps is not None and max_steps is not None:
        raise ValueError("Can not provide both steps and max_steps.")
    if steps is not None and steps <= 0:
        raise ValueError(f"Must specify steps > 0, given: {steps}")
    if max_steps is not None and max_steps <= 0:
        raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")


def checkpoint_step(model_dir: str) -> int:
    """The global step saved in model_dir's latest checkpoint (0 when there is none)."""
    from webflow.train.saver import load_variable
    path = latest_checkpoint(model_dir)
    return int(load_variable(path, "global_step")) if path else 0


class Estimator:
    def __init__(self, model_fn: Any, model_dir: str | None = None, config: RunConfig | None = None,
                 params: dict | None = None, warm_start_from: Any = None):
        if config is not None and not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
        check_model_fn(model_fn)
        config = config or RunConfig()
        self._model_dir = _model_dir(model_dir, config)
        os.makedirs(self._model_dir, exist_ok=True)
        self._config = config.replace(model_dir=self._model_dir)
        self._model_fn, self._params = model_fn, copy.deepcopy(params or {})
        self._warm_start_settings = as_settings(warm_start_from)

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))
    model_fn = property(lambda self: self._model_fn)

    def latest_checkpoint(self) -> str | None:
        return latest_checkpoint(self._model_dir)

    def get_variable_names(self) -> list:
        from webflow.train.saver import list_variables
        return [name for name, _ in list_variables(self._require_checkpoint())]

    def get_variable_value(self, name: str) -> Any:
        from webflow.train.saver import load_variable
        return load_variable(self._require_checkpoint(), name)

    def _require_checkpoint(self) -> str:
        path = self.latest_checkpoint()
        if not path:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return path

    def _build(self, input_fn: Any, mode: str) -> tuple:
        """(global_step, spec, features) in the current default graph."""
        from webflow.framework.random_seed import set_random_seed
        from webflow.train.training_util import get_or_create_global_step
        set_random_seed(self._config.tf_random_seed)
        global_step = get_or_create_global_step()
        features, labels = call_input_fn(input_fn, self._params, self._config)
        spec = call_model_fn(self._model_fn, features, labels, mode, self._params, self._config)
        return global_step, spec, features

    def train(self, input_fn: Any, hooks: Any = None, steps: int | None = None, max_steps: int | None = None,
              saving_listeners: Any = None) -> Estimator:
        """Trains until the input ends, `steps` more steps are done, or the global step reaches `max_steps`."""
        from webflow.estimator.training import TrainLoop
        from webflow.framework.graph import Graph
        from webflow.summary.v1 import scalar
        _check_steps(steps, max_steps)
        if max_steps is not None and checkpoint_step(self._model_dir) >= max_steps:
            _log("Skipping training since max_steps has already saved.")
            return self
        with Graph().as_default():
            global_step, spec, _ = self._build(input_fn, ModeKeys.TRAIN)
            scalar("loss", spec.loss)
            all_hooks = list(hooks or []) + list(spec.training_hooks) + list(spec.training_chief_hooks)
            if steps is not None or max_steps is not None:
                all_hooks.append(StopAtStepHook(num_steps=steps, last_step=max_steps))
            if self._config.log_step_count_steps:
                all_hooks.append(LoggingTensorHook({"loss": spec.loss, "step": global_step},
                                                   every_n_iter=self._config.log_step_count_steps))
            loss = TrainLoop(self._model_dir, self._config, global_step, spec, all_hooks,
                             self._warm_start_settings).run()
        _log(f"Loss for final step: {loss}.")
        return self

    def evaluate(self, input_fn: Any, steps: int | None = None, hooks: Any = None, checkpoint_path: str | None = None,
                 name: str | None = None) -> dict:
        """{'loss': mean loss, each eval metric, 'global_step'} over `steps` batches or the whole input."""
        from webflow.estimator.evaluation import evaluate
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        return evaluate(self, input_fn, steps, list(hooks or []), checkpoint_path, name)

    def predict(self, input_fn: Any, predict_keys: Any = None, hooks: Any = None, checkpoint_path: str | None = None,
                yield_single_examples: bool = True) -> Any:
        """A generator of predictions: one per example (a dict when the model_fn's predictions are a dict)."""
        from webflow.estimator.evaluation import predict
        return predict(self, input_fn, predict_keys, list(hooks or []), checkpoint_path, yield_single_examples)
