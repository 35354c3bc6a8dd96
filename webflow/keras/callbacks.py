"""`keras.callbacks`: `Callback` (the hooks `fit` calls), `History`, `EarlyStopping`, `ModelCheckpoint`,
`LambdaCallback`, and the `CallbackList` that `fit` runs them through."""

from __future__ import annotations

import math
from typing import Any

from webflow.keras.callback_base import Callback
from webflow.keras.callbacks_more import (  # noqa: F401  (keras.callbacks.<name>)
    CSVLogger,
    LearningRateScheduler,
    ReduceLROnPlateau,
    TensorBoard,
    TerminateOnNaN,
)


class History(Callback):
    """`history.history`: {metric name: [value per epoch]}; `history.epoch`: the epoch numbers run."""

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epoch: list = []
        self.history: dict = {}

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        self.model.history = self


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None, on_batch_begin: Any = None,
                 on_batch_end: Any = None, on_train_begin: Any = None, on_train_end: Any = None, **kwargs: Any):
        super().__init__()
        self.__dict__.update(kwargs)   # as tf_keras: any other hook by its name (on_train_batch_end=, on_test_end= ...)
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_batch_begin", on_batch_begin), ("on_train_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


def _monitor_op(mode: str, monitor: str) -> Any:
    if mode == "auto":
        mode = "max" if "acc" in monitor or monitor.startswith("fmeasure") else "min"
    return (lambda a, b: a < b) if mode == "min" else (lambda a, b: a > b), mode


class EarlyStopping(Callback):
    """Stops `fit` after `patience` epochs without an improvement over `min_delta` of `monitor`."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0, verbose: int = 0,
                 mode: str = "auto", baseline: Any = None, restore_best_weights: bool = False,
                 start_from_epoch: int = 0):
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch
        self.monitor_op, mode = _monitor_op(mode, monitor)
        self.min_delta = abs(min_delta) * (1 if mode == "max" else -1)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait, self.stopped_epoch, self.best_epoch, self.best_weights = 0, 0, 0, None
        self.best = math.inf if self.monitor_op(0, 1) else -math.inf

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        current = (logs or {}).get(self.monitor)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self.monitor_op(current - self.min_delta, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self.monitor_op(current - self.min_delta, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict | None = None) -> None:
        # tf_keras restores the best weights here, whether or not training stopped early
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """Saves the weights (TF checkpoint format) after each epoch to `filepath.format(epoch=..., **logs)`;
    with `save_best_only` only when `monitor` improved."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0, save_best_only: bool = False,
                 save_weights_only: bool = False, mode: str = "auto", save_freq: Any = "epoch",
                 initial_value_threshold: Any = None, **kwargs: Any):
        super().__init__()
        self.filepath, self.monitor, self.verbose = str(filepath), monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self.monitor_op, _ = _monitor_op(mode, monitor)
        self.best = initial_value_threshold if initial_value_threshold is not None else \
            (math.inf if self.monitor_op(0, 1) else -math.inf)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None or not self.monitor_op(current, self.best):
                if self.verbose > 0 and current is not None:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to {current:.5f}, "
                      f"saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        self.model.save_weights(path)


class CallbackList:
    """Runs each hook on every callback, in order."""

    def __init__(self, callbacks: list, model: Any, params: dict):
        self.callbacks = list(callbacks)
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_params(params)

    def __getattr__(self, hook: str) -> Any:
        def run(*args: Any) -> None:
            for callback in self.callbacks:
                getattr(callback, hook)(*args)
        return run


__all__ = ["Callback", "CallbackList", "CSVLogger", "EarlyStopping", "History", "LambdaCallback",
           "LearningRateScheduler", "ModelCheckpoint", "ReduceLROnPlateau", "TensorBoard", "TerminateOnNaN"]
