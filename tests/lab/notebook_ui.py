"""Driving a notebook through JupyterLab's UI with Playwright (for tests that execute cells in a live kernel).

    extra_env = lab_environment(work_dir)          # a kernelspec running THIS Python with this repo on its path
    with jupyterlab_server(root, extra_env=extra_env) as url, chromium_page(url) as (page, log):
        page.goto(url + "/lab/tree/demo.ipynb")
        notebook = NotebookUI(page)
        notebook.wait_idle()
        notebook.run(0)                           # click the cell, Shift+Enter (what a learner does)
        notebook.wait_done(0)

The kernelspec is written by the test, so the kernel is the interpreter running the test (the venv of
`make test`) and imports webflow from this checkout (PYTHONPATH), whatever is installed elsewhere.
Lab settings make runs repeatable: no virtual scrolling of cells (every cell stays in the DOM, so an
output element keeps its identity while we watch it), no news toast over the screenshots.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # the tests that use this module skip without Playwright
    PlaywrightError = Exception

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL_NAME = "webflow-test-python"
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false"},
}


def lab_environment(work_dir: str) -> dict:
    """Writes a kernelspec + lab user settings under `work_dir`; returns the env vars that make the server use them."""
    kernel_dir = os.path.join(work_dir, "jupyter-data", "kernels", KERNEL_NAME)
    os.makedirs(kernel_dir, exist_ok=True)
    python_path = os.pathsep.join([REPO] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "webflow test kernel", "language": "python",
            "env": {"PYTHONPATH": python_path, "OPENBLAS_NUM_THREADS": "1"}}
    with open(os.path.join(kernel_dir, "kernel.json"), "w") as f:
        json.dump(spec, f)
    settings_dir = os.path.join(work_dir, "lab-settings")
    for name, values in SETTINGS.items():
        path = os.path.join(settings_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(values, f)
    return {"JUPYTER_PATH": os.path.join(work_dir, "jupyter-data"), "JUPYTERLAB_SETTINGS_DIR": settings_dir}


def notebook_json(sources: list[str]) -> dict:
    """An nbformat 4 notebook of code cells (not yet run) using the test kernelspec."""
    cells = [{"cell_type": "code", "id": f"cell{i}", "execution_count": None, "metadata": {}, "source": source,
              "outputs": []} for i, source in enumerate(sources)]
    kernelspec = {"name": KERNEL_NAME, "display_name": "webflow test kernel", "language": "python"}
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": kernelspec}, "cells": cells}


class NotebookUI:
    """The open notebook of a JupyterLab page: run cells like a user, wait for the kernel, find outputs."""

    def __init__(self, page, timeout_ms: int = 180_000):
        self.page = page
        self.timeout_ms = timeout_ms

    def cell(self, index: int):
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(index)

    def output(self, index: int):
        """The output area of cell `index` (JupyterLab keeps this element while outputs are updated)."""
        return self.cell(index).locator(".jp-OutputArea").first

    def status(self) -> str:
        return self.page.locator(".jp-Notebook-ExecutionIndicator").first.get_attribute("data-status") or ""

    def wait_idle(self) -> float:
        """Waits for the kernel status "idle" (PLATFORM.md: keys typed earlier are lost); returns seconds waited."""
        start = time.perf_counter()
        self.page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=self.timeout_ms)
        return time.perf_counter() - start

    def run(self, index: int, attempts: int = 5) -> None:
        """Clicks into cell `index` and presses Shift+Enter, as a user does; checks that the cell was queued.

        Right after the kernel first reports idle, JupyterLab sometimes moves on to the next cell without
        sending the code (the prompt stays `[ ]:`); then we select the cell and press again."""
        for attempt in range(attempts):
            editor = self.cell(index).locator(".jp-InputArea-editor")
            try:
                editor.scroll_into_view_if_needed()
                editor.click()
            except PlaywrightError as error:  # the notebook re-rendered the cell under us (seen on a busy machine)
                print(f"cell {index} was replaced while clicking (attempt {attempt + 1}): {str(error).splitlines()[0]}")
                time.sleep(1)
                continue
            self.page.keyboard.press("Shift+Enter")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                if self.prompt(index):
                    return
                time.sleep(0.1)
            print(f"cell {index} was not queued (attempt {attempt + 1}); pressing Shift+Enter again")
        raise TimeoutError(f"cell {index} never started; kernel status {self.status()!r}")

    def prompt(self, index: int) -> str:
        """What is inside the brackets of the input prompt: "" (never run), "*" (queued/running) or the count."""
        found = re.search(r"\[(.*?)\]", self.cell(index).locator(".jp-InputArea-prompt").first.inner_text())
        return found.group(1).strip() if found else ""

    def execution_count(self, index: int) -> int | None:
        prompt = self.prompt(index)
        return int(prompt) if prompt.isdigit() else None

    def wait_done(self, index: int, timeout_ms: int | None = None) -> None:
        """Waits until cell `index` shows an execution count ([n]: rather than [*]: or [ ]:)."""
        deadline = time.monotonic() + (timeout_ms or self.timeout_ms) / 1000
        while self.execution_count(index) is None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"cell {index} did not finish; kernel status {self.status()!r}")
            time.sleep(0.1)

    def output_text(self, index: int) -> str:
        return self.output(index).inner_text()
