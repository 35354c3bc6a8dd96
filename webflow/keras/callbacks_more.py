"""More of `keras.callbacks`, with tf_keras's decisions and messages: `ReduceLROnPlateau`, `LearningRateScheduler`,
`CSVLogger`, `TerminateOnNaN`, `TensorBoard` (epoch scalars in `log_dir/train` and `log_dir/validation`).

The learning-rate callbacks read and assign `model.optimizer.learning_rate`, a float32 variable (optimizers.py), so a
traced train step sees the new rate at its next run.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import struct
from typing import Any

from webflow.keras.callback_base import Callback

_LOG = logging.getLogger("tensorflow")


def _float32(value: float) -> float:
    """`value` rounded to float32, as tf_keras reads a rate back from its float32 variable."""
    return struct.unpack("f", struct.pack("f", float(value)))[0]


def _get_lr(model: Any) -> float:
    rate = model.optimizer.learning_rate
    return float(rate.numpy()) if hasattr(rate, "numpy") else float(rate)


def _logged_lr(model: Any) -> Any:
    """The rate as tf_keras logs it: `backend.get_value(optimizer.lr)`, a NumPy float32 (CSVLogger writes 0.02)."""
    rate = model.optimizer.learning_rate
    return rate.numpy() if hasattr(rate, "numpy") else rate


def _set_lr(model: Any, value: float) -> None:
    model.optimizer.learning_rate = value


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by `factor` when `monitor` has not improved (by more than `min_delta`) for
    `patience` epochs; then waits `cooldown` epochs; never below `min_lr`. Adds `lr` to the epoch's logs."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10, verbose: int = 0,
                 mode: str = "auto", min_delta: float = 1e-4, cooldown: int = 0, min_lr: float = 0, **kwargs: Any):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Got {factor}")
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
            _LOG.warning("`epsilon` argument is deprecated and will be removed, use `min_delta` instead.")
        self.monitor, self.factor, self.min_lr, self.min_delta = monitor, factor, min_lr, min_delta
        self.patience, self.verbose, self.cooldown, self.mode = patience, verbose, cooldown, mode
        self._reset()

    def _reset(self) -> None:
        if self.mode not in ("auto", "min", "max"):
            _LOG.warning("Learning rate reduction mode %s is unknown, fallback to auto mode.", self.mode)
            self.mode = "auto"
        if self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = lambda a, b: a < b - self.min_delta
            self.best = math.inf
        else:
            self.monitor_op = lambda a, b: a > b + self.min_delta
            self.best = -math.inf
        self.cooldown_counter, self.wait = 0, 0

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._reset()

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs if logs is not None else {}
        logs["lr"] = _logged_lr(self.model)
        current = logs.get(self.monitor)
        if current is None:
            _LOG.warning("Learning rate reduction is conditioned on metric `%s` which is not available. "
                         "Available metrics are: %s", self.monitor, ",".join(logs))
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best, self.wait = current, 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce(epoch)

    def _reduce(self, epoch: int) -> None:
        old_lr = _get_lr(self.model)
        if old_lr <= _float32(self.min_lr):
            return
        # tf_keras multiplies NumPy float32s (the product rounded to float32), then prints it as a Python float
        new_lr = max(_float32(_float32(old_lr) * _float32(self.factor)), self.min_lr)
        _set_lr(self.model, new_lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new_lr}.")
        self.cooldown_counter, self.wait = self.cooldown, 0


class LearningRateScheduler(Callback):
    """Sets the learning rate to `schedule(epoch, lr)` (or `schedule(epoch)`) at each epoch's start."""

    def __init__(self, schedule: Any, verbose: int = 0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        if not hasattr(self.model.optimizer, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute.')
        try:
            lr = self.schedule(epoch, _get_lr(self.model))
        except TypeError:   # the old one-argument schedules
            lr = self.schedule(epoch)
        if hasattr(lr, "dtype") and hasattr(lr, "numpy"):
            if not lr.dtype.is_floating:
                raise ValueError(f"The dtype of `lr` Tensor should be float. Got: {lr.dtype}")
        elif not (isinstance(lr, float) or str(getattr(lr, "dtype", "")) == "float32"):   # NumPy float32 too
            raise ValueError(f'The output of the "schedule" function should be float. Got: {lr}')
        _set_lr(self.model, float(lr.numpy()) if hasattr(lr, "numpy") else lr)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {lr}.")

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs is not None:
            logs["lr"] = _logged_lr(self.model)


class TerminateOnNaN(Callback):
    """Stops training at the first batch whose loss is NaN or infinite."""

    def on_batch_end(self, batch: int, logs: dict | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(loss.numpy()) if hasattr(loss, "numpy") else float(loss)
        if math.isnan(loss) or math.isinf(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


def _csv_value(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return f"\"[{', '.join(map(str, value))}]\""
    return value


class CSVLogger(Callback):
    """One CSV row per epoch: `epoch` then the logs' keys in sorted order (with `val_` keys even when absent)."""

    def __init__(self, filename: Any, separator: str = ",", append: bool = False):
        super().__init__()
        self.sep, self.filename, self.append = separator, os.fspath(filename), append
        self.writer: Any = None
        self.keys: Any = None
        self.append_header = True

    def on_train_begin(self, logs: dict | None = None) -> None:
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as file:
                    self.append_header = not bool(len(file.readline()))
            mode = "a"
        self.csv_file = open(self.filename, mode, newline="")   # noqa: SIM115 (closed in on_train_end)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if not any(key.startswith("val_") for key in self.keys):
                self.keys.extend(["val_" + key for key in self.keys])
        if self.writer is None:
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch", *self.keys], delimiter=self.sep,
                                         lineterminator="\r\n")
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch, **{key: _csv_value(logs.get(key, "NA")) for key in self.keys}}
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs: dict | None = None) -> None:
        self.csv_file.close()
        self.writer = None


class TensorBoard(Callback):
    """Epoch scalars as tf_keras writes them: `epoch_<name>` of the training logs in `log_dir/train`, of the `val_`
    logs (prefix removed) in `log_dir/validation`, and `evaluation_<name>_vs_iterations` (step = optimizer
    iterations) in `log_dir/validation`; the model's JSON (`keras`, step 0) in `log_dir/train`. Not written: the
    train function's graph, weight histograms, images, profiles."""

    def __init__(self, log_dir: Any = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False, update_freq: Any = "epoch",
                 profile_batch: Any = 0, embeddings_freq: int = 0, embeddings_metadata: Any = None, **kwargs: Any):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.write_graph = write_graph
        self._writers: dict = {}

    def on_train_begin(self, logs: dict | None = None) -> None:
        if self.write_graph:
            self._write_model_config()

    def _write_model_config(self) -> None:
        """tf_keras's `keras_model_summary("keras", model, step=0)`: the model's JSON for TensorBoard's graph
        dashboard (plugin "graph_keras_model", content b"1"), for Sequential and functional models."""
        from webflow.protos import summary_pb2
        from webflow.summary import summary_v2
        try:
            text = self.model.to_json()
        except Exception as error:   # noqa: BLE001 (tf_keras only warns: a model that cannot be saved still trains)
            _LOG.warning("Model failed to serialize as JSON. Ignoring... %s", error)
            return
        metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(
            plugin_name="graph_keras_model", content=b"1")).SerializeToString()
        with self._writer("train").as_default():
            summary_v2.write("keras", text, step=0, metadata=metadata)

    def _writer(self, run: str) -> Any:
        if run not in self._writers:
            from webflow.summary import summary_v2
            folder = "train" if run == "train" else "validation"
            self._writers[run] = summary_v2.create_file_writer(os.path.join(self.log_dir, folder))
        return self._writers[run]

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        from webflow.summary import summary_v2
        train = {k: v for k, v in (logs or {}).items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in (logs or {}).items() if k.startswith("val_")}
        if val:   # tf_keras writes these from on_test_end, before the epoch's scalars
            iterations = int(self.model.optimizer.iterations.numpy())
            with self._writer("val").as_default():
                for name, value in val.items():
                    summary_v2.scalar(f"evaluation_{name}_vs_iterations", float(value), step=iterations)
        for run, values in (("train", train), ("val", val)):
            if values:
                with self._writer(run).as_default():
                    for name, value in values.items():
                        summary_v2.scalar("epoch_" + name, float(value), step=epoch)

    def on_train_end(self, logs: dict | None = None) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
