"""What a Model adds to a Layer: `compile`, `fit`, `evaluate`, `predict`, `*_on_batch`, `summary`, weights I/O.

One training step (tf_keras's `train_step`): predictions with training=True, the compiled loss (the mean over the
batch), gradients of it by GradientTape, `optimizer.apply_gradients`; the epoch's reported loss is the mean of the
batch losses weighted by batch size, each metric its running value over the epoch.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.autodiff.tape import GradientTape
from webflow.keras import callbacks as callbacks_module
from webflow.keras import losses as losses_module
from webflow.keras import metrics as metrics_module
from webflow.keras import optimizers as optimizers_module
from webflow.keras import step_functions
from webflow.keras.compiled_containers import CompiledLoss, CompiledMetrics, metric_weights
from webflow.keras.data_order import DataOrder
from webflow.keras.masks import get_mask, loss_weights
from webflow.keras.progbar import Progbar
from webflow.keras.sample_weights import class_weighted, loss_weights_for
from webflow.keras.sparse_batches import check_splittable, has_sparse, row_count, take_rows
from webflow.ops.dataset_values import INFINITE
from webflow.ops.math_ops import cast


class TrainingMixin:
    def _init_training(self) -> None:
        for key, value in (("optimizer", None), ("loss", None), ("compiled_metrics", []), ("stop_training", False),
                           ("history", None), ("_loss_tracker", None), ("train_function", None),
                           ("test_function", None), ("predict_function", None)):   # step_functions.py makes them
            object.__setattr__(self, key, value)

    # --- compile ---

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None, loss_weights: Any = None,
                weighted_metrics: Any = None, run_eagerly: Any = None, steps_per_execution: Any = None,
                jit_compile: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "optimizer", optimizers_module.get(optimizer))
        self._track("optimizer", self.optimizer)   # a checkpoint edge: restores state a load_weights left waiting
        object.__setattr__(self, "loss", losses_module.get(loss))
        loss_name = getattr(self.loss, "name", loss if isinstance(loss, str) else "")
        object.__setattr__(self, "compiled_metrics",
                           CompiledMetrics(self, [metrics_module.get(m, loss_name) for m in metrics or []]))
        object.__setattr__(self, "compiled_loss", CompiledLoss(self))
        object.__setattr__(self, "_loss_tracker", metrics_module.Mean("loss"))
        object.__setattr__(self, "_run_eagerly", bool(run_eagerly))
        object.__setattr__(self, "_compile_arguments", {   # what model.save keeps (saving_compile.py)
            "loss": loss, "metrics": metrics, "loss_weights": loss_weights, "weighted_metrics": weighted_metrics,
            "run_eagerly": run_eagerly, "steps_per_execution": steps_per_execution, "jit_compile": jit_compile})
        for stale in ("train_function", "test_function", "predict_function"):
            object.__setattr__(self, stale, None)   # a new optimizer or loss: trace (and build slots) again

    @property
    def run_eagerly(self) -> bool:
        return bool(getattr(self, "_run_eagerly", False))

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        object.__setattr__(self, "_run_eagerly", bool(value))

    def _compute_loss(self, y: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        if self.loss is None:
            raise ValueError("No loss found. You may have forgotten to provide a `loss` argument in the "
                             "`compile()` method.")
        output_mask = get_mask(y_pred) if hasattr(self.loss, "reduction") else None
        weights = None if sample_weight is None else loss_weights_for(sample_weight, y_pred)   # sample_weights.py
        if output_mask is not None:   # tf_keras averages a masked output's loss over its real timesteps only
            mask_weights = loss_weights(output_mask, y_pred.dtype)
            weights = mask_weights if weights is None else mask_weights * cast(weights, y_pred.dtype)
        if weights is not None:
            value = self.loss(y, y_pred, sample_weight=weights)
        else:
            value = self.loss(y, y_pred)
        for extra in getattr(self, "losses", []) or []:
            value = value + extra
        return value

    def _reset_metrics(self) -> None:
        for metric in [self._loss_tracker, *self.compiled_metrics]:
            metric.reset_state()

    @property
    def metrics(self) -> list:
        """The "loss" tracker and the compiled metrics (tf_keras's `model.metrics` once compiled)."""
        return [self._loss_tracker, *self.compiled_metrics] if self._loss_tracker is not None else []

    @property
    def metrics_names(self) -> list:
        return [metric.name for metric in self.metrics]

    def _update_metrics(self, loss: Any, y: Any, y_pred: Any, batch_size: int) -> dict:
        weights = metric_weights(y_pred)   # a masked output's metrics count its real timesteps only
        if getattr(self, "_deferred_metric_updates", None) is not None:   # inside a traced step: see step_functions
            self._deferred_metric_updates.extend([("loss", loss), ("metrics", y_pred, weights)])
            return {}
        self._loss_tracker.update_state(loss, sample_weight=batch_size)
        for metric in self.compiled_metrics:
            metric.update_state(y, y_pred, sample_weight=weights)
        return {metric.name: metric.result() for metric in [self._loss_tracker, *self.compiled_metrics]}

    # --- one batch ---

    def train_step(self, data: tuple) -> dict:
        x, y, sample_weight = data[0], data[1], data[2] if len(data) > 2 else None
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self._compute_loss(y, y_pred, sample_weight)
        variables = self.trainable_weights
        self.optimizer.minimize(loss, variables, tape=tape)   # as tf_keras: a LossScaleOptimizer scales the loss
        return self._update_metrics(loss, y, y_pred, _batch_size(x))

    def test_step(self, data: tuple) -> dict:
        x, y, sample_weight = data[0], data[1], data[2] if len(data) > 2 else None
        y_pred = self(x, training=False)
        return self._update_metrics(self._compute_loss(y, y_pred, sample_weight), y, y_pred, _batch_size(x))

    def predict_step(self, data: Any) -> Any:
        x = data[0] if isinstance(data, tuple) else data
        return self(x, training=False)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, class_weight: Any = None,
                       reset_metrics: bool = True, return_dict: bool = False) -> Any:
        if reset_metrics:
            self._reset_metrics()
        batch = (x, y) if sample_weight is None and class_weight is None else \
            (x, y, _batch_weights(y, sample_weight, class_weight))
        return _result(step_functions.train_on(self, batch, one_batch=True), return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, reset_metrics: bool = True,
                      return_dict: bool = False) -> Any:
        if reset_metrics:
            self._reset_metrics()
        batch = (x, y) if sample_weight is None else (x, y, sample_weight)
        return _result(step_functions.test_on(self, batch, one_batch=True), return_dict)

    def predict_on_batch(self, x: Any) -> Any:
        return _to_numpy(step_functions.predict_on(self, x, one_batch=True))

    # --- loops ---

    def fit(self, x: Any = None, y: Any = None, batch_size: int | None = None, epochs: int = 1, verbose: Any = "auto",
            callbacks: Any = None, validation_split: float = 0.0, validation_data: Any = None, shuffle: bool = True,
            class_weight: Any = None, sample_weight: Any = None, initial_epoch: int = 0,
            steps_per_epoch: Any = None, **kwargs: Any) -> Any:
        verbose = 1 if verbose == "auto" else verbose
        if validation_split and validation_data is None:
            check_splittable(x, y)
            (x, y, sample_weight), validation_data = _split((x, y, sample_weight), validation_split)
        # tf_keras's data adapter repeats the data for the epochs still to run (DataHandler: epochs - initial_epoch)
        batches = _Batches(x, y, batch_size, shuffle, steps_per_epoch, epochs=epochs - initial_epoch,
                           sample_weight=sample_weight, class_weight=class_weight)
        try:  # Ctrl-C or an error mid-fit: the input's prefetch threads stop now, not when the traceback goes
            return self._fit_epochs(batches, epochs, verbose, callbacks, validation_data, batch_size, initial_epoch)
        finally:
            batches.close()

    def _fit_epochs(self, batches: _Batches, epochs: int, verbose: Any, callbacks: Any, validation_data: Any,
                    batch_size: int | None, initial_epoch: int) -> Any:
        history = callbacks_module.History()
        params = {"verbose": verbose, "epochs": epochs, "steps": batches.steps}
        run = callbacks_module.CallbackList([*(callbacks or []), history], self, params)
        object.__setattr__(self, "stop_training", False)
        run.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            self._reset_metrics()
            run.on_epoch_begin(epoch)
            if verbose:
                print(f"Epoch {epoch + 1}/{epochs}")
            bar = Progbar(batches.steps, verbose=verbose)
            logs: dict = {}
            for step, batch in enumerate(batches.epoch(), start=1):
                run.on_train_batch_begin(step - 1)
                logs = step_functions.train_on(self, batch, specs=batches.specs)
                run.on_train_batch_end(step - 1, logs)
                if verbose == 1 and step < batches.steps:
                    bar.update(step, list(logs.items()))
                if self.stop_training:   # TerminateOnNaN: the epoch ends at this batch, as in tf_keras
                    break
            logs = dict(logs)
            if validation_data is not None:
                val_x, val_y, *val_weights = _unpack(validation_data, keep_weights=True)
                val = self.evaluate(val_x, val_y, batch_size=batch_size, verbose=0, return_dict=True,
                                    sample_weight=val_weights[0] if val_weights else None)
                logs.update({f"val_{name}": value for name, value in val.items()})
            run.on_epoch_end(epoch, logs)   # before the bar, as tf_keras's ProgbarLogger comes last: it shows `lr`
            bar.update(batches.steps, list(logs.items()), finalize=True)
            if self.stop_training:
                break
        run.on_train_end()
        return history

    def evaluate(self, x: Any = None, y: Any = None, batch_size: int | None = None, verbose: Any = "auto",
                 sample_weight: Any = None, steps: Any = None, callbacks: Any = None, return_dict: bool = False,
                 **kwargs: Any) -> Any:
        verbose = 1 if verbose == "auto" else verbose
        batches = _Batches(x, y, batch_size, shuffle=False, steps=steps, sample_weight=sample_weight)
        self._reset_metrics()
        bar = Progbar(batches.steps, verbose=verbose)
        logs: dict = {}
        try:
            for step, batch in enumerate(batches.epoch(), start=1):
                logs = step_functions.test_on(self, batch, specs=batches.specs)
                bar.update(step, list(logs.items()))
        finally:
            batches.close()   # Ctrl-C: the dataset's prefetch threads stop now (as in fit)
        return _result(logs, return_dict)

    def predict(self, x: Any, batch_size: int | None = None, verbose: Any = "auto", steps: Any = None,
                callbacks: Any = None, **kwargs: Any) -> Any:
        from webflow.backends.arrays.numpy_arrays import np
        verbose = 1 if verbose == "auto" else verbose
        batches = _Batches(x, None, batch_size, shuffle=False, steps=steps)
        bar = Progbar(batches.steps, verbose=verbose)
        outputs = []
        try:
            for step, batch in enumerate(batches.epoch(), start=1):
                outputs.append(_to_numpy(step_functions.predict_on(self, batch[0], specs=batches.specs)))
                bar.update(step)
        finally:
            batches.close()   # as in evaluate
        if isinstance(outputs[0], list):
            return [np.concatenate([out[i] for out in outputs]) for i in range(len(outputs[0]))]
        return np.concatenate(outputs)

    # --- summary and weights ---

    def summary(self, line_length: Any = None, positions: Any = None, print_fn: Any = None,
                expand_nested: bool = False, show_trainable: bool = False, layer_range: Any = None) -> None:
        from webflow.keras.model_summary import summary_text
        text = summary_text(self, line_length, positions)
        (print_fn or print)(text)

    def save_weights(self, filepath: Any, overwrite: bool = True, save_format: Any = None, options: Any = None) -> None:
        from webflow.keras import weights_io
        weights_io.save_weights(self, filepath)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, by_name: bool = False,
                     options: Any = None) -> Any:
        from webflow.keras import weights_io
        return weights_io.load_weights(self, filepath)

    # --- configs and whole-model saving (saving.py, saving_archive.py) ---

    def get_config(self) -> dict:
        from webflow.keras import saving
        return saving.model_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> Any:
        from webflow.keras import saving
        if "input_layers" in config:
            return saving.functional_from_config(cls, config, custom_objects)
        return saving.sequential_from_config(cls, config, custom_objects)

    def to_json(self, **kwargs: Any) -> str:
        from webflow.keras import saving
        return saving.to_json(self, **kwargs)

    def save(self, filepath: Any, overwrite: bool = True, save_format: Any = None, **kwargs: Any) -> None:
        from webflow.keras import saving_archive
        saving_archive.save_model(self, filepath, overwrite=overwrite)


