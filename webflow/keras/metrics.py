"""`keras.metrics`: streaming metrics (`update_state`, `result`, `reset_state`) kept as a weighted total and count.

Accuracy metrics are the Mean of a per-example 0/1 match; `fit` reports a metric's running value over the epoch.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend
from webflow.ops.array_ops import reshape
from webflow.ops.logic_ops import equal
from webflow.ops.math_ops import cast
from webflow.ops.reduction_ops import argmax
from webflow.ops.sum_mean_ops import reduce_sum


def _total(value: Any) -> tuple[float, int]:
    tensor = backend.convert_to_tensor(value)
    size = 1
    for dim in tensor.shape.as_list():
        size *= dim
    return float(reduce_sum(cast(tensor, dtypes.float64)).numpy()), size


class Mean:
    """The (weighted) mean of every value given to `update_state` since the last reset."""

    def __init__(self, name: str = "mean", dtype: Any = None):
        self.name = name
        self.reset_state()

    def reset_state(self) -> None:
        self.total = 0.0
        self.count = 0.0

    reset_states = reset_state

    def update_state(self, values: Any, sample_weight: Any = None) -> None:
        total, size = _total(values)
        if sample_weight is not None and size == 1:   # one value standing for `sample_weight` examples
            weight = float(sample_weight)
            self.total += total * weight
            self.count += weight
            return
        self.total += total
        self.count += size

    def result(self) -> float:
        return self.total / self.count if self.count else 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        self.update_state(*args, **kwargs)
        return self.result()


class MeanMetricWrapper(Mean):
    """The running mean of `fn(y_true, y_pred)` per example."""

    fn: Any = None

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        super().update_state(type(self).fn(y_true, y_pred))


def accuracy(y_true: Any, y_pred: Any) -> Any:
    y_pred = backend.convert_to_tensor(y_pred)
    return cast(equal(cast(backend.convert_to_tensor(y_true), y_pred.dtype), y_pred), dtypes.float32)


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    labels = cast(reshape(backend.convert_to_tensor(y_true), [-1]), dtypes.int64)
    return cast(equal(argmax(y_pred, axis=-1), labels), dtypes.float32)


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
