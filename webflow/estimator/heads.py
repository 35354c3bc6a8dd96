"""The heads of TF 2.15's premade Estimators: from logits to predictions, loss, eval metrics and train op.

- binary (n_classes=2): sigmoid cross-entropy; predictions logits, logistic, probabilities, class_ids,
  classes, all_class_ids, all_classes; metrics accuracy, accuracy_baseline, auc, auc_precision_recall,
  average_loss, label/mean, precision, prediction/mean, recall (besides 'loss');
- multi-class: sparse softmax cross-entropy; predictions logits, probabilities, class_ids, classes,
  all_class_ids, all_classes; metrics accuracy, average_loss;
- regression: squared error; predictions `predictions`; metrics average_loss, label/mean, prediction/mean.

The training loss is the weighted losses reduced with `loss_reduction`: 'sum_over_batch_size' (TF 2.15's
`tf.estimator` default: sum / number of loss elements) or 'sum'. 'average_loss' is the weighted mean of
the per-example loss over all evaluated examples; 'loss' (added by Estimator.evaluate) the mean of the
batches' training losses.
"""

from __future__ import annotations

from typing import Any

from webflow.estimator.canned_optimizers import train_op
from webflow.estimator.mode_keys import ModeKeys
from webflow.estimator.spec import EstimatorSpec
from webflow.framework import dtypes
from webflow.ops.array_ops import reshape
from webflow.ops.math_ops import cast

SUM_OVER_BATCH_SIZE, SUM = "sum_over_batch_size", "sum"  # tf.keras.losses.Reduction: the V2 classes
V1_REDUCTIONS = ("weighted_sum", "weighted_sum_over_batch_size", "weighted_mean", "weighted_sum_by_nonzero_weights")


def check_loss_reduction(loss_reduction: str) -> None:
    if loss_reduction not in (SUM_OVER_BATCH_SIZE, SUM) + V1_REDUCTIONS:
        raise ValueError(f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for valid options.")


def _weights(features: dict, weight_column: Any) -> Any:
    if weight_column is None:
        return None
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    return reshape(cast(features[key], dtypes.float32), [-1, 1])


class _Head:
    """What the three heads share: the loss reduction, the weights, and building the EstimatorSpec."""

    logits_dimension = 1

    v1 = False  # the tf.compat.v1.estimator heads: AUC from tf.compat.v1.metrics.auc

    def __init__(self, weight_column: Any, loss_reduction: str):
        check_loss_reduction(loss_reduction)
        self.weight_column, self.loss_reduction = weight_column, loss_reduction

    def _reduce(self, unweighted: Any, weights: Any) -> Any:
        from webflow.ops.array_ops import size
        from webflow.ops.sum_mean_ops import reduce_sum
        if self.loss_reduction in V1_REDUCTIONS:
            from webflow.losses.losses_impl import compute_weighted_loss
            return compute_weighted_loss(unweighted, 1.0 if weights is None else weights,
                                         reduction=self.loss_reduction)
        weighted = unweighted if weights is None else unweighted * weights
        total = reduce_sum(weighted)
        if self.loss_reduction == SUM:
            return total
        return total / cast(size(weighted), dtypes.float32)

    def create_estimator_spec(self, features: dict, mode: str, logits: Any, labels: Any,
                              train_op_fn: Any = None) -> EstimatorSpec:
        """PREDICT: predictions only; EVAL: loss and metrics; TRAIN: loss and `train_op_fn(loss)`."""
        predictions = self.predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        labels = self.processed_labels(labels)
        weights = _weights(features, self.weight_column)
        unweighted = self.unweighted_loss(logits, labels)
        loss = self._reduce(unweighted, weights)
        if mode == ModeKeys.EVAL:
            from webflow.framework.scopes import name_scope_v1
            with name_scope_v1(None, "metrics"):
                metrics = self.metrics(predictions, labels, unweighted, weights)
            return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op_fn(loss))


