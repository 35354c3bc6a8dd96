"""`tf.compat.v1.estimator`: the same Estimator machinery, with TF 2.15's V1 premade classes.

They differ from `tf.estimator`'s (V2) in three defaults: the training loss is the SUM of the batch's
losses (`tf.compat.v1.losses.Reduction.SUM`), an optimizer given by name is the TF1 `tf.compat.v1.train`
one (DNN: Adagrad at 0.05; linear: FTRL at 0.2; combined: 0.001 and min(0.005, 1/sqrt(columns)); baseline:
0.3), and the binary heads' 'auc' / 'auc_precision_recall' come from `tf.compat.v1.metrics.auc`
(trapezoidal). Partitioners are accepted and ignored (webflow keeps each variable whole).
"""

# ruff: noqa: F401
from __future__ import annotations

from typing import Any

from webflow.estimator import (
    CheckpointSaverHook,
    Estimator,
    EstimatorSpec,
    LoggingTensorHook,
    ModeKeys,
    NanLossDuringTrainingError,
    RunConfig,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    StopAtStepHook,
    SummarySaverHook,
    WarmStartSettings,
    baseline,
    dnn,
    dnn_linear_combined,
    inputs,
    numpy_input_fn,
    premade,
)

SUM = "weighted_sum"  # tf.compat.v1.losses.Reduction.SUM


class DNNClassifier(dnn.DNNClassifier):
    _v1 = True

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = None, dropout: float | None = None, input_layer_partitioner: Any = None,
                 config: Any = None, warm_start_from: Any = None, loss_reduction: str = SUM, batch_norm: bool = False):
        super().__init__(hidden_units, feature_columns, model_dir, n_classes, weight_column, label_vocabulary,
                         optimizer, activation_fn, dropout, config, warm_start_from, loss_reduction, batch_norm)


class DNNRegressor(dnn.DNNRegressor):
    _v1 = True

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 label_dimension: int = 1, weight_column: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = None, dropout: float | None = None, input_layer_partitioner: Any = None,
                 config: Any = None, warm_start_from: Any = None, loss_reduction: str = SUM, batch_norm: bool = False):
        super().__init__(hidden_units, feature_columns, model_dir, label_dimension, weight_column, optimizer,
                         activation_fn, dropout, config, warm_start_from, loss_reduction, batch_norm)


class LinearClassifier(premade.LinearClassifier):
    _v1 = True

    def __init__(self, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Ftrl",
                 config: Any = None, partitioner: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = SUM, sparse_combiner: str = "sum"):
        super().__init__(feature_columns, model_dir, n_classes, weight_column, label_vocabulary, optimizer, config,
                         warm_start_from, loss_reduction, sparse_combiner)


class LinearRegressor(premade.LinearRegressor):
    _v1 = True

    def __init__(self, feature_columns: Any, model_dir: str | None = None, label_dimension: int = 1,
                 weight_column: Any = None, optimizer: Any = "Ftrl", config: Any = None, partitioner: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = SUM, sparse_combiner: str = "sum"):
        super().__init__(feature_columns, model_dir, label_dimension, weight_column, optimizer, config,
                         warm_start_from, loss_reduction, sparse_combiner)


class DNNLinearCombinedClassifier(dnn_linear_combined.DNNLinearCombinedClassifier):
    _v1 = True

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None, dnn_optimizer: Any = "Adagrad",
                 dnn_hidden_units: Any = None, dnn_activation_fn: Any = None, dnn_dropout: float | None = None,
                 n_classes: int = 2, weight_column: Any = None, label_vocabulary: Any = None,
                 input_layer_partitioner: Any = None, config: Any = None, warm_start_from: Any = None,
                 loss_reduction: str = SUM, batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        super().__init__(model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                         dnn_hidden_units, dnn_activation_fn, dnn_dropout, n_classes, weight_column,
                         label_vocabulary, config, warm_start_from, loss_reduction, batch_norm,
                         linear_sparse_combiner)


class DNNLinearCombinedRegressor(dnn_linear_combined.DNNLinearCombinedRegressor):
    _v1 = True

    def __init__(self, model_dir: str | None = None, linear_feature_columns: Any = None,
                 linear_optimizer: Any = "Ftrl", dnn_feature_columns: Any = None, dnn_optimizer: Any = "Adagrad",
                 dnn_hidden_units: Any = None, dnn_activation_fn: Any = None, dnn_dropout: float | None = None,
                 label_dimension: int = 1, weight_column: Any = None, input_layer_partitioner: Any = None,
                 config: Any = None, warm_start_from: Any = None, loss_reduction: str = SUM,
                 batch_norm: bool = False, linear_sparse_combiner: str = "sum"):
        super().__init__(model_dir, linear_feature_columns, linear_optimizer, dnn_feature_columns, dnn_optimizer,
                         dnn_hidden_units, dnn_activation_fn, dnn_dropout, label_dimension, weight_column, config,
                         warm_start_from, loss_reduction, batch_norm, linear_sparse_combiner)


class BaselineClassifier(baseline.BaselineClassifier):
    _v1 = True

    def __init__(self, model_dir: str | None = None, n_classes: int = 2, weight_column: Any = None,
                 label_vocabulary: Any = None, optimizer: Any = "Ftrl", config: Any = None,
                 loss_reduction: str = SUM):
        super().__init__(model_dir, n_classes, weight_column, label_vocabulary, optimizer, config, loss_reduction)


class BaselineRegressor(baseline.BaselineRegressor):
    _v1 = True

    def __init__(self, model_dir: str | None = None, label_dimension: int = 1, weight_column: Any = None,
                 optimizer: Any = "Ftrl", config: Any = None, loss_reduction: str = SUM):
        super().__init__(model_dir, label_dimension, weight_column, optimizer, config, loss_reduction)