class _Batches:
    """Batches of (x, y) from arrays and SparseTensors (by rows, in tf_keras's order: data_order.py,
    sparse_batches.py) or from a tf.data Dataset."""

    def __init__(self, x: Any, y: Any, batch_size: int | None, shuffle: Any, steps: Any = None, epochs: int = 1,
                 sample_weight: Any = None, class_weight: Any = None):
        self.x, self.y, self.shuffle = x, y, shuffle
        self.sample_weight, self.class_weight = sample_weight, class_weight
        self.dataset = hasattr(x, "element_spec") or (hasattr(x, "__iter__") and hasattr(x, "batch"))
        self.iterator: Any = None
        # tf_keras: with steps_per_epoch, one iterator runs across the epochs, `steps` elements each
        self.persistent = bool(self.dataset and steps)
        self.specs = _element_specs(x) if self.dataset else None   # the traced step's shapes (step_inputs.py)
        if self.dataset:
            self.steps = int(steps) if steps else _count_elements(x)
            return
        self.size = _length(x)
        # tf_keras's default batch: 32, or the data spread evenly over `steps` batches
        self.batch_size = batch_size or (math.ceil(self.size / int(steps)) if steps else 32)
        x_arrays, y_arrays = _flatten(x), _flatten(y)
        # x's arrays first, then y's, then sample_weight: tf.nest's order of tf_keras's (x, y, sample_weight)
        self.arrays = x_arrays + y_arrays + _flatten(sample_weight)
        self.x_array_count, self.y_array_count = len(x_arrays), len(y_arrays)
        # a SparseTensor among them: tf_keras's other adapter, a new iterator (and order) each epoch
        self.composite = has_sparse(x, y)
        self.order = DataOrder(self.size, self.batch_size, shuffle, len(self.arrays), epochs, self.composite)
        self.steps = int(steps) if steps else self.order.batch_count()
        self.stream: Any = None   # one pass over all epochs' batches, as tf_keras's one iterator

    def epoch(self) -> Any:
        if self.dataset:
            yield from self._dataset_epoch()
            return
        if self.stream is None or self.composite:
            self.stream = self.order.epoch_batches() if self.composite else self.order.batches()
        for _ in range(self.steps):
            indices = next(self.stream, _END)
            if indices is _END:   # steps_per_epoch beyond the data: tf_keras's input "ran out of data"
                return
            taken = [take_rows(array, index) for array, index in zip(self.arrays, indices)]
            split = self.x_array_count + self.y_array_count
            weights = taken[split] if taken[split:] else None
            yield self._weighted(_pack(self.x, taken[:self.x_array_count]),
                                 _pack(self.y, taken[self.x_array_count:split]), weights)

    def _dataset_epoch(self) -> Any:
        if not self.persistent or self.iterator is None:
            self.close()
            self.iterator = iter(self.x)
        for _ in range(self.steps) if self.persistent else iter(int, 1):   # iter(int, 1): endless
            element = next(self.iterator, _END)
            if element is _END:
                return
            x, y, *weights = _unpack(element, keep_weights=True) if isinstance(element, (tuple, list)) else \
                (element, None)
            yield self._weighted(x, y, weights[0] if weights else None)

    def _weighted(self, x: Any, y: Any, sample_weight: Any) -> tuple:
        """The batch as train_step takes it: (x, y), or (x, y, sample_weight) with weights (class_weight's too)."""
        if self.class_weight:
            sample_weight = class_weighted(y, sample_weight, self.class_weight)
        return (x, y) if sample_weight is None else (x, y, sample_weight)

    def close(self) -> None:
        """Stops the dataset iterator's prefetch threads (a dropped iterator would, but a traceback keeps it)."""
        iterator, self.iterator = self.iterator, None
        if hasattr(iterator, "close"):
            iterator.close()


