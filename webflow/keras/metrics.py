"""`keras.metrics`: streaming metrics (`update_state`, `result`, `reset_state`) kept as a weighted total and count.

As in tf_keras, the total and the count are two float32 variables (`metric.variables`: `total:0`, `count:0`) and
`result()` is a tensor (total / count, 0 before any update): so `update_state` works eagerly and inside a
`tf.function` alike (a custom training loop's traced step updates the same variables). Accuracy metrics are the
Mean of a per-example 0/1 match; `fit` reports a metric's running value over the epoch.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend
from webflow.ops.array_ops import reshape
from webflow.ops.binary_math_ops import div_no_nan
from webflow.ops.broadcast_ops import broadcast_to
from webflow.ops.logic_ops import equal
from webflow.ops.math_ops import cast
from webflow.ops.reduction_ops import argmax
from webflow.ops.state_ops import Variable
from webflow.ops.sum_mean_ops import reduce_sum


def _float32(value: Any) -> Any:
    return cast(backend.convert_to_tensor(value), dtypes.float32)


class Mean:
    """The (weighted) mean of every value given to `update_state` since the last reset."""

    def __init__(self, name: str = "mean", dtype: Any = None):
        self.name = name
        self.total = Variable(0.0, name="total", trainable=False, dtype=dtypes.float32)
        self.count = Variable(0.0, name="count", trainable=False, dtype=dtypes.float32)

    @property
    def variables(self) -> list:
        return [self.total, self.count]

    weights = variables

    def reset_state(self) -> None:
        for variable in self.variables:
            variable.assign(0.0)

    reset_states = reset_state

    def update_state(self, values: Any, sample_weight: Any = None) -> Any:
        """total += sum(values * w), count += sum(w) (w: sample_weight broadcast to the values' shape, else 1)."""
        values = _float32(values)
        if sample_weight is None:
            total, count = reduce_sum(values), cast(_size(values), dtypes.float32)
        else:
            weights = broadcast_to(_aligned(_float32(sample_weight), values), _shape_of(values))
            total, count = reduce_sum(values * weights), reduce_sum(weights)
        self.total.assign_add(total)
        return self.count.assign_add(count)

    def result(self) -> Any:
        return div_no_nan(self.total.read_value(), self.count.read_value())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.update_state(*args, **kwargs)
        return self.result()


def _aligned(weights: Any, values: Any) -> Any:
    """Weights shaped to broadcast like tf_keras's (squeeze_or_expand_dimensions): a trailing size-1 axis dropped,
    or axes added at the end, so [batch] weights cover each row of [batch, time] values."""
    from webflow.ops.manip_ops import expand_dims, squeeze
    if weights.shape.rank is None or values.shape.rank is None:
        return weights
    if weights.shape.rank == values.shape.rank + 1 and weights.shape.as_list()[-1] == 1:
        weights = squeeze(weights, [-1])
    while weights.shape.rank < values.shape.rank:
        weights = expand_dims(weights, -1)
    return weights


def _size(values: Any) -> Any:
    from webflow.ops.array_ops import size
    return size(values)


def _shape_of(values: Any) -> Any:
    from webflow.ops.array_ops import shape
    return shape(values)


class MeanMetricWrapper(Mean):
    """The running mean of `fn(y_true, y_pred)` per example."""

    fn: Any = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        super().update_state(type(self).fn(y_true, y_pred), sample_weight)


def accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = backend.convert_to_tensor(y_pred)
    return cast(equal(cast(backend.convert_to_tensor(y_true), y_pred.dtype), y_pred), dtypes.float32)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    predicted = argmax(y_pred, axis=-1)   # [batch] or [batch, time]: the labels take its shape
    labels = cast(reshape(backend.convert_to_tensor(y_true), _shape_of(predicted)), dtypes.int64)
    return cast(equal(predicted, labels), dtypes.float32)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return cast(equal(argmax(y_pred, axis=-1), argmax(y_true, axis=-1)), dtypes.float32)


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_pred = backend.convert_to_tensor(y_pred)
    predicted = cast(y_pred > threshold, y_pred.dtype)
    return cast(equal(cast(backend.convert_to_tensor(y_true), y_pred.dtype), predicted), dtypes.float32)


class Accuracy(MeanMetricWrapper):
    fn = staticmethod(accuracy)

    def __init__(self, name: str = "accuracy", dtype: Any = None):
        super().__init__(name)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    fn = staticmethod(sparse_categorical_accuracy)

    def __init__(self, name: str = "sparse_categorical_accuracy", dtype: Any = None):
        super().__init__(name)


class CategoricalAccuracy(MeanMetricWrapper):
    fn = staticmethod(categorical_accuracy)

    def __init__(self, name: str = "categorical_accuracy", dtype: Any = None):
        super().__init__(name)


class BinaryAccuracy(MeanMetricWrapper):
    fn = staticmethod(binary_accuracy)

    def __init__(self, name: str = "binary_accuracy", dtype: Any = None):
        super().__init__(name)


_ACCURACY_FOR_LOSS = {"sparse_categorical_crossentropy": SparseCategoricalAccuracy,
                      "categorical_crossentropy": CategoricalAccuracy, "binary_crossentropy": BinaryAccuracy}


def get(identifier: Any, loss_name: str = "") -> Any:
    """A metric object; `"accuracy"`/`"acc"` picks the accuracy that fits the loss (named "accuracy")."""
    if not isinstance(identifier, str):
        return identifier
    if identifier in ("accuracy", "acc"):
        return _ACCURACY_FOR_LOSS.get(loss_name, Accuracy)(name=identifier)
    by_name = {"sparse_categorical_accuracy": SparseCategoricalAccuracy, "categorical_accuracy": CategoricalAccuracy,
               "binary_accuracy": BinaryAccuracy}
    if identifier not in by_name:
        raise ValueError(f"Unknown metric function: '{identifier}'.")
    return by_name[identifier]()
