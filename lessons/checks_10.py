"""The checkers of lesson 10 (high-level APIs). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checks import Hint, exercise, hint_unless

import webflow as wf

keras = wf.keras


def _rows(values: Any) -> list:
    values = values.numpy() if hasattr(values, "numpy") else values
    return [[float(v) for v in row] for row in values.tolist()]


# --- 10.1: Sequential to Functional -----------------------------------------------------------------------------------
def reference_sequential() -> Any:
    return keras.Sequential([keras.layers.Dense(32, activation="relu", input_shape=(784,)), keras.layers.Dense(10)])


@exercise("10.1")
def exercise_1(functional_version: Callable) -> None:
    """functional_version() -> a Functional keras.Model equal to reference_sequential()."""
    model = functional_version()
    hint_unless(model is not None, "functional_version returned None: return the keras.Model you built.")
    hint_unless(isinstance(model, keras.Model), f"you returned a {type(model).__name__}: return a keras.Model.")
    hint_unless(not isinstance(model, keras.Sequential), "that is a Sequential model again: start from "
                "keras.Input(shape=...), call each layer on the previous result, and build keras.Model(inputs, "
                "outputs).")
    want = reference_sequential()
    shapes = [tuple(w.shape) for w in model.get_weights()]
    want_shapes = [tuple(w.shape) for w in want.get_weights()]
    hint_unless(shapes == want_shapes, f"your model's weights have shapes {shapes}; the Sequential model's are "
                f"{want_shapes}: same layers, same units, same input size.")
    model.set_weights(want.get_weights())
    x = wf.random.uniform([3, 784], -1.0, 1.0, seed=5)
    got, expected = _rows(model(x)), _rows(want(x))
    close = all(abs(a - b) <= 1e-5 * max(1.0, abs(b)) for r, w in zip(got, expected) for a, b in zip(r, w))
    if not close and min(v for row in got for v in row) >= 0.0:
        raise Hint("with the same weights your outputs are never negative: is there a ReLU on the last layer? The "
                   "scores are a plain Dense(10).")
    hint_unless(close, "with the same weights your model computes other scores: check each layer's activation.")


# --- 10.2: a callback -------------------------------------------------------------------------------------------------
RUNS = [[0.9, 0.7, 0.75, 0.6, 0.65], [1.2, 1.1, 1.3]]


def _drive(callback: Any, losses: list) -> None:
    """Calls the hooks as fit does, for one run of len(losses) epochs."""
    callback.on_train_begin({})
    for epoch, loss in enumerate(losses):
        callback.on_epoch_begin(epoch, {})
        callback.on_train_batch_end(0, {"loss": 1.0})
        callback.on_epoch_end(epoch, {"loss": 1.0, "val_loss": loss})
    callback.on_train_end({})


@exercise("10.2")
def exercise_2(best_epoch_class: Any) -> None:
    """BestEpoch: a Callback keeping best_epoch (from 1) and best_loss of val_loss."""
    hint_unless(isinstance(best_epoch_class, type) and issubclass(best_epoch_class, keras.callbacks.Callback),
                "BestEpoch should be a class deriving from keras.callbacks.Callback.")
    hint_unless(best_epoch_class.__dict__.get("on_epoch_end") is not None, "BestEpoch does not define "
                "on_epoch_end: that is where fit hands over the epoch's logs, val_loss among them.")
    callback = best_epoch_class()
    for losses in RUNS:
        try:
            _drive(callback, losses)
        except (AttributeError, KeyError, TypeError) as error:
            raise Hint(f"a fit of {len(losses)} epochs failed in your callback: {error!r}. Set up what you keep "
                       "when training begins; the epoch's numbers are in logs.") from None
        best = min(losses)
        hint_unless(hasattr(callback, "best_loss") and hasattr(callback, "best_epoch"),
                    "after fit, the callback should have best_epoch and best_loss attributes.")
        hint_unless(callback.best_loss is not None and abs(float(callback.best_loss) - best) < 1e-12 or
                    float(callback.best_loss) != max(losses),
                    f"for validation losses {losses} your best_loss is {callback.best_loss}: the best is the lowest.")
        hint_unless(abs(float(callback.best_loss) - best) < 1e-12, f"for validation losses {losses} your best_loss "
                    f"is {callback.best_loss}" + (" — left over from the previous fit: start afresh in "
                                                  "on_train_begin." if losses is not RUNS[0] else "."))
        hint_unless(callback.best_epoch != losses.index(best), f"for validation losses {losses} your best_epoch is "
                    f"{callback.best_epoch}: fit counts epochs from 0, the exercise from 1.")
        hint_unless(callback.best_epoch == losses.index(best) + 1, f"for validation losses {losses} your "
                    f"best_epoch is {callback.best_epoch}.")


# --- 10.3: when does EarlyStopping stop? ------------------------------------------------------------------------------
STOP_CASES = [([1.0, 0.8, 0.9, 0.95, 0.7, 0.6], 2), ([1.0, 0.8, 0.9, 0.95, 0.7, 0.6], 3), ([0.5, 0.6], 0),
              ([0.5, 0.4, 0.3], 1), ([0.5, 0.5, 0.5, 0.5], 2), ([0.9, 1.0, 0.8, 1.1, 1.2, 1.3, 0.1], 3)]


class _Model:
    stop_training = False


def early_stopping_epochs(losses: list, patience: int) -> int:
    """How many epochs fit runs with EarlyStopping(monitor="val_loss", patience) over these losses."""
    callback, model = keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience), _Model()
    callback.set_model(model)
    callback.on_train_begin({})
    for epoch, loss in enumerate(losses):
        callback.on_epoch_end(epoch, {"val_loss": loss})
        if model.stop_training:
            return epoch + 1
    return len(losses)


@exercise("10.3")
def exercise_3(stops_after: Callable) -> None:
    """stops_after(val_losses, patience) -> the number of epochs fit runs."""
    for losses, patience in STOP_CASES:
        got = stops_after(list(losses), patience)
        hint_unless(got is not None, "stops_after returned None: return a number of epochs.")
        want = early_stopping_epochs(losses, patience)
        hint_unless(got <= len(losses), f"for {losses} you said {got} epochs, more than the {len(losses)} there are.")
        hint_unless(got == want, f"for val_losses {losses} and patience {patience} you said {got} epochs. Walk "
                    "through them keeping the best loss so far and a count of epochs since it improved; an equal "
                    "loss is not an improvement, and fit stops at the end of the epoch where the count reaches "
                    "the patience.")
