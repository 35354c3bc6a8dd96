"""tf_keras's progress bar: `469/469 [==============================] - 3s 6ms/step - loss: 0.2913 - accuracy: 0.9172`.

verbose=1 redraws one line in place (tf_keras erases it with backspaces and a carriage return, as here); in a
notebook it is an ipywidgets progress bar with the same line beside it when ipywidgets is there (progbar_widget.py),
else one output area updated in place (lab's LiveOutput). verbose=2 prints one line per epoch.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from webflow.keras.progbar_widget import WidgetProgress, widget_progress

BAR_WIDTH = 30
INTERVAL = 0.05   # seconds between redraws (tf_keras's default)


def format_value(value: float) -> str:
    return f" {value:.4f}" if abs(value) > 1e-3 else f" {value:.4e}"


def format_time(seconds: float, unit: str = "step") -> str:
    if seconds >= 1 or seconds == 0:
        return f" {seconds:.0f}s/{unit}"
    if seconds >= 1e-3:
        return f" {seconds * 1e3:.0f}ms/{unit}"
    return f" {seconds * 1e6:.0f}us/{unit}"


def bar_text(current: int, target: int) -> str:
    """`  3/10 [========>.....................]`"""
    digits = int(math.log10(target)) + 1
    filled = int(BAR_WIDTH * current / target)
    bar = ""
    if filled > 0:
        bar += "=" * (filled - 1) + (">" if current < target else "=")
    bar += "." * (BAR_WIDTH - filled)
    return f"{current:{digits}d}/{target} [{bar}]"


def _notebook_output(target: int) -> Any:
    """In a notebook: a widget bar (ipywidgets there) or else lab's LiveOutput; None in a terminal."""
    from webflow.lab.display import LiveOutput, ipython_display

    widget = widget_progress(target)
    if widget is not None:
        return widget
    return LiveOutput() if ipython_display() is not None and "ipykernel" in sys.modules else None


class Progbar:
    """`Progbar(target, verbose=1)`: `update(current, values, finalize=None)` redraws the line."""

    def __init__(self, target: int, verbose: int = 1, stream: Any = None, unit_name: str = "step",
                 live: Any = None):
        self.target, self.verbose, self.unit_name = target, verbose, unit_name
        self.stream = stream or sys.stdout
        self.start = time.time()
        self.last_update = 0.0
        self.total_width = 0
        self.live = live if live is not None else (_notebook_output(target) if verbose == 1 and stream is None
                                                   else None)

    def update(self, current: int, values: list | None = None, finalize: bool | None = None) -> None:
        finalize = current >= self.target if finalize is None else finalize
        now = time.time()
        per_step = (now - self.start) / current if current else 0.0
        values_text = "".join(f" - {name}:{format_value(value)}" for name, value in values or [])
        if self.verbose == 2:
            if finalize:
                elapsed = now - self.start
                self.stream.write(f"{current}/{self.target} - {elapsed:.0f}s{values_text} -"
                                  f"{format_time(elapsed, 'epoch')} -{format_time(per_step)}\n")
                self.stream.flush()
            return
        if self.verbose != 1 or (now - self.last_update < INTERVAL and not finalize):
            return
        self.last_update = now
        if finalize:
            timing = f" - {now - self.start:.0f}s{format_time(per_step, self.unit_name)}"
        else:
            timing = f" - ETA: {_eta(per_step * (self.target - current))}"
        line = bar_text(current, self.target) + timing + values_text
        if isinstance(self.live, WidgetProgress):
            self.live.show(current, line, finalize)
            return
        if self.live is not None:
            self.live.publish({"text/plain": line})
            return
        previous = self.total_width
        padding = " " * max(0, previous - len(line))
        self.stream.write("\b" * previous + "\r" + line + padding + ("\n" if finalize else ""))
        self.total_width = len(line) + len(padding)
        self.stream.flush()


def _eta(seconds: float) -> str:
    if seconds > 3600:
        return f"{int(seconds // 3600)}:{int(seconds % 3600 // 60):02d}:{int(seconds % 60):02d}"
    if seconds > 60:
        return f"{int(seconds // 60)}:{int(seconds % 60):02d}"
    return f"{int(seconds)}s"