class RegressionHead(_Head):
    """Mean squared error regression on `label_dimension` outputs."""

    def __init__(self, label_dimension: int = 1, weight_column: Any = None,
                 loss_reduction: str = SUM_OVER_BATCH_SIZE):
        super().__init__(weight_column, loss_reduction)
        self.logits_dimension = label_dimension

    def predictions(self, logits: Any) -> dict:
        return {"predictions": logits}

    def processed_labels(self, labels: Any) -> Any:
        return reshape(cast(labels, dtypes.float32), [-1, self.logits_dimension])

    def unweighted_loss(self, logits: Any, labels: Any) -> Any:
        from webflow.ops.binary_math_ops import squared_difference
        return squared_difference(logits, labels)

    def metrics(self, predictions: dict, labels: Any, unweighted: Any, weights: Any) -> dict:
        from webflow.metrics.metrics_impl import mean
        return {"average_loss": mean(unweighted, weights, name="average_loss"),
                "label/mean": mean(labels, weights, name="label/mean"),
                "prediction/mean": mean(predictions["predictions"], weights, name="prediction/mean")}


class _ClassificationHead(_Head):
    def __init__(self, n_classes: int, weight_column: Any, label_vocabulary: Any, loss_reduction: str):
        super().__init__(weight_column, loss_reduction)
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(f"label_vocabulary does not have enough elements: {len(label_vocabulary)} vs "
                             f"{n_classes}")
        self.n_classes, self.label_vocabulary = n_classes, label_vocabulary

    def processed_labels(self, labels: Any) -> Any:
        """Labels as int64 class ids [batch, 1]: strings looked up in label_vocabulary, else the integers."""
        from webflow.ops.constants import constant
        from webflow.ops.convert import convert_to_tensor
        from webflow.ops.logic_ops import equal
        from webflow.ops.manip_ops import expand_dims
        from webflow.ops.sum_mean_ops import reduce_sum
        labels = reshape(convert_to_tensor(labels), [-1, 1])
        if self.label_vocabulary is None:
            if labels.dtype == dtypes.string:
                raise ValueError("Labels must be integers when label_vocabulary is not given. Given: string labels")
            return cast(labels, dtypes.int64)
        vocabulary = constant(list(self.label_vocabulary), dtypes.string)
        match = cast(equal(expand_dims(labels, -1), vocabulary), dtypes.int64)
        positions = constant(list(range(len(self.label_vocabulary))), dtypes.int64)
        return reduce_sum(match * positions, -1)

    def _class_predictions(self, logits: Any, two_column_logits: Any) -> dict:
        from webflow.ops.array_ops import shape
        from webflow.ops.concat_ops import stack
        from webflow.ops.constants import constant
        from webflow.ops.gather_ops import gather
        from webflow.ops.manip_ops import expand_dims, tile
        from webflow.ops.reduction_ops import argmax
        from webflow.ops.sequence_ops import range as range_op
        from webflow.ops.string_convert_ops import as_string
        class_ids = expand_dims(argmax(two_column_logits, 1), -1)
        all_ids = tile(expand_dims(range_op(self.n_classes), 0), stack([shape(logits)[0], 1]))
        if self.label_vocabulary is None:
            classes, all_classes = as_string(class_ids), as_string(all_ids)
        else:
            vocabulary = constant(list(self.label_vocabulary), dtypes.string)
            classes, all_classes = gather(vocabulary, class_ids), gather(vocabulary, all_ids)
        return {"class_ids": class_ids, "classes": classes, "all_class_ids": all_ids, "all_classes": all_classes}


