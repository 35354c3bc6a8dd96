"""fit's progress bar as ipywidgets in a notebook (webflow/keras/progbar_widget.py): the widgets' state after
updates, the line beside the bar being tf_keras's text, and `fit` drawing one bar per epoch under a kernel.

The widgets are real ipywidgets objects (created without a front end: their state is plain traits)."""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

from webflow import keras
from webflow.keras import progbar, progbar_widget
from webflow.keras.progbar import Progbar

pytest.importorskip("ipywidgets")


def _mask_times(text: str) -> str:
    return re.sub(r"\d+(ms|us|s)/(step|epoch)", "T/\\2", re.sub(r" - \d+s", " - Ns", text))


def test_bar_value_max_description_and_the_keras_line() -> None:
    shown = []
    widget = progbar_widget.WidgetProgress(3, display=shown.append)
    bar = Progbar(3, live=widget)
    assert shown == []                                  # nothing on the page before the first update
    bar.update(1, [("loss", 8.0295), ("accuracy", 0.25)])
    assert shown == [widget.box]                        # displayed once, then updated in place
    assert (widget.bar.value, widget.bar.max, widget.bar.description) == (1, 3, "1/3")
    assert widget.label.value == ("<code>1/3 [=========&gt;....................] - ETA: 0s - loss: 8.0295 - "
                                  "accuracy: 0.2500</code>")
    assert widget.bar.bar_style == ""
    bar.update(3, [("loss", 8.0797), ("accuracy", 0.1458333)], finalize=True)
    assert shown == [widget.box]
    assert (widget.bar.value, widget.bar.max, widget.bar.description) == (3, 3, "3/3")
    assert _mask_times(widget.label.value) == ("<code>3/3 [==============================] - Ns T/step - "
                                               "loss: 8.0797 - accuracy: 0.1458</code>")
    assert widget.bar.bar_style == "success"


def test_a_metric_name_is_text_not_html() -> None:
    widget = progbar_widget.WidgetProgress(1, display=lambda box: None)
    Progbar(1, live=widget).update(1, [("<b>x</b>", 1.0)], finalize=True)
    assert "<b>x</b>" not in widget.label.value and "&lt;b&gt;x&lt;/b&gt;" in widget.label.value


def test_no_kernel_no_widget_and_the_text_line_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    # no IPython kernel (even when an earlier test of this process started an IPython shell): the widget is not
    # chosen, and a given stream gets tf_keras's text.
    monkeypatch.setitem(sys.modules, "IPython", None)
    assert progbar_widget.widget_progress(5) is None
    stream = io.StringIO()
    bar = Progbar(2, stream=stream)
    bar.update(2, [("loss", 1.25)], finalize=True)
    assert bar.live is None and _mask_times(stream.getvalue()).endswith("- Ns T/step - loss: 1.2500\n")


def test_fit_under_a_kernel_draws_one_widget_bar_per_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []

    def widget_progress(target: int) -> progbar_widget.WidgetProgress:
        made.append(progbar_widget.WidgetProgress(target, display=lambda box: None))
        return made[-1]

    monkeypatch.setattr(progbar, "widget_progress", widget_progress)   # as if ipykernel ran this code
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    # fixed weights: from random ones the loss fell under 1e-3 in ~1 run of 20, which the bar writes as 1.2345e-04
    model.set_weights([np.array([[0.5], [-0.25]], np.float32), np.zeros(1, np.float32)])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    x = np.arange(24, dtype=np.float32).reshape(12, 2) / 24
    printed = io.StringIO()
    monkeypatch.setattr(sys, "stdout", printed)
    history = model.fit(x, x[:, :1], epochs=2, batch_size=4, verbose=1)
    monkeypatch.undo()
    assert len(made) == 2 and all(w.target == 3 for w in made)              # 12 / 4 = 3 steps per epoch
    for epoch, widget in enumerate(made):
        assert (widget.bar.value, widget.bar.max, widget.bar.description) == (3, 3, "3/3")
        assert widget.bar.bar_style == "success"
        loss = history.history["loss"][epoch]
        assert f"- loss: {loss:.4f}</code>" in widget.label.value
    assert printed.getvalue() == "Epoch 1/2\nEpoch 2/2\n"                   # the bar is not printed as text too


@pytest.mark.parametrize("verbose", [0, 2])
def test_verbose_0_and_2_never_make_a_widget(monkeypatch: pytest.MonkeyPatch, verbose: int) -> None:
    monkeypatch.setattr(progbar, "widget_progress", lambda target: pytest.fail("a widget for verbose != 1"))
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), epochs=1, verbose=verbose)
