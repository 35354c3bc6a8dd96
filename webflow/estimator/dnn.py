"""Premade `DNNClassifier` and `DNNRegressor` (TF 2.15's `tf.estimator` V2 classes) and their network.

The network: the feature columns' dense input (`DenseFeatures`), then `hidden_units` fully connected
layers (`activation_fn`, default relu; dropout with rate `dropout` while training), then a linear layer of
the head's logits dimension. Kernels start Glorot-uniform, biases zero. Variables, as TF names them:
`dnn/hiddenlayer_<i>/kernel`, `dnn/hiddenlayer_<i>/bias`, `dnn/logits/kernel`, `dnn/logits/bias`
(embeddings under `dnn/input_from_feature_columns/input_layer/`). The default optimizer is Keras's
Adagrad at its default learning rate 0.001 (canned_optimizers.py).
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.canned_optimizers import get_optimizer
from webflow.estimator.checkpoint_keys import with_tf1_names
from webflow.estimator.estimator import Estimator
from webflow.estimator.heads import (
    SUM_OVER_BATCH_SIZE,
    RegressionHead,
    check_loss_reduction,
    classification_head,
    optimizer_train_op_fn,
)
from webflow.estimator.mode_keys import ModeKeys
from webflow.framework import dtypes

V1_LEARNING_RATE = 0.05  # tf.compat.v1.estimator's DNN learning rate for an optimizer given by name


def _dense(net: Any, units: int, activation: Any) -> Any:
    from webflow.ops.init_ops import GlorotUniform, Zeros
    from webflow.ops.matmul_ops import matmul
    from webflow.ops.nn_ops import bias_add
    from webflow.ops.variable_scope import get_variable
    kernel = get_variable("kernel", [int(net.shape[-1]), units], dtypes.float32, initializer=GlorotUniform())
    bias = get_variable("bias", [units], dtypes.float32, initializer=Zeros())
    out = bias_add(matmul(net, kernel), bias)
    return activation(out) if activation is not None else out


def _batch_norm(net: Any, training: bool, updates: list) -> Any:
    """Keras's BatchNormalization(momentum=0.999, epsilon=1e-3) on [batch, n]: batch statistics (biased
    variance) while training, whose moving averages `updates` keeps; the moving ones otherwise."""
    from webflow.nn.moments import moments
    from webflow.nn.normalization import batch_normalization
    from webflow.ops.init_ops import Ones, Zeros
    from webflow.ops.state_ops import assign_sub
    from webflow.ops.variable_scope import get_variable
    width = [int(net.shape[-1])]
    gamma = get_variable("gamma", width, dtypes.float32, initializer=Ones())
    beta = get_variable("beta", width, dtypes.float32, initializer=Zeros())
    moving_mean = get_variable("moving_mean", width, dtypes.float32, initializer=Zeros(), trainable=False)
    moving_variance = get_variable("moving_variance", width, dtypes.float32, initializer=Ones(), trainable=False)
    if not training:
        return batch_normalization(net, moving_mean, moving_variance, beta, gamma, 1e-3)
    mean, variance = moments(net, [0])
    updates.append(assign_sub(moving_mean, (moving_mean - mean) * (1.0 - 0.999)))
    updates.append(assign_sub(moving_variance, (moving_variance - variance) * (1.0 - 0.999)))
    return batch_normalization(net, mean, variance, beta, gamma, 1e-3)


def dnn_logits(features: dict, feature_columns: Any, hidden_units: Any, units: int, activation_fn: Any,
               dropout: float | None, mode: str, batch_norm: bool = False, updates: list | None = None) -> Any:
    """The logits [batch, units] of the DNN, built in variable scope 'dnn'; with `batch_norm`, the moving
    averages' update ops go to `updates`."""
    from webflow.feature_column.api import dense_output
    from webflow.nn.dropout_ops import dropout_v2
    from webflow.ops.variable_scope import variable_scope
    with variable_scope("dnn"):
        with variable_scope("input_from_feature_columns"):
            # input_layer's scope and columns; dense_output, as TF's DenseFeatures, also takes TF2 shared embeddings
            net = dense_output(features, feature_columns, "input_layer")
        for index, width in enumerate(hidden_units):
            with variable_scope(f"hiddenlayer_{index}"):
                net = _dense(net, int(width), activation_fn)
                if dropout is not None and mode == ModeKeys.TRAIN:
                    net = dropout_v2(net, rate=dropout)
                if batch_norm:
                    with variable_scope(f"batchnorm_{index}"):
                        net = _batch_norm(net, mode == ModeKeys.TRAIN, updates if updates is not None else [])
        with variable_scope("logits"):
            return _dense(net, units, None)


