"""Area under the ROC or precision-recall curve as a streaming metric: `tf.compat.v1.metrics.auc` and the
Keras `AUC` that TF 2.15's premade Estimator heads report (`auc`, `auc_precision_recall`).

Both keep four counts per threshold (`true_positives`, `false_negatives`, `true_negatives`,
`false_positives`, local variables of shape [num_thresholds]) and compute the area from them:

- thresholds (num_thresholds=200): 0 - 1e-7, then i / (num_thresholds - 1) for i = 1 .. num_thresholds - 2,
  then 1 + 1e-7; a prediction p counts as positive at threshold t when p > t.
- `tf.compat.v1.metrics.auc` compares every prediction with every threshold and sums with
  `summation_method='trapezoidal'` (or 'minoring' / 'majoring' / 'careful_interpolation'):
  rates with 1e-7 added, (tp + 1e-7) / (tp + fn + 1e-7), area = sum (x[i] - x[i+1]) * height[i].
- Keras's AUC finds each prediction's bucket ceil(p * (n - 1)) - 1 (at least 0), so tp[i] counts the
  positives with bucket >= i; rates are divide_no_nan; the PR curve uses Davis & Goadrich's interpolation.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.losses.losses_impl import cast
from webflow.metrics.metrics_impl import _graph_only, _publish, _squeeze_or_expand, metric_variable
from webflow.ops import array_ops, logic_ops, math_ops, state_ops, sum_mean_ops
from webflow.ops.binary_math_ops import div_no_nan, maximum, minimum
from webflow.ops.constants import constant
from webflow.ops.variable_scope import variable_scope

_EPSILON = 1e-7
_COUNTS = ("true_positives", "false_negatives", "true_negatives", "false_positives")


def default_thresholds(num_thresholds: int) -> list:
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]


def _column(tensor: Any) -> Any:
    return array_ops.reshape(cast(tensor, dtypes.float32), [-1, 1])


def _count_updates(counts: dict, positive: Any, labels: Any, weights: Any) -> Any:
    """Adds this batch to the four counts: `positive` is [batch, thresholds] (1.0 where predicted positive)."""
    true_labels, false_labels = labels * weights, (1.0 - labels) * weights
    true_positives = sum_mean_ops.reduce_sum(positive * true_labels, 0)
    false_positives = sum_mean_ops.reduce_sum(positive * false_labels, 0)
    batch = {"true_positives": true_positives,
             "false_negatives": sum_mean_ops.reduce_sum(true_labels) - true_positives,
             "true_negatives": sum_mean_ops.reduce_sum(false_labels) - false_positives,
             "false_positives": false_positives}
    return {key: state_ops.assign_add(counts[key], batch[key]) for key in _COUNTS}


def _make_counts(size: int) -> dict:
    return {key: metric_variable([size], dtypes.float32, name=key) for key in _COUNTS}


def _read(counts: dict) -> dict:
    return {key: array_ops.identity(variable.value()) for key, variable in counts.items()}


def _riemann(x: Any, y: Any, size: int, summation_method: str) -> Any:
    left, right = y[:size - 1], y[1:]
    if summation_method == "minoring":
        heights = minimum(left, right)
    elif summation_method == "majoring":
        heights = maximum(left, right)
    else:
        heights = (left + right) / 2.0
    return sum_mean_ops.reduce_sum(math_ops.multiply(x[:size - 1] - x[1:], heights))


def _interpolated_pr_auc(counts: dict, size: int) -> Any:
    """Davis & Goadrich: precision varies along each interval as TP / P with TP and P linear in between."""
    from webflow.ops.unary_math_ops import log
    tp, fp, fn = counts["true_positives"], counts["false_positives"], counts["false_negatives"]
    dtp = tp[:size - 1] - tp[1:]
    p = tp + fp
    dp = p[:size - 1] - p[1:]
    slope = div_no_nan(dtp, maximum(dp, 0.0))
    intercept = tp[1:] - slope * p[1:]
    both_positive = logic_ops.logical_and(logic_ops.greater(p[:size - 1], 0.0), logic_ops.greater(p[1:], 0.0))
    ratio = logic_ops.where(both_positive, div_no_nan(p[:size - 1], maximum(p[1:], 0.0)), array_ops.ones_like(p[1:]))
    increment = div_no_nan(slope * (dtp + intercept * log(ratio)), maximum(tp[1:] + fn[1:], 0.0))
    return sum_mean_ops.reduce_sum(increment)


# --- tf.compat.v1.metrics.auc ----------------------------------------------------------------------------
def _v1_area(counts: dict, size: int, curve: str, summation_method: str, name: str) -> Any:
    tp, fn, tn, fp = (counts[key] for key in _COUNTS)
    recall = math_ops.truediv(tp + _EPSILON, tp + fn + _EPSILON)
    if curve == "ROC":
        x, y = math_ops.truediv(fp, fp + tn + _EPSILON), recall
    else:
        x, y = recall, math_ops.truediv(tp + _EPSILON, tp + fp + _EPSILON)
    if curve == "PR" and summation_method == "careful_interpolation":
        return array_ops.identity(_interpolated_pr_auc(counts, size), name=name)
    return array_ops.identity(_riemann(x, y, size, summation_method), name=name)


def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Any = None, updates_collections: Any = None, curve: str = "ROC",
        name: str | None = None, summation_method: str = "trapezoidal", thresholds: Any = None) -> tuple:
    """`tf.compat.v1.metrics.auc`: (area, update_op) from the counts at each threshold (see module docstring)."""
    _graph_only("auc")
    if curve not in ("ROC", "PR"):
        raise ValueError(f"curve must be either ROC or PR, {curve} unknown")
    if summation_method not in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        raise ValueError(f"Invalid summation_method: {summation_method}")
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if thresholds is None:
            thresholds = default_thresholds(num_thresholds)
        else:
            thresholds = [0.0 - _EPSILON] + sorted(float(t) for t in thresholds) + [1.0 + _EPSILON]
        size = len(thresholds)
        predictions, labels, weights = _squeeze_or_expand(cast(predictions, dtypes.float32),
                                                          cast(labels, dtypes.bool), weights)
        weights = _column(1.0 if weights is None else weights) * array_ops.ones_like(_column(predictions))
        positive = cast(logic_ops.greater(_column(predictions), constant([thresholds], dtypes.float32)),
                        dtypes.float32)
        counts = _make_counts(size)
        value = _v1_area(_read(counts), size, curve, summation_method, "value")
        updated = _count_updates(counts, positive, _column(labels), weights)
        update_op = _v1_area(updated, size, curve, summation_method, "update_op")
        _publish(metrics_collections, value)
        _publish(updates_collections, update_op)
        return value, update_op


# --- Keras's AUC, as the premade heads use it --------------------------------------------------------
def _keras_area(counts: dict, size: int, curve: str) -> Any:
    if curve == "PR":
        return _interpolated_pr_auc(counts, size)
    tp, fn, tn, fp = (counts[key] for key in _COUNTS)
    return _riemann(div_no_nan(fp, fp + tn), div_no_nan(tp, tp + fn), size, "interpolation")


def keras_auc(labels: Any, predictions: Any, weights: Any = None, curve: str = "ROC", num_thresholds: int = 200,
              name: str | None = None) -> tuple:
    """Keras's `AUC(curve=...)` with 200 evenly spaced thresholds, as (value, update_op)."""
    from webflow.ops.unary_math_ops import ceil
    with variable_scope(name, "auc", (labels, predictions, weights)):
        predictions = _column(predictions)
        clipped = maximum(minimum(predictions, 1.0), 0.0)
        bucket = maximum(ceil(clipped * (num_thresholds - 1)) - 1.0, 0.0)
        positive = cast(logic_ops.greater_equal(bucket, constant([list(range(num_thresholds))], dtypes.float32)),
                        dtypes.float32)
        labels = cast(cast(_column(labels), dtypes.bool), dtypes.float32)
        weights = _column(1.0 if weights is None else weights) * array_ops.ones_like(predictions)
        counts = _make_counts(num_thresholds)
        value = _keras_area(_read(counts), num_thresholds, curve)
        updated = _count_updates(counts, positive, labels, weights)
        return value, _keras_area(updated, num_thresholds, curve)


__all__ = ["auc", "keras_auc", "default_thresholds"]
