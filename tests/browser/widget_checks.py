"""Checks shared by the widget tests in JupyterLab and in JupyterLite (same widget DOM, same cells' outputs).

Each takes the NotebookUI of an open notebook whose cells are FIT, KNOBS, DASHBOARD, PROBE (see the tests)."""

from __future__ import annotations

import os
import time

import launch  # noqa: F401  (puts tests/lab on sys.path: notebook_ui)
from notebook_ui import NotebookUI

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or
                         os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lab", "artifacts"),
                         "widgets")


def accept_kernel_dialog(page, kernel: str | None = None) -> None:
    """On a loaded machine JupyterLab sometimes asks which kernel to start although the notebook names one:
    answer it (with `kernel`, the display name, when given) instead of typing into a page under a dialog."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() == 0:
        return
    if kernel is not None:
        dialog.locator("select").select_option(label=kernel)
    dialog.locator("button.jp-mod-accept").click()
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=180_000)


def status(out) -> tuple[str, int]:
    """("paused", 12) from the dashboard's status line "<b>paused</b>, 12 steps"."""
    words = out.locator(".widget-html-content").first.inner_text().replace(",", "").split()
    return words[0], int(words[1])


def wait_status(out, state: str, timeout: float = 60.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found, steps = status(out)
        if found == state:
            return steps
        time.sleep(0.1)
    raise TimeoutError(f"dashboard never {state}: {status(out)}")


def progress_bar(notebook: NotebookUI, where: str, steps: int = 32) -> None:
    time.sleep(2)   # a kernel-choice dialog, when JupyterLab shows one, comes shortly after the first idle
    accept_kernel_dialog(notebook.page, "webflow test kernel" if where == "jupyterlab" else None)
    notebook.run(0)
    out = notebook.output(0)
    out.locator(".widget-hprogress").wait_for(timeout=120_000)
    notebook.wait_done(0)
    bar = out.locator(".widget-hprogress .progress-bar")
    deadline = time.monotonic() + 30
    while bar.evaluate("b => b.style.width") != "100%" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert bar.evaluate("b => b.style.width") == "100%"
    assert out.locator(".widget-hprogress .widget-label").inner_text() == f"{steps}/{steps}"
    line = out.locator(".widget-html-content code").inner_text()
    assert line.startswith(f"{steps}/{steps} [==============================] - ") and "/step - loss: " in line, line
    assert "Epoch 1/1" in out.inner_text()
    notebook.cell(0).screenshot(path=os.path.join(ARTIFACTS, f"{where}_fit_progress_bar.png"))


def knob(page, notebook: NotebookUI, where: str) -> None:
    notebook.run(1)
    out = notebook.output(1)
    title = out.locator(".widget-html-content svg text").first
    title.wait_for(timeout=60_000)
    notebook.wait_done(1)
    assert title.text_content() == "probe (rate 3)"
    out.locator(".widget-hslider .noUi-handle").first.focus()
    page.keyboard.press("ArrowRight")                      # one step up: 3 -> 4, and the kernel trains again
    deadline = time.monotonic() + 60
    while title.text_content() != "probe (rate 4)" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert title.text_content() == "probe (rate 4)"
    assert out.locator(".widget-readout").first.inner_text().strip() == "4"
    assert "run 2: rate 4" in out.inner_text()
    notebook.cell(1).screenshot(path=os.path.join(ARTIFACTS, f"{where}_knob.png"))


def pause_step_resume(notebook: NotebookUI, where: str, total: int = 400) -> None:
    notebook.run(2)
    out = notebook.output(2)
    pause = out.locator("button:has-text('Pause')")
    pause.wait_for(timeout=60_000)
    notebook.wait_done(2)                                   # the cell is done; the loop goes on as a task
    wait_status(out, "running")
    pause.click()
    paused_at = wait_status(out, "paused")
    time.sleep(1.5)                                         # 1.5 s at ~30 ms a step would be ~50 steps
    assert status(out) == ("paused", paused_at)
    out.locator("button:has-text('Step')").click()
    deadline = time.monotonic() + 30
    while status(out)[1] != paused_at + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    assert status(out) == ("paused", paused_at + 1)
    notebook.run(3)                                         # the kernel agrees, and answers while paused
    notebook.wait_done(3)
    assert f"steps {paused_at + 1} paused runs 2" in notebook.output_text(3)
    notebook.cell(2).screenshot(path=os.path.join(ARTIFACTS, f"{where}_dashboard_paused.png"))
    out.locator("button:has-text('Resume')").click()
    assert wait_status(out, "finished", timeout=120) == total
    assert paused_at < total
