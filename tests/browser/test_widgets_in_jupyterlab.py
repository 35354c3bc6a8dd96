"""ipywidgets in a REAL JupyterLab with a live kernel (cells run through the UI, Shift+Enter; the widget manager
@jupyter-widgets/jupyterlab-manager comes with jupyterlab_widgets in this Python):

1. Keras `fit(verbose=1)` draws a widget progress bar (ipywidgets IntProgress + the tf_keras line beside it) that
   reaches 100% with `32/32 [====...] - ... - loss: ...`;
2. a lesson's knob (lessons/controls.py): pressing → on a focused slider moves it one step, the kernel trains again
   and the picture's title says the new value;
3. the Dashboard's Pause / Step / Resume buttons stop a running training loop between steps (the count stays put
   while paused), let exactly one step through, then let it finish.
Screenshots go to $WEBFLOW_ARTIFACTS or tests/lab/artifacts/widgets/.
"""

from __future__ import annotations

import os

import pytest
import widget_checks
from launch import REPO, lab_page, require_jupyterlab, write_notebook
from notebook_ui import NotebookUI

ARTIFACTS = widget_checks.ARTIFACTS
LESSONS = os.path.join(REPO, "lessons")

FIT = """\
import numpy as np
from webflow import keras
model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
model.compile(keras.optimizers.SGD(0.1), "mse")
x = np.linspace(0, 1, 512, dtype=np.float32).reshape(256, 2)
history = model.fit(x, x[:, :1], epochs=1, batch_size=8, verbose=1)
"""
KNOBS = f"""\
import sys
sys.path.insert(0, {LESSONS!r})
import controls
def train(rate):
    for k in range(1, 4):
        yield {{"loss": [rate / (1 + j) for j in range(k)]}}
knobs = controls.knobs(train, "probe", rate=controls.int_slider(3, 1, 9))
knobs
"""
DASHBOARD = """\
import time
import webflow.lab as lab
board = lab.Dashboard(title="paused training", every=0.2)
def train_step(step):
    time.sleep(0.03)
    return {"loss": 1.0 / (step + 1)}
task = board.run(train_step, 400)
"""
PROBE = "print('steps', board.controls.steps_done, board.controls.state, 'runs', knobs.runs)"


def test_widgets_in_jupyterlab(tmp_path: pytest.TempPathFactory) -> None:
    # (the built extension is not needed: the widgets are ipywidgets' own, drawn by jupyterlab_widgets)
    require_jupyterlab("jupyterlab", "ipykernel", "ipywidgets", "jupyterlab_widgets", extension=False,
                       extras="dev,browser")
    os.makedirs(ARTIFACTS, exist_ok=True)
    root = str(tmp_path / "notebooks")
    write_notebook(root, "widgets.ipynb", [FIT, KNOBS, DASHBOARD, PROBE])
    with lab_page(root, tmp_path) as (url, page, log):
        page.goto(url + "/lab/tree/widgets.ipynb", timeout=180_000)
        notebook = NotebookUI(page)
        notebook.wait_idle()
        try:
            widget_checks.progress_bar(notebook, "jupyterlab")
            widget_checks.knob(page, notebook, "jupyterlab")
            widget_checks.pause_step_resume(notebook, "jupyterlab")
        except Exception:
            page.screenshot(path=os.path.join(ARTIFACTS, "jupyterlab_failure.png"))
            print("\n".join(log.console[-40:] + log.errors[-20:]))
            raise
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
