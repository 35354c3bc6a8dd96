"""TF1's streaming metrics: `value, update_op = tf.metrics.accuracy(labels, predictions)`.

A metric keeps running sums in local variables created zero (`accuracy/total`, `accuracy/count`),
collected in LOCAL_VARIABLES and METRIC_VARIABLES, so `tf.local_variables_initializer()` resets them.
- `update_op` adds this batch to the sums and returns the metric over everything seen so far
  (computed from the AssignAdd results, so one `run(update_op)` gives the updated value);
- `value` reads the variables without changing them.
Divisions by zero give 0 (DivNoNan, or a Select for precision/recall), as TensorFlow's. The ops are
built in TensorFlow's order so the node names match (`accuracy/value:0`, `accuracy/update_op:0`).
Graph mode only: TensorFlow raises RuntimeError when executing eagerly, and so does webflow.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import add_to_collections, control_dependencies, name_scope_v1
from webflow.losses.losses_impl import cast
from webflow.losses.weights_broadcast import broadcast_weights, remove_squeezable_dimensions
from webflow.ops import array_ops, logic_ops, manip_ops, math_ops, state_ops, sum_mean_ops
from webflow.ops.binary_math_ops import div_no_nan, maximum, squared_difference
from webflow.ops.control_flow_ops import no_op
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.variable_scope import variable_scope


def _graph_only(metric: str) -> None:
    if context.executing_eagerly():
        raise RuntimeError(f"tf.metrics.{metric} is not supported when eager execution is enabled.")


def metric_variable(shape: list, dtype: Any, validate_shape: bool = True, name: str | None = None) -> Any:
    """A zero-initialized, non-trainable local variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return state_ops.RefVariable(lambda: array_ops.zeros(shape, dtype), trainable=False,
                                 collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
                                 validate_shape=validate_shape, name=name)


def _squeeze_or_expand(predictions: Any, labels: Any, weights: Any) -> tuple:
    """Labels/predictions with a squeezable trailing 1 removed; weights squeezed or expanded by one axis
    to the predictions' rank (static ranks; with an unknown rank they are left as they are)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    weights_rank, predictions_rank = weights.shape.rank, predictions.shape.rank
    if weights_rank == 0 or weights_rank is None or predictions_rank is None:
        return predictions, labels, weights
    if weights_rank - predictions_rank == 1:
        weights = manip_ops.squeeze(weights, [-1])
    elif predictions_rank - weights_rank == 1:
        weights = manip_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


def _publish(collections: Any, tensor: Any) -> None:
    if collections:
        add_to_collections(collections, tensor)


# --- mean and the metrics built on it -------------------------------------------------------------
def mean(values: Any, weights: Any = None, metrics_collections: Any = None, updates_collections: Any = None,
         name: str | None = None) -> tuple:
    """Running weighted mean: total += sum(w * v), count += sum(w); value = total / count (0 when count is 0)."""
    _graph_only("mean")
    with variable_scope(name, "mean", (values, weights)):
        values = cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _squeeze_or_expand(values, None, weights)
            weights = broadcast_weights(cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = sum_mean_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, sum_mean_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = div_no_nan(total, maximum(count, 0), name="value")
        _publish(metrics_collections, mean_t)
        update_op = div_no_nan(update_total_op, maximum(update_count_op, 0), name="update_op")
        _publish(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
             updates_collections: Any = None, name: str | None = None) -> tuple:
    """Running (weighted) fraction of predictions equal to labels: the mean of `predictions == labels`."""
    _graph_only("accuracy")
    predictions, labels, weights = _squeeze_or_expand(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype.base_dtype is not predictions.dtype.base_dtype:
        predictions = cast(predictions, labels.dtype)
    is_correct = cast(logic_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                       updates_collections: Any = None, name: str | None = None) -> tuple:
    """Running (weighted) mean of (labels - predictions)^2."""
    _graph_only("mean_squared_error")
    predictions, labels, weights = _squeeze_or_expand(predictions, labels, weights)
    squared_error = squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections, name or "mean_squared_error")


# --- counts of a condition: true/false positives/negatives, precision, recall ----------------------
def _assert_bool(values: Any) -> None:
    """TF's assert_type with a static answer: a NoOp when the dtype is bool, else TypeError."""
    with name_scope_v1(None, "assert_type", (values,)):
        if values.dtype.base_dtype is not dtypes.bool:
            raise TypeError(f"{values.name} must be of type tf.bool; got {values.dtype.name}")
        no_op(name="statically_determined_correct_type")


