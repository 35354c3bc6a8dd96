"""The lessons' knobs (lessons/controls.py): real ipywidgets sliders; moving one trains again with the new value and
redraws the curves, live (each curve a training yields reaches the picture while it trains)."""

from __future__ import annotations

import math
import os
import sys

import pytest

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)
import controls  # noqa: E402

pytest.importorskip("ipywidgets")


def _recording_training(calls: list):
    def train(learning_rate, hidden_units):
        calls.append((learning_rate, hidden_units))
        losses = []
        for epoch in range(3):
            losses.append(learning_rate * hidden_units / (epoch + 1))
            yield {"loss": (list(range(1, epoch + 2)), list(losses))}
    return train


def test_the_first_run_happens_at_once_with_the_starting_values() -> None:
    calls = []
    knobs = controls.knobs(_recording_training(calls), "toy", learning_rate=controls.log_slider(0.5, 0.01, 2.0),
                           hidden_units=controls.int_slider(64, 0, 256, step=16))
    assert calls == [(0.5, 64)] and knobs.runs == 1
    assert knobs.result == {"loss": ([1, 2, 3], [32.0, 16.0, 32.0 / 3])}
    assert "toy (learning rate 0.5, hidden units 64)" in knobs.picture.markup


def test_the_sliders_are_the_right_widgets() -> None:
    knobs = controls.knobs(_recording_training([]), learning_rate=controls.log_slider(0.5, 0.01, 2.0),
                           hidden_units=controls.int_slider(64, 0, 256, step=16))
    box = knobs.widget()
    rate, units = knobs.sliders["learning_rate"], knobs.sliders["hidden_units"]
    assert type(rate).__name__ == "FloatLogSlider" and type(units).__name__ == "IntSlider"
    assert (rate.base, rate.min, rate.max, rate.value) == (10, -2, math.log10(2.0), 0.5)
    assert (units.min, units.max, units.step, units.value) == (0, 256, 16, 64)
    assert not rate.continuous_update                      # train when let go, not during a drag
    assert box.children[-1].value == knobs.picture.markup  # the curves of the first run are on show


def test_moving_a_slider_trains_again_and_redraws_live() -> None:
    calls = []
    knobs = controls.knobs(_recording_training(calls), "toy", learning_rate=controls.log_slider(0.5, 0.01, 2.0),
                           hidden_units=controls.int_slider(64, 0, 256, step=16))
    knobs.widget()
    picture = knobs.widget().children[-1]
    drawn = []
    picture.observe(lambda change: drawn.append(change["new"]), names="value")
    knobs.sliders["hidden_units"].value = 128              # what the front end does when the slider is let go
    assert calls == [(0.5, 64), (0.5, 128)] and knobs.runs == 2
    assert len(drawn) == 3                                 # one picture per epoch: live curves
    assert "hidden units 128" in drawn[-1] and knobs.result["loss"][1][0] == 64.0
    knobs.sliders["learning_rate"].value = 0.1
    assert calls[-1] == (0.1, 128) and knobs.runs == 3
    assert "run 3: learning rate 0.1, hidden units 128" in knobs.widget().children[-2].value


def test_a_training_that_returns_is_drawn_once_and_xlabel_rides_along() -> None:
    curves = {"memory c": [0.0, 1.0, 0.5], "xlabel": "step"}
    knobs = controls.knobs(lambda gate: curves, "gates", gate=controls.float_slider(0.9, 0.0, 1.0))
    assert knobs.result is curves and "xlabel" in curves  # the caller's dict is left as it was
    assert ">step</text>" in knobs.picture.markup and "memory c" in knobs.picture.markup
    slider = knobs.widget().children[0]
    assert type(slider).__name__ == "FloatSlider" and (slider.min, slider.max, slider.step) == (0.0, 1.0, 0.05)
