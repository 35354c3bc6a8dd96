"""Knobs for the lessons: sliders (ipywidgets) that re-run a cell's training and redraw its curves as it goes.

    def train(learning_rate, hidden_units):
        ...                                   # train; after each epoch:
        yield {"validation loss": losses}     # curves as plots.lines takes them (or an Svg): drawn at once
    controls.knobs(train, "MLP", learning_rate=controls.log_slider(0.5, 0.01, 2.0),
                   hidden_units=controls.int_slider(64, 16, 256, step=16))

`knobs` trains once with the sliders' starting values (so the cell shows its curves, and a top-to-bottom run
checks it), then every change of a slider trains again with the new values. Where ipywidgets is missing (a plain
Python, tests/test_lessons.py) the same first run happens and the cell shows its last picture. A training function
that returns instead of yielding is drawn once, at its end. The curves are plots.py's SVG, put in an HTML widget:
it renders the same in JupyterLab and JupyterLite.
"""

from __future__ import annotations

import math
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import plots


@dataclass
class Knob:
    """One slider: `kind` "log" (FloatLogSlider), "int" (IntSlider) or "float" (FloatSlider)."""

    kind: str
    value: float
    low: float
    high: float
    step: float

    def widget(self, name: str) -> Any:
        import ipywidgets

        # continuous_update=False: train when the slider is let go, not at every pixel of a drag
        common = {"description": name.replace("_", " "), "continuous_update": False,
                  "style": {"description_width": "initial"}}
        if self.kind == "log":
            return ipywidgets.FloatLogSlider(value=self.value, base=10, min=math.log10(self.low),
                                             max=math.log10(self.high), step=self.step, **common)
        if self.kind == "int":
            return ipywidgets.IntSlider(value=int(self.value), min=int(self.low), max=int(self.high),
                                        step=int(self.step), **common)
        return ipywidgets.FloatSlider(value=self.value, min=self.low, max=self.high, step=self.step, **common)


def log_slider(value: float, low: float, high: float, step: float = 0.1) -> Knob:
    """A slider on a log scale (a learning rate: 0.001 to 1 in even steps of the exponent, 0.1 = ×1.26)."""
    return Knob("log", value, low, high, step)


def int_slider(value: int, low: int, high: int, step: int = 1) -> Knob:
    """A whole-number slider (hidden units, a batch size, a convolution's stride)."""
    return Knob("int", value, low, high, step)


def float_slider(value: float, low: float, high: float, step: float = 0.05) -> Knob:
    """A slider of decimals (a gate's value between 0 and 1)."""
    return Knob("float", value, low, high, step)


def widgets_available() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


class Knobs:
    """Sliders + the picture of the last run. `values` are the sliders' values, `runs` counts trainings,
    `picture` is the last Svg drawn and `result` what the training function returned (or last yielded)."""

    def __init__(self, train: Callable[..., Any], title: str = "", **knobs: Knob):
        self.train, self.title, self.knobs = train, title, knobs
        self.values = {name: knob.value for name, knob in knobs.items()}
        self.runs = 0
        self.picture: plots.Svg | None = None
        self.result: Any = None
        self.sliders: dict[str, Any] = {}
        self._picture_widget: Any = None
        self._status: Any = None

    def run(self) -> plots.Svg | None:
        """Trains with the current values, drawing each curve the training yields; returns the last picture."""
        self.runs += 1
        self._say(f"training with {self._values_text()} …")
        outcome = self.train(**self.values)
        if isinstance(outcome, types.GeneratorType):
            for curves in outcome:
                self._draw(curves)
        else:
            self._draw(outcome)
        self._say(f"run {self.runs}: {self._values_text()}")
        return self.picture

    def set(self, **values: float) -> None:
        """Changes values and trains again (what moving a slider does)."""
        self.values.update(values)
        self.run()

    def widget(self) -> Any:
        """The sliders, a status line and the picture, in one box (ipywidgets)."""
        import ipywidgets

        if not self.sliders:
            for name, knob in self.knobs.items():
                slider = knob.widget(name)
                slider.value = self.values[name]
                slider.observe(lambda change, name=name: self._moved(name, change["new"]), names="value")
                self.sliders[name] = slider
            self._status = ipywidgets.HTML(value=f"run {self.runs}: {self._values_text()}")
            self._picture_widget = ipywidgets.HTML(value=self.picture.markup if self.picture else "")
        return ipywidgets.VBox([*self.sliders.values(), self._status, self._picture_widget])

    def _moved(self, name: str, value: float) -> None:
        self.set(**{name: value})

    def _draw(self, curves: Any) -> None:
        if curves is None:
            return
        self.result = curves
        if isinstance(curves, plots.Svg):
            self.picture = curves
        else:
            series = dict(curves)   # "xlabel" may ride along with the curves; the caller's dict is left as it was
            xlabel = series.pop("xlabel", "epoch")
            self.picture = plots.lines(series, title=f"{self.title} ({self._values_text()})", xlabel=xlabel)
        if self._picture_widget is not None:
            self._picture_widget.value = self.picture.markup

    def _say(self, text: str) -> None:
        if self._status is not None:
            self._status.value = text

    def _values_text(self) -> str:
        return ", ".join(f"{name.replace('_', ' ')} {_number(value)}" for name, value in self.values.items())

    def _ipython_display_(self) -> None:
        from IPython.display import display

        display(self.widget() if widgets_available() else self.picture)

    def __repr__(self) -> str:
        return f"<knobs {self._values_text()}: {self.picture!r}>"


def knobs(train: Callable[..., Any], title: str = "", **knob_specs: Knob) -> Knobs:
    """Trains once with the starting values and returns the Knobs (a cell's last value: sliders + curves)."""
    controls = Knobs(train, title, **knob_specs)
    controls.run()
    return controls


def _number(value: float) -> str:
    return f"{value:g}" if isinstance(value, int) or value == int(value) else f"{value:.3g}"