class BinaryClassHead(_ClassificationHead):
    """Sigmoid cross-entropy on one logit; class 1 when the logit is > 0."""

    def __init__(self, weight_column: Any = None, label_vocabulary: Any = None,
                 loss_reduction: str = SUM_OVER_BATCH_SIZE):
        super().__init__(2, weight_column, label_vocabulary, loss_reduction)

    def predictions(self, logits: Any) -> dict:
        from webflow.ops.array_ops import zeros_like
        from webflow.ops.concat_ops import concat
        from webflow.ops.nn_ops import softmax
        from webflow.ops.unary_math_ops import sigmoid
        two_column_logits = concat([zeros_like(logits), logits], 1)
        return {"logits": logits, "logistic": sigmoid(logits), "probabilities": softmax(two_column_logits),
                **self._class_predictions(logits, two_column_logits)}

    def unweighted_loss(self, logits: Any, labels: Any) -> Any:
        from webflow.ops.nn_cross_entropy import sigmoid_cross_entropy_with_logits
        return sigmoid_cross_entropy_with_logits(labels=cast(labels, dtypes.float32), logits=logits)

    def metrics(self, predictions: dict, labels: Any, unweighted: Any, weights: Any) -> dict:
        from webflow.metrics.metrics_impl import accuracy, mean, precision, recall
        from webflow.ops.binary_math_ops import maximum
        float_labels, class_ids = cast(labels, dtypes.float32), predictions["class_ids"]
        label_mean = mean(float_labels, weights, name="label/mean")
        # Always predicting the more frequent class: max(mean, 1 - mean) of the labels.
        baseline = tuple(maximum(value, 1.0 - value) for value in label_mean)
        return {"average_loss": mean(unweighted, weights, name="average_loss"),
                "accuracy": accuracy(labels, class_ids, weights, name="accuracy"),
                "precision": precision(labels, class_ids, weights, name="precision"),
                "recall": recall(labels, class_ids, weights, name="recall"),
                "prediction/mean": mean(predictions["logistic"], weights, name="prediction/mean"),
                "label/mean": label_mean, "accuracy_baseline": baseline,
                "auc": self._auc(float_labels, predictions["logistic"], weights, "ROC", "auc"),
                "auc_precision_recall": self._auc(float_labels, predictions["logistic"], weights, "PR",
                                                  "auc_precision_recall")}

    def _auc(self, labels: Any, scores: Any, weights: Any, curve: str, name: str) -> tuple:
        from webflow.metrics.auc_impl import auc, keras_auc
        if self.v1:
            return auc(labels, scores, weights, curve=curve, name=name)
        return keras_auc(labels, scores, weights, curve, name=name)


class MultiClassHead(_ClassificationHead):
    """Sparse softmax cross-entropy on `n_classes` logits; the class is the argmax."""

    def __init__(self, n_classes: int, weight_column: Any = None, label_vocabulary: Any = None,
                 loss_reduction: str = SUM_OVER_BATCH_SIZE):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}")
        super().__init__(n_classes, weight_column, label_vocabulary, loss_reduction)
        self.logits_dimension = n_classes

    def predictions(self, logits: Any) -> dict:
        from webflow.ops.nn_ops import softmax
        return {"logits": logits, "probabilities": softmax(logits), **self._class_predictions(logits, logits)}

    def unweighted_loss(self, logits: Any, labels: Any) -> Any:
        from webflow.ops.manip_ops import expand_dims, squeeze
        from webflow.ops.nn_cross_entropy import sparse_softmax_cross_entropy_with_logits
        per_example = sparse_softmax_cross_entropy_with_logits(labels=squeeze(labels, [1]), logits=logits)
        return expand_dims(per_example, -1)

    def metrics(self, predictions: dict, labels: Any, unweighted: Any, weights: Any) -> dict:
        from webflow.metrics.metrics_impl import accuracy, mean
        return {"average_loss": mean(unweighted, weights, name="average_loss"),
                "accuracy": accuracy(labels, predictions["class_ids"], weights, name="accuracy")}


def classification_head(n_classes: int, weight_column: Any, label_vocabulary: Any, loss_reduction: str,
                        v1: bool = False) -> _Head:
    """TF's choice: the binary head for n_classes == 2, the multi-class head above."""
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1: {n_classes}")
    if n_classes == 2:
        head: _Head = BinaryClassHead(weight_column, label_vocabulary, loss_reduction)
    else:
        head = MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)
    head.v1 = v1
    return head


def optimizer_train_op_fn(optimizer: Any, var_list: Any) -> Any:
    """`train_op_fn(loss)` for one optimizer that also increments the global step."""
    def train_op_fn(loss: Any) -> Any:
        from webflow.train.training_util import get_or_create_global_step
        return train_op(optimizer, loss, var_list(), get_or_create_global_step())
    return train_op_fn
