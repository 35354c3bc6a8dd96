"""The one step `fit`, `evaluate` and `predict` repeat, traced into a graph with wf.function as tf_keras does
(`make_train_function`); `compile(run_eagerly=True)` keeps it eager, for stepping through it with a debugger.

    step = wf.function(lambda x, y: model.train_step((x, y)))    # traced once per batch shape, then only run

What is built lazily (a deferred Sequential's weights, the optimizer's slot variables) is made while the first
batch is traced: variables made inside a trace are made eagerly (init_scope), and a first trace that made some is
traced again to use them (runtime/function.py), as tf.function does in tf_keras. The streaming metrics are Python
numbers, so inside a trace `train_step` only hands its (loss, predictions) out of the graph and the metrics are
updated eagerly right after the call, with the same values. A Python learning rate is frozen into a trace, so
setting `optimizer.learning_rate` (a callback does) retraces.

Random ops (Dropout) draw tf_keras's numbers: a trace takes the global seed and op seeds (global, 0), (global, 1)
... as TF's train function graph does, and every trace of one step function continues one Philox stream per
random op. tf_keras traces its train function once (the batch dimension is unknown, its input an iterator), so a
partial last batch or a new learning rate runs on the same random kernels; here they are new traces sharing those
kernels' state (same op names, same seeds: Function.random_state_owner in runtime/function.py).
"""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor import TensorBase
from webflow.keras import compiled_containers
from webflow.runtime.function import function


def train_on(model: Any, batch: tuple) -> dict:
    """One training step on `batch` = (x, y): eager or traced, as `compile(run_eagerly=)` chose."""
    if _eager(model):
        return _numbers(model.train_step(batch))
    traced = _traced(model, "_traced_train_step", _train_body)
    return _finish(model, batch, traced(batch[0], batch[1], _lr_key(model)))


def test_on(model: Any, batch: tuple) -> dict:
    if _eager(model):
        return _numbers(model.test_step(batch))
    traced = _traced(model, "_traced_test_step", _test_body)
    return _finish(model, batch, traced(batch[0], batch[1]))


def predict_on(model: Any, x: Any) -> Any:
    if _eager(model):
        return model.predict_step(x)
    return _traced(model, "_traced_predict_step", lambda model: lambda x: model.predict_step(x))(x)


def _eager(model: Any) -> bool:
    return bool(getattr(model, "_run_eagerly", False))


def _traced(model: Any, attribute: str, body: Any) -> Any:
    """The model's wf.function for this step, made once (it keeps one trace per batch signature)."""
    traced = model.__dict__.get(attribute)
    if traced is None:
        traced = function(body(model), name=attribute.lstrip("_"))
        traced.random_state_owner = traced   # its traces share their random ops' streams: see the module's docstring
        object.__setattr__(model, attribute, traced)
    return traced


def _train_body(model: Any) -> Any:
    def train_function(x: Any, y: Any, lr_key: Any) -> tuple:   # lr_key: only part of the trace's signature
        return _deferring(model, lambda: model.train_step((x, y)))
    return train_function


def _test_body(model: Any) -> Any:
    def test_function(x: Any, y: Any) -> tuple:
        return _deferring(model, lambda: model.test_step((x, y)))
    return test_function


def _deferring(model: Any, step: Any) -> tuple:
    """Runs a step inside a trace, collecting the (loss, y_pred) its metric update would have used."""
    object.__setattr__(model, "_deferred_metric_updates", [])
    try:
        logs = step()
    finally:
        deferred = model._deferred_metric_updates
        object.__setattr__(model, "_deferred_metric_updates", None)
    return logs, deferred


def _finish(model: Any, batch: tuple, outputs: tuple) -> dict:
    """The metric updates deferred out of the graph, done eagerly; then the logs: every metric's result for the
    compiled step, else the step's own logs with a metric's (frozen in the trace) value replaced by its result."""
    logs, deferred = outputs
    compiled_containers.apply_deferred(model, deferred, batch[1], _batch_size(batch[0]))
    results = {metric.name: _number(metric.result()) for metric in model.metrics}   # tensors -> floats
    if not logs:
        return results
    return {name: results[name] if deferred and name in results else _number(value) for name, value in logs.items()}


def _numbers(logs: dict) -> dict:
    """Logs as the progress bar and callbacks see them: scalar tensors a custom step returned become floats."""
    return {name: _number(value) for name, value in logs.items()}


def _number(value: Any) -> Any:
    return float(value.numpy()) if isinstance(value, TensorBase) and value.shape.rank == 0 else value


def _lr_key(model: Any) -> Any:
    optimizer = getattr(model, "optimizer", None)
    return getattr(optimizer, "_learning_rate", None)


def _batch_size(x: Any) -> int:
    first = x[0] if isinstance(x, (list, tuple)) else x
    if isinstance(first, dict):   # a dict of features: the batch of the first by key
        first = first[sorted(first)[0]]
    return int(first.shape[0])