def _element_specs(dataset: Any) -> Any:
    """(x's spec, y's spec) of a dataset's elements, as `_unpack` splits them; None for a generator."""
    spec = getattr(dataset, "element_spec", None)
    if spec is None:
        return None
    return (spec[0], spec[1] if len(spec) > 1 else None) if isinstance(spec, (tuple, list)) else (spec, None)


def _batch_weights(y: Any, sample_weight: Any, class_weight: Any) -> Any:
    """train_on_batch's weights: sample_weight, times class_weight's when given."""
    return class_weighted(y, sample_weight, class_weight) if class_weight else sample_weight


def _flatten(data: Any) -> list:
    """The arrays of x or y in tf.nest's order (a list in order, a dict by sorted key): the order in which
    tf_keras's shuffle="batch" gives each array its own random op."""
    if data is None:
        return []
    if isinstance(data, (list, tuple)):
        return list(data)
    if isinstance(data, dict):
        return [data[key] for key in sorted(data)]
    return [data]


def _pack(data: Any, arrays: list) -> Any:
    """`arrays` (sliced from _flatten(data)) back in data's structure."""
    if data is None:
        return None
    if isinstance(data, (list, tuple)):
        return list(arrays)
    if isinstance(data, dict):
        return dict(zip(sorted(data), arrays))
    return arrays[0]