def _assert_rank_in(weights: Any, values: Any) -> Any:
    """Weights must be a scalar or have the values' rank (TF's assert_rank_in, static ranks only)."""
    values_rank = array_ops.rank(values)
    with name_scope_v1(None, "assert_rank_in", (weights, values_rank)):
        weights = convert_to_tensor(weights, name="x")
        ranks = (convert_to_tensor(0, name="rank"), values_rank)
        array_ops.shape(weights)
        for rank in ranks:
            with name_scope_v1(None, "assert_type", (rank,)):
                no_op(name="statically_determined_correct_type")
        static = tuple(constant_value(r) for r in ranks)
        if weights.shape.rank is None or any(r is None for r in static):
            return None   # TF checks at run time here; webflow leaves it to the Mul that follows
        if weights.shape.rank not in [int(r) for r in static]:
            raise ValueError(f"Tensor {weights.name} must have rank in {tuple(int(r) for r in static)}. "
                             f"Received rank {weights.shape.rank}, shape {weights.shape}")
        return no_op(name="static_checks_determined_all_ok")


def _count_condition(values: Any, weights: Any = None, metrics_collections: Any = None,
                     updates_collections: Any = None) -> tuple:
    """count += sum(w * values) for boolean `values`; value = count."""
    _assert_bool(values)
    count = metric_variable([], dtypes.float32, name="count")
    values = cast(values, dtypes.float32)
    if weights is not None:
        check = _assert_rank_in(weights, values)
        with control_dependencies([check] if check is not None else []):
            weights = cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = array_ops.identity(count.value())  # TF reads the variable through `read_var`
    _publish(metrics_collections, value_tensor)
    update_op = state_ops.assign_add(count, sum_mean_ops.reduce_sum(values))
    _publish(updates_collections, update_op)
    return value_tensor, update_op


def _condition_metric(metric: str, label_value: bool, prediction_value: bool) -> Any:
    def counter(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
                updates_collections: Any = None, name: str | None = None) -> tuple:
        _graph_only(metric)
        with variable_scope(name, metric, (predictions, labels, weights)):
            predictions, labels, weights = _squeeze_or_expand(cast(predictions, dtypes.bool),
                                                              cast(labels, dtypes.bool), weights)
            hits = logic_ops.logical_and(logic_ops.equal(labels, label_value),
                                         logic_ops.equal(predictions, prediction_value))
            return _count_condition(hits, weights, metrics_collections, updates_collections)

    counter.__name__ = metric
    counter.__doc__ = f"Running (weighted) count of labels == {label_value} and predictions == {prediction_value}."
    return counter


true_positives = _condition_metric("true_positives", True, True)
false_positives = _condition_metric("false_positives", False, True)
false_negatives = _condition_metric("false_negatives", True, False)


def _ratio(hits: Any, misses: Any, name: str) -> Any:
    """hits / (hits + misses), or 0 when the sum is 0 (a Select, as TF)."""
    return logic_ops.where_v1(logic_ops.greater(hits + misses, 0), math_ops.truediv(hits, hits + misses), 0,
                              name=name)


def _ratio_metric(metric: str, miss_counter: Any, labels: Any, predictions: Any, weights: Any,
                  metrics_collections: Any, updates_collections: Any, name: str | None) -> tuple:
    _graph_only(metric)
    with variable_scope(name, metric, (predictions, labels, weights)):
        predictions, labels, weights = _squeeze_or_expand(cast(predictions, dtypes.bool),
                                                          cast(labels, dtypes.bool), weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        misses, misses_update = miss_counter(labels, predictions, weights)
        value = _ratio(true_p, misses, "value")
        _publish(metrics_collections, value)
        update_op = _ratio(true_p_update, misses_update, "update_op")
        _publish(updates_collections, update_op)
        return value, update_op


def precision(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
              updates_collections: Any = None, name: str | None = None) -> tuple:
    """Running true_positives / (true_positives + false_positives) for boolean-castable labels and predictions."""
    return _ratio_metric("precision", false_positives, labels, predictions, weights, metrics_collections,
                         updates_collections, name)


def recall(labels: Any, predictions: Any, weights: Any = None, metrics_collections: Any = None,
           updates_collections: Any = None, name: str | None = None) -> tuple:
    """Running true_positives / (true_positives + false_negatives)."""
    return _ratio_metric("recall", false_negatives, labels, predictions, weights, metrics_collections,
                         updates_collections, name)


__all__ = ["mean", "accuracy", "mean_squared_error", "true_positives", "false_positives", "false_negatives",
           "precision", "recall", "metric_variable"]
