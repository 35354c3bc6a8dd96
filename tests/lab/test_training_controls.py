"""Pause / Step / Resume (webflow/lab/training_controls.py, Dashboard.run): clicks on real ipywidgets buttons stop a
training loop between steps, let exactly one step through, and resume it; the loop runs as a task of an event loop
(as in a kernel), so the clicks are handled while it trains."""

from __future__ import annotations

import asyncio

import pytest

from webflow.lab.dashboard import Dashboard
from webflow.lab.training_controls import FINISHED, PAUSED, POLL, RUNNING, TrainingControls

pytest.importorskip("ipywidgets")


async def _turns(count: int) -> None:
    """Lets the loop run `count` times (each step of the task yields once)."""
    for _ in range(count):
        await asyncio.sleep(0)


async def _settle() -> None:
    """Long enough for a paused loop to look at the buttons a few times."""
    await asyncio.sleep(4 * POLL)


def test_pause_step_resume_by_clicks() -> None:
    trained = []
    controls = TrainingControls()
    controls.widget()

    def steps():
        for step in range(20):
            trained.append(step)
            yield step

    async def session() -> None:
        task = controls.start(steps())
        await _turns(3)
        controls.button("Pause").click()
        paused_at = len(trained)
        assert 1 <= paused_at < 20 and controls.state == PAUSED
        await _settle()
        assert len(trained) == paused_at                       # paused: no step runs, however long we wait
        assert controls.button("Pause").disabled and not controls.button("Step").disabled
        controls.button("Step").click()
        await _settle()
        assert len(trained) == paused_at + 1                   # exactly one step, then paused again
        controls.button("Step").click()
        controls.button("Step").click()
        await _settle()
        assert len(trained) == paused_at + 3
        assert f"{paused_at + 3} steps" in controls._status.value and "paused" in controls._status.value
        controls.button("Resume").click()
        assert await task == 20
        assert trained == list(range(20)) and controls.state == FINISHED

    asyncio.run(session())


def test_without_an_event_loop_the_steps_run_to_the_end() -> None:
    controls = TrainingControls()
    assert controls.start(iter(range(7))) is None
    assert controls.steps_done == 7 and controls.state == FINISHED


def test_buttons_do_nothing_in_the_wrong_state() -> None:
    controls = TrainingControls()
    controls.resume()
    controls.step()
    assert controls.state == RUNNING and controls.may_step()
    controls.pause()
    assert not controls.may_step()
    controls.step()
    assert controls.may_step() and not controls.may_step()     # one granted step is used once


def test_dashboard_run_pauses_between_logged_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    from webflow.lab import dashboard

    # outside a notebook, even when an earlier test of this process started an IPython shell
    monkeypatch.setattr(dashboard, "ipython_display", lambda: None)
    sent = []

    class Handle:
        def update(self, data: dict, raw: bool) -> None:
            sent.append(data)

    def display(data: dict, raw: bool, display_id: bool) -> Handle:
        sent.append(data)
        return Handle()

    board = Dashboard(every=1000.0, display=display)   # no timed redraws: only the first, on pause, on close
    seen = []

    def train_step(step: int) -> dict:
        seen.append(step)
        return {"loss": 1.0 / (step + 1)}

    async def session() -> None:
        task = board.run(train_step, 10)       # no IPython here: no buttons shown, the gate works all the same
        await _turns(2)
        board.controls.pause()
        logged = len(board.series["loss"])
        await _settle()
        assert len(board.series["loss"]) == logged == len(seen)
        assert len(sent[-1]["application/vnd.webflow.dashboard+json"]["series"]["loss"]) == logged  # drawn on pause
        board.controls.step()
        await _settle()
        assert len(board.series["loss"]) == logged + 1
        board.controls.resume()
        await task

    asyncio.run(session())
    assert [step for step, _ in board.series["loss"]] == list(range(10))
    assert board.series["loss"][-1][1] == pytest.approx(0.1)
    assert sent[-1]["text/plain"].startswith("Training\n  loss: 0.1 at step 9 (10 points)")   # closed: final update


def test_in_a_notebook_the_buttons_and_the_curves_are_one_widget(monkeypatch: pytest.MonkeyPatch) -> None:
    from webflow.lab import dashboard

    shown = []
    monkeypatch.setattr(dashboard, "ipython_display", lambda: shown.append)   # as under a kernel
    board = Dashboard(every=0.0)
    assert board.run(lambda step: {"loss": 2.0 - step}, 3) is None            # no event loop here: ran to the end
    (box,) = shown
    buttons, chart = box.children
    assert [b.description for b in buttons.children[:3]] == ["Pause", "Step", "Resume"]
    assert all(b.disabled for b in buttons.children[:3]) and "finished" in buttons.children[3].value
    (output,) = chart.outputs                                                  # the board, replaced in place
    assert output["data"][dashboard.MIME_TYPE]["series"]["loss"] == [[0, 2.0], [1, 1.0], [2, 0.0]]
