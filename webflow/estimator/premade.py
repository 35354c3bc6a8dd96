"""Premade Estimators: `LinearRegressor` (TensorFlow 2.15's `tf.estimator.LinearRegressor` model and head).

The regression head: loss = sum of squared errors / batch size (SUM_OVER_BATCH_SIZE), predictions
{'predictions': [batch, label_dimension]}, eval metrics 'average_loss', 'label/mean', 'prediction/mean'.
TF's default optimizer, FTRL, is not in webflow yet: pass `optimizer='SGD'` (or 'Adagrad', 'Adam',
'RMSProp', or a tf.compat.v1.train optimizer).
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.estimator import Estimator
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.spec import EstimatorSpec

_LEARNING_RATE = 0.2  # TF's canned linear models' default learning rate


def _optimizer(optimizer: Any) -> Any:
    from webflow.train.adagrad import AdagradOptimizer
    from webflow.train.adam import AdamOptimizer
    from webflow.train.gradient_descent import GradientDescentOptimizer
    from webflow.train.rmsprop import RMSPropOptimizer
    if callable(optimizer) and not hasattr(optimizer, "minimize"):
        optimizer = optimizer()
    if not isinstance(optimizer, str):
        return optimizer
    known = {"SGD": GradientDescentOptimizer, "Adagrad": AdagradOptimizer, "Adam": AdamOptimizer,
             "RMSProp": RMSPropOptimizer}
    if optimizer == "Ftrl":
        raise NotImplementedError("webflow has no FTRL optimizer yet: pass optimizer='SGD' (or 'Adagrad', 'Adam', "
                                  "'RMSProp', or an optimizer instance) to the premade Estimator.")
    if optimizer not in known:
        raise ValueError(f"Unsupported optimizer name: {optimizer}. Supported names are: {sorted(known)}")
    return known[optimizer](_LEARNING_RATE)


def _regression_spec(mode: str, logits: Any, labels: Any, label_dimension: int, optimizer: Any) -> EstimatorSpec:
    from webflow.framework import dtypes
    from webflow.metrics.metrics_impl import mean
    from webflow.ops.array_ops import reshape
    from webflow.ops.math_ops import cast
    from webflow.ops.sum_mean_ops import reduce_sum
    from webflow.ops.unary_math_ops import square
    from webflow.train.training_util import get_global_step
    predictions = {"predictions": logits}
    if mode == ModeKeys.PREDICT:
        return EstimatorSpec(mode, predictions=predictions)
    labels = reshape(cast(labels, dtypes.float32), [-1, label_dimension])
    unreduced = square(labels - logits)
    loss = reduce_sum(unreduced) / cast(reduce_sum(unreduced * 0.0 + 1.0), dtypes.float32)
    if mode == ModeKeys.EVAL:
        metrics = {"average_loss": mean(unreduced), "label/mean": mean(labels),
                   "prediction/mean": mean(logits)}
        return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
    train_op = optimizer.minimize(loss, global_step=get_global_step())
    return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)


class LinearRegressor(Estimator):
    """`LinearRegressor(feature_columns, model_dir=None, label_dimension=1, optimizer='Ftrl', config=None)`."""

    def __init__(self, feature_columns: Any, model_dir: str | None = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl", config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = "sum_over_batch_size", sparse_combiner: str = "sum"):
        columns = tuple(feature_columns)
        if weight_column is not None or sparse_combiner != "sum":
            raise NotImplementedError("weight_column and sparse_combiner other than 'sum' are not supported yet.")
        if isinstance(optimizer, str):
            _optimizer(optimizer)  # an unknown name fails now, as in TensorFlow

        def model_fn(features: Any, labels: Any, mode: str) -> EstimatorSpec:
            from webflow.feature_column.linear import linear_logits
            from webflow.ops.variable_scope import variable_scope
            with variable_scope("linear"):
                logits = linear_logits(features, columns, label_dimension)
            chosen = _optimizer(optimizer) if mode == ModeKeys.TRAIN else None
            return _regression_spec(mode, logits, labels, label_dimension, chosen)

        super().__init__(model_fn, model_dir, config)