_END = object()


def _count_elements(dataset: Any) -> int:
    """The batches in one pass over a finite dataset; an endless one needs steps_per_epoch (tf_keras's words)."""
    cardinality = getattr(dataset, "cardinality", None)
    if cardinality is not None and int(cardinality()) == INFINITE:
        raise ValueError("When providing an infinite dataset, you must specify the number of steps to run (if you "
                         "did not intend to create an infinite dataset, make sure to not call `repeat()` on the "
                         "dataset).")
    return sum(1 for _ in dataset)


def _take(data: Any, index: Any) -> Any:
    if data is None:
        return None
    if isinstance(data, (list, tuple)):
        return [item[index] for item in data]
    if isinstance(data, dict):   # a dict of feature arrays (DenseFeatures): each one sliced
        return {key: value[index] for key, value in data.items()}
    return data[index]


def _length(x: Any) -> int:
    """The number of examples in arrays x (a list of arrays, a dict of feature arrays, or one array)."""
    if isinstance(x, dict):
        return row_count(x[sorted(x)[0]])
    return row_count(x[0]) if isinstance(x, (list, tuple)) else row_count(x)


def _unpack(data: Any, keep_weights: bool = False) -> tuple:
    """validation_data as evaluate's (x, y): a tuple or list (x, y[, sample_weight]); anything else (a
    tf.data.Dataset of (x, y) batches, a generator) is evaluate's `x` itself, as in tf_keras. `keep_weights`:
    (x, y, sample_weight) when there is one (a dataset's element)."""
    if not isinstance(data, (list, tuple)):
        return (data, None)
    if keep_weights and len(data) > 2 and data[2] is not None:
        return (data[0], data[1], data[2])
    return (data[0], data[1] if len(data) > 1 else None)


def _split(data: tuple, fraction: float) -> tuple:
    """The last `fraction` of the examples of (x, y, sample_weight) become the validation data (before any
    shuffling): (the training part, the validation part)."""
    size = _length(data[0])
    at = int(math.floor(size * (1.0 - fraction)))
    return tuple(_take(d, slice(0, at)) for d in data), tuple(_take(d, slice(at, None)) for d in data)


def _batch_size(x: Any) -> int | None:
    """The batch's size; None inside a traced step, whose batch dimension is unknown (its metrics are updated
    after the call, from the batch itself: step_functions.py)."""
    first = x[0] if isinstance(x, (list, tuple)) else x
    if isinstance(first, dict):   # a dict of features: the batch of the first by key
        first = first[sorted(first)[0]]
    size = first.shape[0]
    return None if size is None else int(size)


def _to_numpy(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_to_numpy(item) for item in value]
    return value.numpy()


def _result(logs: dict, return_dict: bool) -> Any:
    if return_dict:
        return dict(logs)
    values = list(logs.values())
    return values[0] if len(values) == 1 else values
