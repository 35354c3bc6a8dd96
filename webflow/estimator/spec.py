"""`tf.estimator.EstimatorSpec`: what a model_fn returns, checked as TensorFlow checks it."""

from __future__ import annotations

import collections
from typing import Any

from webflow.estimator.mode_keys import ModeKeys
from webflow.framework.tensor import Tensor

_FIELDS = ("mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
           "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks", "prediction_hooks")


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """Ops and objects a model_fn returns for one mode (TRAIN needs loss and train_op, PREDICT predictions)."""

    def __new__(cls, mode: str, predictions: Any = None, loss: Any = None, train_op: Any = None,
                 eval_metric_ops: Any = None, export_outputs: Any = None, training_chief_hooks: Any = None,
                 training_hooks: Any = None, scaffold: Any = None, evaluation_hooks: Any = None,
                 prediction_hooks: Any = None) -> EstimatorSpec:
        if train_op is None and mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        if loss is None and mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        if loss is not None and isinstance(loss, Tensor) and loss.shape.ndims not in (None, 0):
            if loss.shape.num_elements() != 1:
                raise ValueError(f"Loss must be scalar, given: {loss}")
        if predictions is None and mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        for name, pair in (eval_metric_ops or {}).items():
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError(f"Values of eval_metric_ops must be (metric_value, update_op) tuples, given: "
                                f"{pair} for key: {name}")
        return super().__new__(
            cls, mode, predictions, loss, train_op, eval_metric_ops or {}, export_outputs,
            tuple(training_chief_hooks or ()), tuple(training_hooks or ()), scaffold,
            tuple(evaluation_hooks or ()), tuple(prediction_hooks or ()))
