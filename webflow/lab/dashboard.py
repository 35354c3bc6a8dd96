"""`Dashboard`: training curves in one live output, with hints read off the curves.

    board = webflow.lab.Dashboard()
    for step in range(...):
        board.log(step, loss=l, accuracy=a, val_loss=vl, val_accuracy=va)
    board.close()

Each `log` appends points; at most one update per `every` seconds (plus one on close) re-sends the
document (MIME `application/vnd.webflow.dashboard+json`, with a text/plain table) to the same output.
`diagnose(series)` is a pure function so the hints can be tested on synthetic curves.
`board.run(train_step, steps)` trains under Pause / Step / Resume buttons (training_controls.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

from webflow.lab.display import LiveOutput, ipython_display
from webflow.lab.training_controls import TrainingControls

MIME_TYPE = "application/vnd.webflow.dashboard+json"
VERSION = 1

# Thresholds of the hints (relative changes over the last half of the logged points):
MIN_POINTS = 6          # fewer points than this: too early to say anything
FALLING = -0.05         # a curve "falls" when its late mean is >5% below its early mean
FLAT = 0.02             # ... is "flat" when it moves by less than 2% either way
RISING = 0.02           # ... "rises" when it is >2% above
EXPLODING = 10.0        # a loss 10x above its first value is exploding
STUCK = 0.10            # a flat loss is "stuck" (not converged) if it never fell 10% below its first value
CHANCE_MARGIN = 0.05    # accuracy within 0.05 of chance (1 / classes) after MIN_POINTS logs


def diagnose(series: dict, classes: int | None = None) -> list[str]:
    """Hints from curves {name: [[step, value], ...]}; names loss/val_loss/accuracy/val_accuracy are read."""
    hints = []
    loss, val_loss = _values(series, "loss"), _values(series, "val_loss")
    if any(not math.isfinite(v) for v in loss + val_loss):
        return ["The loss is NaN or infinite: the learning rate is probably too high (or a log/division "
                "got 0); lower it, or clip gradients."]
    if len(loss) >= 2 and loss[0] > 0 and max(loss) > EXPLODING * loss[0]:
        hints.append(f"The loss grew to {max(loss):.3g}, over {EXPLODING:g}x its first value {loss[0]:.3g}: "
                     "exploding; lower the learning rate.")
    if len(loss) >= MIN_POINTS:
        train_trend = _trend(loss)
        if len(val_loss) >= MIN_POINTS:
            val_trend = _trend(val_loss)
            if train_trend < FALLING and val_trend > -FLAT:
                state = "rising" if val_trend > RISING else "flat"
                hints.append(f"Training loss falls ({100 * train_trend:.0f}%) while validation loss is {state} "
                             f"({100 * val_trend:+.0f}%): overfitting. Try more data, regularization, dropout or "
                             "early stopping.")
        val_flat = len(val_loss) < MIN_POINTS or abs(_trend(val_loss)) < FLAT
        stuck = loss[0] > 0 and min(loss) > (1 - STUCK) * loss[0]
        if abs(train_trend) < FLAT and val_flat and stuck:
            hints.append(f"The loss is flat ({100 * train_trend:+.1f}% over the last half) and never fell "
                         f"{100 * STUCK:.0f}% below its start: the steps may overshoot back and forth. Try a lower "
                         "learning rate first (then a higher one if nothing changes).")
    for name in ("accuracy", "val_accuracy"):
        values = _values(series, name)
        if classes and len(values) >= MIN_POINTS:
            chance = 1.0 / classes
            recent = _mean(values[len(values) // 2:])
            if abs(recent - chance) < CHANCE_MARGIN:
                hints.append(f"{name} is {recent:.3f}, at chance level (1/{classes} = {chance:.3f}): check that "
                             "labels match inputs (shuffled together?), the input scaling, and the loss/labels format.")
    return hints


def _values(series: dict, name: str) -> list[float]:
    return [float(point[1]) for point in series.get(name, [])]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _trend(values: list[float]) -> float:
    """Relative change from the mean of the first quarter of the second half to the mean of its last quarter."""
    half = values[len(values) // 2:]
    quarter = max(1, len(half) // 2)
    early, late = _mean(half[:quarter]), _mean(half[-quarter:])
    return (late - early) / max(abs(early), 1e-12)


class Dashboard:
    """Scalars per step in one live output; `hints` say what the curves suggest."""

    def __init__(self, title: str = "Training", every: float = 0.5, classes: int | None = None,
                 display: Any = None):
        self.title = title
        self.every = every
        self.classes = classes  # for the "accuracy at chance" hint (1 / classes)
        self.series: dict[str, list] = {}
        self._output = LiveOutput(display)
        self._last_update = -math.inf
        self.controls: TrainingControls | None = None

    def log(self, step: int, **scalars: float) -> None:
        for name, value in scalars.items():
            self.series.setdefault(name, []).append([step, float(value)])
        if time.monotonic() - self._last_update >= self.every:
            self.update()

    def run(self, train_step: Callable[[int], dict], steps: int, buttons: bool = True) -> Any:
        """Calls `train_step(step)` (returns {name: scalar}) for steps 0..steps-1, logging each, then closes.

        In a notebook with ipywidgets the Pause / Step / Resume buttons are shown first and the loop runs as a
        task of the kernel's event loop, returned at once (the cell ends; clicks are read between steps);
        elsewhere it runs to the end here. `self.controls` is the gate (its buttons: `controls.button("Pause")`)."""
        self.controls = TrainingControls()
        self.controls.on_pause = self.update   # paused: show every point logged so far
        display = ipython_display()
        if buttons and display is not None and _widgets_import():
            import ipywidgets

            # The curves go into an Output widget, updated through the widget's comm: the loop outlives the
            # cell, and outputs sent after a cell has finished are not reliably routed to it; widget state is.
            chart = ipywidgets.Output()
            self._output = _WidgetOutput(chart)
            display(ipywidgets.VBox([self.controls.widget(), chart]))
        self.update()   # the empty board now, while the cell runs
        return self.controls.start(self._steps(train_step, steps))

    def _steps(self, train_step: Callable[[int], dict], steps: int) -> Iterator[int]:
        try:
            for step in range(steps):
                self.log(step, **train_step(step))
                yield step
        finally:
            self.close()

    def update(self) -> None:
        self._last_update = time.monotonic()
        self._output.publish(self._repr_mimebundle_())

    def close(self) -> None:
        self.update()
        self._output.close()

    def __enter__(self) -> Dashboard:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    @property
    def hints(self) -> list[str]:
        return diagnose(self.series, self.classes)

    def document(self) -> dict:
        # JSON has no NaN/Infinity (the browser's JSON.parse rejects them): such points are sent as null
        series = {name: [[step, value if math.isfinite(value) else None] for step, value in points]
                  for name, points in self.series.items()}
        return {"version": VERSION, "title": self.title, "series": series, "hints": self.hints}

    def text(self) -> str:
        lines = [self.title]
        for name, points in self.series.items():
            step, value = points[-1]
            lines.append(f"  {name}: {value:.4g} at step {step} ({len(points)} points)")
        lines += [f"  hint: {hint}" for hint in self.hints]
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict:
        return {MIME_TYPE: self.document(), "text/plain": self.text()}


class DashboardCallback:
    """Feeds a Dashboard from a Keras-style training loop: `model.fit(..., callbacks=[DashboardCallback()])`.

    Keras calls these hooks with a `logs` dict ({"loss": ..., "val_loss": ...}); batch logs go in at the
    running batch count, epoch logs (where the validation metrics appear) at the epoch number.
    """

    def __init__(self, dashboard: Dashboard | None = None, per_batch: bool = False):
        self.dashboard = dashboard if dashboard is not None else Dashboard()
        self.per_batch = per_batch
        self.model: Any = None
        self.params: dict = {}
        self._batches_seen = 0

    def set_model(self, model: Any) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        self._batches_seen += 1
        if self.per_batch and logs:
            self.dashboard.log(self._batches_seen, **_scalars(logs))

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if logs:
            self.dashboard.log(epoch, **_scalars(logs))

    def on_train_end(self, logs: dict | None = None) -> None:
        self.dashboard.close()

    def __getattr__(self, name: str) -> Any:
        # The other hooks Keras may call (on_train_begin, on_test_batch_end, ...) have nothing to do here.
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class _WidgetOutput:
    """LiveOutput's interface on an ipywidgets Output: each publish replaces the widget's one output."""

    def __init__(self, widget: Any):
        self.widget = widget
        self.updates = 0

    def publish(self, data: dict) -> None:
        self.widget.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)
        self.updates += 1

    def close(self) -> None:
        pass


def _widgets_import() -> bool:
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


def _scalars(logs: dict) -> dict:
    return {name: float(value) for name, value in logs.items() if isinstance(value, (int, float))
            or hasattr(value, "__float__")}


__all__ = ["Dashboard", "DashboardCallback", "diagnose", "MIME_TYPE"]
