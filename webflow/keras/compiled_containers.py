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
        if _deferring(self.model):
            self.model._deferred_metric_updates.append(("metrics", y_pred))
            return
        for metric in self:
            metric.update_state(y_true, y_pred)


def apply_deferred(model: Any, deferred: list, y_true: Any, size: int) -> None:
    """The updates a traced step collected, done now on its (eager) results."""
    for kind, value in deferred:
        if kind == "loss":
            model._loss_tracker.update_state(value, sample_weight=size)
        else:
            for metric in model.compiled_metrics:
                metric.update_state(y_true, value)


def batch_size(value: Any) -> int:
    first = value[0] if isinstance(value, (list, tuple)) else value
    return int(first.shape[0])
