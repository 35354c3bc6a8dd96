"""Premade linear Estimators: `LinearClassifier` and `LinearRegressor` (TF 2.15's `tf.estimator` V2 classes).

The model is feature_column/linear.py's (variables `linear/linear_model/<column>/weights` and
`linear/linear_model/bias_weights`, all starting at zero); the heads are heads.py's. The default optimizer
is Keras's FTRL; an optimizer given by name gets TF's linear learning rate, 0.2 (canned_optimizers.py).
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.canned_optimizers import get_optimizer
from webflow.estimator.checkpoint_keys import with_tf1_names
from webflow.estimator.dnn import scope_variables
from webflow.estimator.estimator import Estimator
from webflow.estimator.heads import SUM_OVER_BATCH_SIZE, RegressionHead, classification_head, optimizer_train_op_fn
from webflow.estimator.mode_keys import ModeKeys

LEARNING_RATE = 0.2  # TF's canned linear models' learning rate for an optimizer given by name


def linear_model_logits(features: dict, columns: tuple, units: int, sparse_combiner: str = "sum") -> Any:
    from webflow.feature_column.linear import linear_logits
    from webflow.ops.variable_scope import variable_scope
    with variable_scope("linear"):
        return linear_logits(features, columns, units, sparse_combiner)


def _check(feature_columns: Any, optimizer: Any, sparse_combiner: str) -> tuple:
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum', given: {sparse_combiner}")
    if isinstance(optimizer, str):
        get_optimizer(optimizer)  # an unknown name fails now, as in TensorFlow
    return tuple(feature_columns)


def _linear_model_fn(head: Any, columns: tuple, optimizer: Any, v1: bool, sparse_combiner: str) -> Any:
    def model_fn(features: Any, labels: Any, mode: str) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")
        logits = linear_model_logits(features, columns, head.logits_dimension, sparse_combiner)
        train_op_fn = None
        if mode == ModeKeys.TRAIN:
            chosen = get_optimizer(optimizer, LEARNING_RATE, v1)
            train_op_fn = optimizer_train_op_fn(chosen, lambda: scope_variables("linear"))
            if v1:   # TF1's partitioned linear weights: slots saved as `.../weights/part_0/Ftrl`
                train_op_fn = with_tf1_names(train_op_fn, chosen, lambda: scope_variables("linear"), "linear")
        return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)
    return model_fn


class LinearClassifier(Estimator):
    """`LinearClassifier(feature_columns, model_dir=None, n_classes=2, weight_column=None, label_vocabulary=None,
    optimizer='Ftrl', config=None, warm_start_from=None, loss_reduction=SUM_OVER_BATCH_SIZE, sparse_combiner='sum')`."""

    _v1 = False  # True in estimator/v1.py's tf.compat.v1.estimator classes

    def __init__(self, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Ftrl",
                 config: Any = None, warm_start_from: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE,
                 sparse_combiner: str = "sum"):
        columns = _check(feature_columns, optimizer, sparse_combiner)
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction, self._v1)
        super().__init__(_linear_model_fn(head, columns, optimizer, self._v1, sparse_combiner), model_dir, config,
                         warm_start_from=warm_start_from)


class LinearRegressor(Estimator):
    """`LinearRegressor(feature_columns, model_dir=None, label_dimension=1, weight_column=None, optimizer='Ftrl',
    config=None, warm_start_from=None, loss_reduction=SUM_OVER_BATCH_SIZE, sparse_combiner='sum')`."""

    _v1 = False

    def __init__(self, feature_columns: Any, model_dir: str | None = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl", config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = SUM_OVER_BATCH_SIZE, sparse_combiner: str = "sum"):
        columns = _check(feature_columns, optimizer, sparse_combiner)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(_linear_model_fn(head, columns, optimizer, self._v1, sparse_combiner), model_dir, config,
                         warm_start_from=warm_start_from)
