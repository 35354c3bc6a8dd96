"""What `compile` leaves on a model for a custom `train_step` to use, as tf_keras's guides write it:

    loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)   # also updates the "loss" tracker
    self.compiled_metrics.update_state(y, y_pred)
    return {m.name: m.result() for m in self.metrics}

Inside a traced step (step_functions.py) the streaming metrics, which are Python numbers, are not touched: the
loss and predictions are handed out of the graph (`model._deferred_metric_updates`) and applied eagerly after
the call, and the values the step returned for metric names are replaced by the metrics' results then.
"""

from __future__ import annotations

from typing import Any

from webflow.keras.masks import get_mask


def _deferring(model: Any) -> bool:
    return getattr(model, "_deferred_metric_updates", None) is not None


class CompiledLoss:
    """`model.compiled_loss(y_true, y_pred)`: the compiled loss plus the model's losses (`add_loss`, regularizers)."""

    def __init__(self, model: Any):
        self.model = model

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None, regularization_losses: Any = None) -> Any:
        loss = self.model._compute_loss(y_true, y_pred)
        if _deferring(self.model):
            self.model._deferred_metric_updates.append(("loss", loss))
        else:
            self.model._loss_tracker.update_state(loss, sample_weight=batch_size(y_pred))
        return loss


class CompiledMetrics(list):
    """The compiled metrics (a list, as before), with `update_state(y_true, y_pred)` updating each."""

    def __init__(self, model: Any, metrics: list):
        super().__init__(metrics)
        self.model = model

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        weights = metric_weights(y_pred, sample_weight)
        if _deferring(self.model):
            self.model._deferred_metric_updates.append(("metrics", y_pred, weights))
            return
        for metric in self:
            metric.update_state(y_true, y_pred, sample_weight=weights)


def metric_weights(y_pred: Any, sample_weight: Any = None) -> Any:
    """The metrics' sample weights, as tf_keras's MetricsContainer gives them: a masked output's mask (as floats;
    padding counts for nothing), times `sample_weight` when there is one."""
    mask = get_mask(y_pred)
    if mask is None:
        return sample_weight
    from webflow.ops.math_ops import cast
    weights = cast(mask, y_pred.dtype)
    return weights if sample_weight is None else weights * sample_weight


def apply_deferred(model: Any, deferred: list, y_true: Any, size: int) -> None:
    """The updates a traced step collected, done now on its (eager) results."""
    for kind, value, *weights in deferred:
        if kind == "loss":
            model._loss_tracker.update_state(value, sample_weight=size)
        else:
            for metric in model.compiled_metrics:
                metric.update_state(y_true, value, sample_weight=weights[0] if weights else None)


def batch_size(value: Any) -> int:
    first = value[0] if isinstance(value, (list, tuple)) else value
    if isinstance(first, dict):   # a dict of features: the batch of the first by key
        first = first[sorted(first)[0]]
    return int(first.shape[0])