def scope_variables(prefix: str) -> list:
    """The trainable variables whose names start with `prefix/`, in creation order."""
    from webflow.ops.variables import trainable_variables
    return [v for v in trainable_variables() if v.op.name.startswith(prefix + "/")]


def _check_columns(feature_columns: Any, hidden_units: Any) -> tuple:
    columns = tuple(feature_columns or ())
    if not columns:
        raise ValueError("feature_columns must be defined.")
    if not hidden_units:
        raise ValueError("hidden_units must be defined.")
    return columns


def _relu() -> Any:
    from webflow.ops.nn_ops import relu
    return relu


def _dnn_model_fn(head: Any, hidden_units: Any, columns: tuple, optimizer: Any, activation_fn: Any,
                  dropout: float | None, v1: bool, batch_norm: bool) -> Any:
    def model_fn(features: Any, labels: Any, mode: str) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: {type(features)}")
        updates: list = []
        logits = dnn_logits(features, columns, hidden_units, head.logits_dimension, activation_fn or _relu(),
                            dropout, mode, batch_norm, updates)
        train_op_fn = None
        if mode == ModeKeys.TRAIN:
            # TF 2.15: a name gives Keras's optimizer at its default rate; tf.compat.v1: the TF1 one at 0.05
            chosen = get_optimizer(optimizer, V1_LEARNING_RATE, v1=True) if v1 else get_optimizer(optimizer)
            train_op_fn = optimizer_train_op_fn(chosen, lambda: scope_variables("dnn"))
            if v1:   # TF1's partitioned DNN variables: slots saved as `dnn/hiddenlayer_0/kernel/t_0/Adagrad`
                train_op_fn = with_tf1_names(train_op_fn, chosen, lambda: scope_variables("dnn"), "dnn")
            train_op_fn = with_updates(train_op_fn, updates)
        return head.create_estimator_spec(features, mode, logits, labels, train_op_fn)
    return model_fn


def with_updates(train_op_fn: Any, updates: list) -> Any:
    """The train op grouped with the batch-norm moving-average updates (TF's head: group(train_op, *updates))."""
    def grouped(loss: Any) -> Any:
        from webflow.ops.control_flow_ops import group
        train_op = train_op_fn(loss)
        return group(train_op, *updates) if updates else train_op
    return grouped


class DNNClassifier(Estimator):
    """`DNNClassifier(hidden_units, feature_columns, model_dir=None, n_classes=2, weight_column=None,
    label_vocabulary=None, optimizer='Adagrad', activation_fn=tf.nn.relu, dropout=None, config=None, ...)`."""

    _v1 = False  # True in estimator/v1.py's tf.compat.v1.estimator classes

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None, n_classes: int = 2,
                 weight_column: Any = None, label_vocabulary: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = None, dropout: float | None = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE, batch_norm: bool = False):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction, self._v1)
        columns = _check_columns(feature_columns, hidden_units)
        if isinstance(optimizer, str):
            get_optimizer(optimizer)  # an unknown name fails now, as in TensorFlow
        model_fn = _dnn_model_fn(head, tuple(hidden_units), columns, optimizer, activation_fn, dropout, self._v1,
                                 batch_norm)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)


class DNNRegressor(Estimator):
    """`DNNRegressor(hidden_units, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
    optimizer='Adagrad', activation_fn=tf.nn.relu, dropout=None, config=None, ...)`."""

    _v1 = False

    def __init__(self, hidden_units: Any, feature_columns: Any, model_dir: str | None = None,
                 label_dimension: int = 1, weight_column: Any = None, optimizer: Any = "Adagrad",
                 activation_fn: Any = None, dropout: float | None = None, config: Any = None,
                 warm_start_from: Any = None, loss_reduction: str = SUM_OVER_BATCH_SIZE, batch_norm: bool = False):
        check_loss_reduction(loss_reduction)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        columns = _check_columns(feature_columns, hidden_units)
        if isinstance(optimizer, str):
            get_optimizer(optimizer)
        model_fn = _dnn_model_fn(head, tuple(hidden_units), columns, optimizer, activation_fn, dropout, self._v1,
                                 batch_norm)
        super().__init__(model_fn, model_dir, config, warm_start_from=warm_start_from)
