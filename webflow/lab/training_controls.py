"""Pause / Step / Resume for a training loop in a notebook: three ipywidgets buttons and a gate between steps.

    controls = TrainingControls()
    display(controls.widget())              # the buttons and a status line (needs ipywidgets)
    controls.start(steps)                   # steps: an iterator that trains one step per item

Why an asyncio task: while a cell runs, the kernel reads no message, so a button clicked during a blocking
loop would be seen only after it. `start` drives the iterator from a task on the kernel's own event loop
(ipykernel's, or the Pyodide kernel's in JupyterLite: no threads needed) and yields to the loop after each step,
so clicks are handled between steps: Pause stops before the next step, Step runs exactly one, Resume goes on.
Without a running loop (a script, a test) `run` drives the same iterator to the end, obeying the same gate.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Iterable
from typing import Any

RUNNING, PAUSED, FINISHED = "running", "paused", "finished"
POLL = 0.05   # seconds between two looks at the buttons while paused


class TrainingControls:
    """The gate of a training loop: `state` is "running", "paused" or "finished"; `steps_done` counts steps."""

    def __init__(self) -> None:
        self.state = RUNNING
        self.steps_done = 0
        self._single_steps = 0     # steps granted by Step while paused
        self._buttons: dict[str, Any] = {}
        self._status: Any = None
        self.task: asyncio.Task | None = None
        self.on_pause: Callable[[], None] = lambda: None   # called by the loop when it stops at the gate

    # --- what the buttons do (callable without widgets, as tests and scripts do) ------------------------------
    def pause(self) -> None:
        if self.state == RUNNING:
            self._set_state(PAUSED)

    def resume(self) -> None:
        if self.state == PAUSED:
            self._set_state(RUNNING)

    def step(self) -> None:
        """While paused: let exactly one more step run, then stay paused."""
        if self.state == PAUSED:
            self._single_steps += 1

    # --- the gate -------------------------------------------------------------------------------------------
    def may_step(self) -> bool:
        """True when the next step may run now (running, or a Step was granted: it is used up here)."""
        if self.state == RUNNING:
            return True
        if self.state == PAUSED and self._single_steps > 0:
            self._single_steps -= 1
            return True
        return False

    async def drive(self, steps: Iterable) -> int:
        """Runs `steps` one item at a time, waiting at the gate before each; returns the number of steps run."""
        iterator = iter(steps)
        try:
            while True:
                allowed = self.may_step()   # (uses up a Step's grant: asked once per look)
                if not allowed:
                    self.on_pause()   # in the loop's own thread: e.g. a dashboard draws its last points
                while not allowed:
                    # Polled, not an asyncio.Event: under ipykernel 7.4 an Event set by a click's handler did not
                    # wake this loop (seen in JupyterLab; the handler may run outside the loop's thread).
                    await asyncio.sleep(POLL)
                    allowed = self.may_step()
                try:
                    next(iterator)
                except StopIteration:
                    break
                self.steps_done += 1
                self._show_status()
                await asyncio.sleep(0)   # let the kernel read messages (a click) before the next step
        finally:
            self._set_state(FINISHED)
        return self.steps_done

    def start(self, steps: Iterable) -> asyncio.Task | None:
        """In a notebook (an event loop is running): drive `steps` in a task and return it at once.
        Elsewhere: run them all now (the buttons cannot be clicked meanwhile) and return None."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if sys.platform != "emscripten":
                asyncio.run(self.drive(steps))
                return None
            loop = asyncio.get_event_loop()   # Pyodide's loop runs on the browser's own: it schedules, never blocks
        self.task = loop.create_task(self.drive(steps))
        return self.task

    # --- the widgets ----------------------------------------------------------------------------------------
    def widget(self) -> Any:
        """An HBox of the Pause / Step / Resume buttons and a status label (ipywidgets imported here)."""
        import ipywidgets

        actions = {"Pause": self.pause, "Step": self.step, "Resume": self.resume}
        for name, action in actions.items():
            button = ipywidgets.Button(description=name, tooltip=f"{name} the training loop")
            button.on_click(lambda _button, action=action: action())
            self._buttons[name] = button
        self._status = ipywidgets.HTML()
        self._show_status()
        return ipywidgets.HBox([*self._buttons.values(), self._status])

    def button(self, name: str) -> Any:
        """The "Pause", "Step" or "Resume" button of `widget()` (tests click it: `button.click()`)."""
        return self._buttons[name]

    def _set_state(self, state: str) -> None:
        self.state = state
        self._show_status()

    def _show_status(self) -> None:
        if self._status is not None:
            self._status.value = f"<b>{self.state}</b>, {self.steps_done} steps"
        if self._buttons:
            self._buttons["Pause"].disabled = self.state != RUNNING
            self._buttons["Step"].disabled = self._buttons["Resume"].disabled = self.state != PAUSED


__all__ = ["TrainingControls", "RUNNING", "PAUSED", "FINISHED"]
