"""`fit`'s progress bar as an ipywidgets bar in a notebook: `IntProgress` (value/max = steps done/steps) beside an
`HTML` label holding the same line tf_keras prints (`469/469 [====] - 3s 6ms/step - loss: ...`).

Used only when ipywidgets imports and an IPython kernel runs the code (JupyterLab, JupyterLite's Pyodide kernel,
nbclient); elsewhere progbar.py keeps the text line. webflow does not require ipywidgets: it is imported here,
lazily, by `widget_progress()`.
"""

from __future__ import annotations

import sys
from html import escape
from typing import Any


def widgets_available() -> bool:
    """True under an IPython kernel (ipykernel, or JupyterLite's pyodide_kernel) when ipywidgets imports."""
    ipython = sys.modules.get("IPython")
    if ipython is None or ipython.get_ipython() is None:
        return False
    if "ipykernel" not in sys.modules and "pyodide_kernel" not in sys.modules:
        return False   # a terminal IPython has no front end to draw a widget
    try:
        import ipywidgets  # noqa: F401
    except ImportError:
        return False
    return True


class WidgetProgress:
    """One bar + label, shown on the first `show`; `bar.value`, `bar.max`, `bar.description` and `label.value`
    are what a test (or a learner) reads."""

    def __init__(self, target: int, display: Any = None):
        import ipywidgets

        self.bar = ipywidgets.IntProgress(value=0, min=0, max=max(1, target), description=f"0/{target}")
        self.label = ipywidgets.HTML(value="")
        self.box = ipywidgets.HBox([self.bar, self.label])
        self.target = target
        self._display = display
        self._shown = False

    def show(self, current: int, line: str, finalize: bool) -> None:
        """Moves the bar to `current` steps and writes the text line beside it (green when the run is done)."""
        if not self._shown:
            self._shown = True
            display = self._display
            if display is None:
                from IPython.display import display
            display(self.box)
        self.bar.value = min(current, self.bar.max)
        self.bar.description = f"{current}/{self.target}"
        self.label.value = f"<code>{escape(line)}</code>"   # metric names come from the user's code: text, not HTML
        if finalize:
            self.bar.bar_style = "success"


def widget_progress(target: int) -> WidgetProgress | None:
    """A WidgetProgress when a notebook can draw one, else None (the caller prints text)."""
    return WidgetProgress(target) if widgets_available() else None


__all__ = ["WidgetProgress", "widget_progress", "widgets_available"]
