"""Lesson 10's exercise checkers (lessons/checks_10.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
10.3's oracle (webflow's EarlyStopping driven epoch by epoch) is checked against epoch counts derived by hand from
tf.keras's documented rule (stop once `patience` epochs in a row bring no improvement).
"""

from __future__ import annotations

import os
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_10 as lesson10  # noqa: E402

import webflow as wf  # noqa: E402

keras = wf.keras


def blank(*args): ...


# --- 10.1 Sequential to Functional ------------------------------------------------------------------------------------
def reference_functional():
    inputs = keras.Input(shape=(784,))
    hidden = keras.layers.Dense(32, activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(10)(hidden))


def relu_on_top():
    inputs = keras.Input(shape=(784,))
    hidden = keras.layers.Dense(32, activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(10, activation="relu")(hidden))


def no_relu():
    inputs = keras.Input(shape=(784,))
    return keras.Model(inputs, keras.layers.Dense(10)(keras.layers.Dense(32)(inputs)))


def test_10_1_functional_version() -> None:
    assert lesson10.exercise_1(reference_functional, quiet=True).passed
    fails_with(lesson10.exercise_1, blank, "not started")
    fails_with(lesson10.exercise_1, lesson10.reference_sequential, "Sequential model again", "keras.Input")
    fails_with(lesson10.exercise_1, lambda: keras.layers.Dense(10), "return a keras.Model")
    fails_with(lesson10.exercise_1, relu_on_top, "ReLU on the last layer")
    fails_with(lesson10.exercise_1, no_relu, "activation")
    fails_with(lesson10.exercise_1, lambda: _sized(64), "same units")


def _sized(units):
    inputs = keras.Input(shape=(784,))
    return keras.Model(inputs, keras.layers.Dense(10)(keras.layers.Dense(units, activation="relu")(inputs)))


# --- 10.2 a callback --------------------------------------------------------------------------------------------------
class ReferenceBestEpoch(keras.callbacks.Callback):
    def on_train_begin(self, logs=None):
        self.best_epoch, self.best_loss = None, float("inf")

    def on_epoch_end(self, epoch, logs=None):
        if logs["val_loss"] < self.best_loss:
            self.best_epoch, self.best_loss = epoch + 1, logs["val_loss"]


class CountsFromZero(ReferenceBestEpoch):
    def on_epoch_end(self, epoch, logs=None):
        if logs["val_loss"] < self.best_loss:
            self.best_epoch, self.best_loss = epoch, logs["val_loss"]


class NeverResets(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.best_epoch, self.best_loss = None, float("inf")

    def on_epoch_end(self, epoch, logs=None):
        if logs["val_loss"] < self.best_loss:
            self.best_epoch, self.best_loss = epoch + 1, logs["val_loss"]


class KeepsTheHighest(ReferenceBestEpoch):
    def on_train_begin(self, logs=None):
        self.best_epoch, self.best_loss = None, -float("inf")

    def on_epoch_end(self, epoch, logs=None):
        if logs["val_loss"] > self.best_loss:
            self.best_epoch, self.best_loss = epoch + 1, logs["val_loss"]


class NoSetUp(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        if logs["val_loss"] < self.best_loss:
            self.best_epoch, self.best_loss = epoch + 1, logs["val_loss"]


class Blank(keras.callbacks.Callback):
    ...


class NotACallback:
    def on_epoch_end(self, epoch, logs=None): ...


def test_10_2_best_epoch() -> None:
    assert lesson10.exercise_2(ReferenceBestEpoch, quiet=True).passed
    fails_with(lesson10.exercise_2, Blank, "does not define on_epoch_end")
    fails_with(lesson10.exercise_2, NotACallback, "deriving from keras.callbacks.Callback")
    fails_with(lesson10.exercise_2, CountsFromZero, "counts epochs from 0")
    fails_with(lesson10.exercise_2, NeverResets, "start afresh in on_train_begin")
    fails_with(lesson10.exercise_2, KeepsTheHighest, "the best is the lowest")
    fails_with(lesson10.exercise_2, NoSetUp, "Set up what you keep")


# --- 10.3 when does EarlyStopping stop? -------------------------------------------------------------------------------
def reference_stops_after(val_losses, patience):
    best, wait = float("inf"), 0
    for epoch, loss in enumerate(val_losses):
        wait += 1
        if loss < best:
            best, wait = loss, 0
        elif wait >= patience and epoch > 0:
            return epoch + 1
    return len(val_losses)


def counts_equal_as_better(val_losses, patience):
    best, wait = float("inf"), 0
    for epoch, loss in enumerate(val_losses):
        if loss <= best:
            best, wait = loss, 0
        else:
            wait += 1
            if wait >= patience:
                return epoch + 1
    return len(val_losses)


def test_10_3_stops_after() -> None:
    assert lesson10.exercise_3(reference_stops_after, quiet=True).passed
    fails_with(lesson10.exercise_3, blank, "not started")
    fails_with(lesson10.exercise_3, lambda losses, patience: len(losses), "an equal loss is not an improvement")
    fails_with(lesson10.exercise_3, counts_equal_as_better, "patience 2")
    fails_with(lesson10.exercise_3, lambda losses, patience: len(losses) + 1, "more than the")


def test_early_stopping_oracle_matches_the_documented_rule() -> None:
    """By hand: best 0.8 at epoch 2; epochs 3, 4 do not improve -> with patience 2 stop after 4 epochs; with
    patience 3 epoch 5 improves (0.7) and 6 too: all 6 run. Patience 0 stops at the first epoch after the first
    that does not improve; equal losses never improve."""
    assert [lesson10.early_stopping_epochs(losses, patience) for losses, patience in lesson10.STOP_CASES] == \
        [4, 6, 2, 3, 3, 6]
    assert [reference_stops_after(losses, patience) for losses, patience in lesson10.STOP_CASES] == \
        [4, 6, 2, 3, 3, 6]


def test_early_stopping_oracle_matches_real_tensorflow() -> None:
    """tf.keras's own EarlyStopping (TensorFlow 2.21, WEBFLOW_TF_PYTHON) driven with the same losses stops at the
    same epochs as webflow's, the oracle of 10.3."""
    if not os.environ.get("WEBFLOW_TF_PYTHON"):
        pytest.skip("WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with")
    pytest.importorskip("numpy")
    from tf_subprocess import run_tensorflow

    program = ("class Model:\n    stop_training = False\n"
               "def epochs(losses, patience):\n"
               "    model = Model()\n"
               "    callback = tf.keras.callbacks.EarlyStopping(monitor='val_loss', patience=patience)\n"
               "    callback.set_model(model)\n    callback.on_train_begin({})\n"
               "    for epoch, loss in enumerate(losses):\n"
               "        callback.on_epoch_end(epoch, {'val_loss': loss})\n"
               "        if model.stop_training:\n            return epoch + 1\n"
               "    return len(losses)\n"
               f"result = [epochs(losses, patience) for losses, patience in {lesson10.STOP_CASES!r}]")
    real = run_tensorflow({"stops": program})["stops"]
    assert real == [lesson10.early_stopping_epochs(losses, patience) for losses, patience in lesson10.STOP_CASES]


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson10.exercise_1, relu_on_top), (lesson10.exercise_2, CountsFromZero),
                            (lesson10.exercise_3, counts_equal_as_better)):
        message = checker(answer, quiet=True).message
        for code in ("keras.Model(inputs, keras.layers", "epoch + 1", "wait >= patience", "you said 6"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
