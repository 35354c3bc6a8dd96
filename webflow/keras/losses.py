"""`keras.losses`: loss objects (mean over the batch: SUM_OVER_BATCH_SIZE) and their functions, tf_keras's math.

Probabilities (from_logits=False) are clipped to [1e-7, 1 - 1e-7] before the log, as tf_keras's backend does.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.keras import backend
from webflow.ops import nn_cross_entropy, unary_math_ops
from webflow.ops.array_ops import reshape
from webflow.ops.math_ops import cast
from webflow.ops.sum_mean_ops import reduce_mean, reduce_sum
from webflow.train.clip_ops import clip_by_value

EPS = backend.EPSILON


def _clipped(y_pred: Any) -> Any:
    return clip_by_value(y_pred, EPS, 1.0 - EPS)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, axis: int = -1) -> Any:
    """-log p[label] per example (labels are class indices)."""
    y_pred = backend.convert_to_tensor(y_pred)
    y_true = backend.convert_to_tensor(y_true)
    _check_sparse_labels(y_true, y_pred)
    logits = y_pred if from_logits else unary_math_ops.log(_clipped(y_pred))
    labels = cast(reshape(y_true, [-1]), dtypes.int64)
    dims = logits.shape.as_list()
    if len(dims) > 2:   # [batch, time, classes] (sequence outputs): one loss per (example, timestep), as tf_keras
        flat = nn_cross_entropy.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=reshape(logits, [-1, dims[-1]]))
        return reshape(flat, backend.shape(logits)[:-1])
    return nn_cross_entropy.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def _check_sparse_labels(y_true: Any, y_pred: Any) -> None:
    """One-hot labels given to a sparse loss: tf_keras's shape error, and which loss fits them."""
    labels, logits = y_true.shape.as_list(), y_pred.shape.as_list()
    if len(labels) == len(logits) and labels[-1] not in (1, None):
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                         f"labels.shape={tuple(labels)} and logits.shape={tuple(logits)} (these labels look one-hot: "
                         "use CategoricalCrossentropy / 'categorical_crossentropy' for them, or give class indices)")


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0,
                             axis: int = -1) -> Any:
    """-sum(y_true * log p) per example (one-hot labels); probabilities renormalized to sum 1 first."""
    y_pred = backend.convert_to_tensor(y_pred)
    y_true = cast(backend.convert_to_tensor(y_true), y_pred.dtype)
    if from_logits:
        return nn_cross_entropy.softmax_cross_entropy_with_logits_v2(labels=y_true, logits=y_pred)
    y_pred = y_pred / reduce_sum(y_pred, axis=-1, keepdims=True)
    return -reduce_sum(y_true * unary_math_ops.log(_clipped(y_pred)), axis=-1)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False, label_smoothing: float = 0.0,
                        axis: int = -1) -> Any:
    """The mean over the last axis of -(y log p + (1 - y) log(1 - p))."""
    y_pred = backend.convert_to_tensor(y_pred)
    y_true = cast(backend.convert_to_tensor(y_true), y_pred.dtype)
    if from_logits:
        return reduce_mean(nn_cross_entropy.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred), -1)
    p = _clipped(y_pred)
    per_entry = y_true * unary_math_ops.log(p + EPS) + (1.0 - y_true) * unary_math_ops.log(1.0 - p + EPS)
    return -reduce_mean(per_entry, axis=-1)


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    y_pred = backend.convert_to_tensor(y_pred)
    y_true = cast(backend.convert_to_tensor(y_true), y_pred.dtype)
    return reduce_mean(unary_math_ops.square(y_pred - y_true), axis=-1)


def _squeeze_extra_unit_axis(y_true: Any, y_pred: Any) -> tuple:
    """tf_keras's squeeze_or_expand_dimensions for a wrapped loss: labels [batch] against predictions [batch, 1]
    (or the other way round) lose the unit axis, instead of broadcasting to [batch, batch]."""
    from webflow.ops.manip_ops import squeeze
    y_true, y_pred = backend.convert_to_tensor(y_true), backend.convert_to_tensor(y_pred)
    true_rank, pred_rank = y_true.shape.ndims, y_pred.shape.ndims
    if true_rank is None or pred_rank is None or pred_rank == 0 or true_rank == 0:
        return y_true, y_pred
    if pred_rank - true_rank == 1 and y_pred.shape.as_list()[-1] == 1:
        return y_true, squeeze(y_pred, [-1])
    if pred_rank - true_rank == -1 and y_true.shape.as_list()[-1] == 1:
        return squeeze(y_true, [-1]), y_pred
    return y_true, y_pred


class Loss:
    """A loss object: `loss(y_true, y_pred, sample_weight=None)` -> the mean of the per-example losses."""

    function: Any = None

    def __init__(self, reduction: str = "auto", name: str | None = None, **options: Any):
        self.reduction = reduction
        self.name = name or _NAMES[type(self).__name__]
        self.options = options

    def call(self, y_true: Any, y_pred: Any) -> Any:
        y_true, y_pred = _squeeze_extra_unit_axis(y_true, y_pred)
        return type(self).function(y_true, y_pred, **self.options)

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        per_example = self.call(y_true, y_pred)
        if sample_weight is not None:
            per_example = per_example * cast(backend.convert_to_tensor(sample_weight), per_example.dtype)
        if self.reduction == "none":
            return per_example
        if self.reduction == "sum":
            return reduce_sum(per_example)
        return reduce_mean(per_example)


class SparseCategoricalCrossentropy(Loss):
    function = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits: bool = False, ignore_class: Any = None, reduction: str = "auto",
                 name: str | None = None):
        super().__init__(reduction, name, from_logits=from_logits)


class CategoricalCrossentropy(Loss):
    function = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = "auto", name: str | None = None):
        super().__init__(reduction, name, from_logits=from_logits)


class BinaryCrossentropy(Loss):
    function = staticmethod(binary_crossentropy)

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str = "auto", name: str | None = None):
        super().__init__(reduction, name, from_logits=from_logits)


class MeanSquaredError(Loss):
    function = staticmethod(mean_squared_error)


_NAMES = {"SparseCategoricalCrossentropy": "sparse_categorical_crossentropy",
          "CategoricalCrossentropy": "categorical_crossentropy", "BinaryCrossentropy": "binary_crossentropy",
          "MeanSquaredError": "mean_squared_error"}
_BY_NAME = {"sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
            "categorical_crossentropy": CategoricalCrossentropy, "binary_crossentropy": BinaryCrossentropy,
            "mean_squared_error": MeanSquaredError, "mse": MeanSquaredError}
mse = MSE = mean_squared_error


def get(identifier: Any) -> Any:
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: '{identifier}'. Please ensure you are using a "
                             "`keras.utils.custom_object_scope` and that this object is included in the scope.")
        return _BY_NAME[identifier]()
    return identifier
