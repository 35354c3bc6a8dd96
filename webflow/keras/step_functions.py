"""The one step `fit`, `evaluate` and `predict` repeat, traced into a graph with wf.function as tf_keras does
(`make_train_function`: `model.train_function`, `model.test_function`, `model.predict_function`);
`compile(run_eagerly=True)` keeps it eager, for stepping through it with a debugger.

    model.train_function = wf.function(lambda x, y: model.train_step((x, y)))
    model.train_function.get_concrete_function(TensorSpec([None, 784]), TensorSpec([None]))   # traced once

As in tf_keras, whose step reads its batch from an iterator with an unknown batch dimension, the step is traced
for a batch dimension of None (step_inputs.py), so one trace serves every batch of a fit, evaluate or predict,
the partial last batch included (`experimental_get_tracing_count()` as tf_keras's: 1 for evaluate and predict;
2 for the first fit, whose first trace makes the optimizer's slots, see below). A new trace comes only with a new
input structure, dtype or rank, or a new optimizer (`compile`).

What is built lazily (a deferred Sequential's weights, the optimizer's slot variables) is made while the first
batch is traced: variables made inside a trace are made eagerly (init_scope), and a first trace that made some is
traced again to use them (runtime/function.py), as tf.function does in tf_keras. The streaming metrics are Python
numbers, so inside a trace `train_step` only hands its (loss, predictions) out of the graph and the metrics are
updated eagerly right after the call, with the same values. The learning rate is a variable the trace reads, so a
callback that sets it changes the next step without a new trace.

Random ops (Dropout) draw tf_keras's numbers: a trace takes the global seed and op seeds (global, 0), (global, 1)
... as TF's train function graph does, and every trace of one step function continues one Philox stream per
random op (same op names, same seeds: Function.random_state_owner in runtime/function.py), so even a second
trace (a new input structure) goes on with the first one's masks.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.tensor import TensorBase
from webflow.keras import compiled_containers
from webflow.keras.step_inputs import rebuilt, traced_call
from webflow.runtime.function import function


def train_on(model: Any, batch: tuple, one_batch: bool = False, specs: Any = None) -> dict:
    """One training step on `batch` = (x, y): eager or traced, as `compile(run_eagerly=)` chose. `one_batch`:
    `train_on_batch`'s call, whose batch has a known size; `specs`: the (x, y) element_spec of a dataset's
    batches (step_inputs.py)."""
    if _eager(model):
        return _numbers(model.train_step(batch))
    traced = _traced(model, "train_function", _train_body)
    return _finish(model, batch, traced_call(traced, *_padded(batch), _lr_key(model), exact=one_batch,
                                             specs=_with_none(specs)))


def test_on(model: Any, batch: tuple, one_batch: bool = False, specs: Any = None) -> dict:
    if _eager(model):
        return _numbers(model.test_step(batch))
    traced = _traced(model, "test_function", _test_body)
    return _finish(model, batch, traced_call(traced, *_padded(batch), exact=one_batch,
                                             specs=None if specs is None else _padded(specs)))


def predict_on(model: Any, x: Any, one_batch: bool = False, specs: Any = None) -> Any:
    """predict_step on x. As tf_keras's data adapters give it: `predict`'s batches are x itself (a tuple x
    wrapped in a tuple), `predict_on_batch`'s are (x,), so the two are traced apart."""
    data = (x,) if one_batch or isinstance(x, tuple) else x
    if _eager(model):
        return model.predict_step(data)
    x_spec = None if specs is None else specs[0]
    return traced_call(_traced(model, "predict_function", _predict_body), data, exact=one_batch,
                       specs=None if x_spec is None else [(x_spec,) if data is not x else x_spec])


def _padded(batch: Any) -> list:
    """[x, y, sample_weight or None]: the traced step's tensor arguments (a batch without weights: (x, y))."""
    return [batch[0], batch[1], batch[2] if len(batch) > 2 else None]


def _with_none(specs: Any) -> Any:
    """(x spec, y spec[, weights' spec]) and the learning-rate key's place, as train_on lays out its arguments."""
    return None if specs is None else [*_padded(specs), None]


def _step_data(x: Any, y: Any, sample_weight: Any) -> tuple:
    """What train_step / test_step take, as tf_keras gives it: (x, y), or (x, y, sample_weight)."""
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _eager(model: Any) -> bool:
    return bool(getattr(model, "_run_eagerly", False))


def _traced(model: Any, attribute: str, body: Any) -> Any:
    """The model's wf.function for this step (tf_keras's `model.train_function` ...), made once per compile."""
    traced = model.__dict__.get(attribute)
    if traced is None:
        traced = function(body(model), name=attribute)
        traced.random_state_owner = traced   # its traces share their random ops' streams: see the module's docstring
        object.__setattr__(model, attribute, traced)
    return traced


def _train_body(model: Any) -> Any:
    def train_function(x: Any, y: Any, weights: Any, lr_key: Any, layout: Any) -> tuple:   # lr_key: a key only
        data = _step_data(*rebuilt([x, y, weights], layout.tree[:3]))
        return _deferring(model, lambda: model.train_step(data))
    return train_function


def _test_body(model: Any) -> Any:
    def test_function(x: Any, y: Any, weights: Any, layout: Any) -> tuple:
        data = _step_data(*rebuilt([x, y, weights], layout))
        return _deferring(model, lambda: model.test_step(data))
    return test_function


def _predict_body(model: Any) -> Any:
    def predict_function(data: Any, layout: Any) -> Any:
        return model.predict_step(rebuilt([data], layout)[0])
    return predict_function


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
    """What decides how the trace reads the learning rate: its schedule or its variable (whose value a callback
    may set without a new trace); a schedule replaced by a number gives a variable, and a new trace."""
    optimizer = getattr(model, "optimizer", None)
    return id(getattr(optimizer, "learning_rate", None))


def _batch_size(x: Any) -> int:
    first = x[0] if isinstance(x, (list, tuple)) else x
    if isinstance(first, dict):   # a dict of features: the batch of the first by key
        first = first[sorted(first)[0]]
    return int(first.shape[0])
