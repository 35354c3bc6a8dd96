"""`DNNLinearCombinedClassifier` / `Regressor` ("wide & deep", TF 2.15's V2 classes): logits = DNN + linear.

The two parts keep their own optimizers: the DNN's (default Keras Adagrad, learning rate 0.001) counts the
global step, the linear part's (default FTRL, learning rate min(0.005, 1 / sqrt(number of linear columns)))
its own `training/Ftrl/iter`. Variables are named as in DNNClassifier and LinearClassifier.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.estimator.canned_optimizers import get_optimizer, train_op
from webflow.estimator.dnn import _relu, dnn_logits, scope_variables, with_updates
from webflow.estimator.estimator import Estimator
from webflow.estimator.heads import SUM_OVER_BATCH_SIZE, RegressionHead, classification_head
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.premade import linear_model_logits

_DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def _combined_model_fn(head: Any, linear_columns: tuple, linear_optimizer: Any, dnn_columns: tuple,
                       dnn_optimizer: Any, hidden_units: Any, activation_fn: Any, dropout: float | None,
                       v1: bool, sparse_combiner: str, batch_norm: bool) -> Any:
    def model_fn(features: Any, labels: Any, mode: str) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")
        parts, updates = [], []
        if dnn_columns:
            parts.append(dnn_logits(features, dnn_columns, hidden_units, head.logits_dimension,
                                    activation_fn or _relu(), dropout, mode, batch_norm, updates))
        if linear_columns:
            parts.append(linear_model_logits(features, linear_columns, head.logits_dimension, sparse_combiner))
        logits = parts[0] + parts[1] if len(parts) == 2 else parts[0]
        return head.create_estimator_spec(features, mode, logits, labels,
                                          with_updates(_train_op_fn, updates) if mode == ModeKeys.TRAIN else None)

    def _train_op_fn(loss: Any) -> Any:
        """TF 2.15: the DNN's optimizer counts the global step; tf.compat.v1: one AssignAdd after both."""
        from webflow.framework.scopes import control_dependencies
        from webflow.ops.control_flow_ops import group
        from webflow.ops.state_ops import assign_add
        from webflow.train.training_util import get_or_create_global_step
        global_step = get_or_create_global_step()
        ops = []
        if dnn_columns:
            ops.append(train_op(get_optimizer(dnn_optimizer, _DNN_LEARNING_RATE, v1), loss, scope_variables("dnn"),
                                None if v1 else global_step))
        if linear_columns:
            rate = min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(len(linear_columns)))
            ops.append(train_op(get_optimizer(linear_optimizer, rate, v1), loss, scope_variables("linear"),
                                None if v1 or dnn_columns else global_step))
        if not v1:
            return group(*ops)
        with control_dependencies([group(*ops)]):
            return assign_add(global_step, 1).op
    return model_fn


def _check(linear_feature_columns: Any, dnn_feature_columns: Any, dnn_hidden_units: Any) -> tuple:
    linear_columns, dnn_columns = tuple(linear_feature_columns or ()), tuple(dnn_feature_columns or ())
    if not linear_columns and not dnn_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    if dnn_columns and not dnn_hidden_units:
        raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is specified.")
    return linear_columns, dnn_columns


class DNNLinearCombinedClassifier(Estimator):
    """`DNNLinearCombinedClassifier(model_dir=None, linear_feature_columns=None, linear_optimizer='Ftrl',
    dnn_feature_columns=None, dnn_optimizer='Adagrad', dnn_hidden_units=None, dnn_activation_fn=tf.nn.relu,
    dnn_dropout=None, n_classes=2, weight_column=None, label_vocabulary=None, config=None, ...)`."""

    _v1 = False  # True in estimator/v1.py's tf.compat.v1.estimator classes

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None, dnn_optimizer: Any = "Adagrad",
                 dnn_hidden_units: Any = None, dnn_activation_fn: Any = None, dnn_dropout: float | None = None,
                 n_classes: int = 2, weight_column: Any = None, label_vocabulary: Any = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE, batch_norm: bool = False,
                 linear_sparse_combiner: str = "sum"):
        linear_columns, dnn_columns = _check(linear_feature_columns, dnn_feature_columns, dnn_hidden_units)
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction, self._v1)
        model_fn = _combined_model_fn(head, linear_columns, linear_optimizer, dnn_columns, dnn_optimizer,
                                      tuple(dnn_hidden_units or ()), dnn_activation_fn, dnn_dropout, self._v1,
                                      linear_sparse_combiner, batch_norm)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


class DNNLinearCombinedRegressor(Estimator):
    """`DNNLinearCombinedRegressor(model_dir=None, linear_feature_columns=None, linear_optimizer='Ftrl',
    dnn_feature_columns=None, dnn_optimizer='Adagrad', dnn_hidden_units=None, ..., label_dimension=1, ...)`."""

    _v1 = False

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None, dnn_optimizer: Any = "Adagrad",
                 dnn_hidden_units: Any = None, dnn_activation_fn: Any = None, dnn_dropout: float | None = None,
                 label_dimension: int = 1, weight_column: Any = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE, batch_norm: bool = False,
                 linear_sparse_combiner: str = "sum"):
        linear_columns, dnn_columns = _check(linear_feature_columns, dnn_feature_columns, dnn_hidden_units)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        model_fn = _combined_model_fn(head, linear_columns, linear_optimizer, dnn_columns, dnn_optimizer,
                                      tuple(dnn_hidden_units or ()), dnn_activation_fn, dnn_dropout, self._v1,
                                      linear_sparse_combiner, batch_norm)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)
