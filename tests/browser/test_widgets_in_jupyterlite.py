"""ipywidgets in the built JupyterLite site (Pyodide kernel, no server, no NumPy), as in JupyterLab
(test_widgets_in_jupyterlab.py, same checks from widget_checks.py): Keras `fit`'s widget progress bar reaching 100%,
a lesson's knob moved with the keyboard re-running the training, and the Dashboard's Pause / Step / Resume.

What it shows of the site (site/build_lite.py): ipywidgets is in its Pyodide lock and webflow's entry depends on it
(no cell imports ipywidgets, yet `fit` finds it), and the widget manager extension is served from the site itself.
The current webflow wheel, built now, is laid over the built site as in test_tensorboard_panel_in_jupyterlite.py;
lessons/controls.py and plots.py travel inside a cell (the overlay's contents hold only the test notebook).
"""

from __future__ import annotations

import json
import os

import widget_checks
from conftest import require_or_skip
from launch import LITE_NOTEBOOK, LITE_SITE, REPO, lite_overlay, lite_page, require_lite_site, webflow_wheel
from notebook_ui import NotebookUI

FIT = """\
from webflow import keras
from webflow.datasets import mnist
(train_images, train_labels), _ = mnist.load_sample()
x = train_images.reshape(60, 100, 784)[0].astype("float32")
y = train_labels.reshape(60, 100)[0].astype("int32")
model = keras.Sequential([keras.layers.Dense(10, input_shape=(784,))])
model.compile(keras.optimizers.SGD(0.001), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(x, y, epochs=1, batch_size=10, verbose=1, shuffle=False)  # shuffling needs NumPy
"""
KNOBS = """\
import os, sys
os.makedirs("/tmp/lessons", exist_ok=True)
for name, text in SOURCES.items():
    with open(os.path.join("/tmp/lessons", name), "w") as f:
        f.write(text)
sys.path.insert(0, "/tmp/lessons")
import controls
def train(rate):
    for k in range(1, 4):
        yield {"loss": [rate / (1 + j) for j in range(k)]}
knobs = controls.knobs(train, "probe", rate=controls.int_slider(3, 1, 9))
knobs
"""
DASHBOARD = """\
import webflow.lab as lab
board = lab.Dashboard(title="paused training", every=0.2)
def train_step(step):
    total = sum(i * i for i in range(40000))   # a few ms of work: no sleeping in the browser
    return {"loss": 1.0 / (step + 1)}
task = board.run(train_step, 400)
"""
PROBE = "print('steps', board.controls.steps_done, board.controls.state, 'runs', knobs.runs)"


def _sources() -> dict:
    files = {}
    for name in ("controls.py", "plots.py"):
        with open(os.path.join(REPO, "lessons", name), encoding="utf-8") as f:
            files[name] = f.read()
    return files


def test_widgets_in_jupyterlite(tmp_path) -> None:
    require_lite_site()
    with open(os.path.join(LITE_SITE, "static", "pyodide", "pyodide-lock.json")) as f:
        if "ipywidgets" not in json.load(f)["packages"]:
            require_or_skip(f"the site at {LITE_SITE} was built before it shipped ipywidgets: run `make site`")
    wheel = webflow_wheel(tmp_path / "wheel")
    cells = [FIT, f"SOURCES = {_sources()!r}\n" + KNOBS, DASHBOARD, PROBE]
    mounts = lite_overlay(str(tmp_path / "overlay"), cells, wheel)
    os.makedirs(widget_checks.ARTIFACTS, exist_ok=True)
    with lite_page(mounts) as (origin, page, log):
        try:
            page.goto(origin + LITE_NOTEBOOK, timeout=180_000)
            notebook = NotebookUI(page, timeout_ms=240_000)
            notebook.wait_idle()
            widget_checks.progress_bar(notebook, "jupyterlite", steps=10)
            widget_checks.knob(page, notebook, "jupyterlite")
            widget_checks.pause_step_resume(notebook, "jupyterlite")
        except Exception:
            page.screenshot(path=os.path.join(widget_checks.ARTIFACTS, "jupyterlite_failure.png"))
            print("\n".join(log.console[-60:] + log.errors[-20:]))
            raise
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
