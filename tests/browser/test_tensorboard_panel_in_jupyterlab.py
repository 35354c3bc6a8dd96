"""The notebook TensorBoard panel in a REAL JupyterLab with a live kernel (cells run through the UI, Shift+Enter).

1. A cell writes scalars with webflow's TF2 writer (runs "train" and "eval", one tag an XSS payload), then
   `%load_ext webflow.lab` + `%tensorboard --logdir logs` draws one chart per tag with one smoothed line per run,
   holding as many points as were written; when WEBFLOW_TF_PYTHON is set, a run written by real TensorFlow 2.21
   ("tensorflow") is in the same logdir and its curve is drawn with TensorFlow's points too.
2. The payload tag renders as text: no element from it, nothing executed.
3. Live: `lab.tensorboard(..., live=True)` + `refresh()` in a training loop updates the same output in place to
   the final number of points, then stops saying live.
Screenshots go to $WEBFLOW_ARTIFACTS or tests/lab/artifacts/tensorboard/.
"""

from __future__ import annotations

import os
import sys
import time

import pytest
from launch import HERE, REPO, TESTS, lab_page, require_jupyterlab, write_notebook
from notebook_ui import NotebookUI

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "tensorboard")
XSS = "<img src=x onerror=window.__pwned=1>"
LIVE_STEPS = 25

WRITE = f"""\
import time
import webflow as wf
import webflow.lab as lab
for run, scale in (("train", 1.0), ("eval", 1.5)):
    writer = wf.summary.create_file_writer("logs/" + run)
    with writer.as_default():
        for step in range(8):
            wf.summary.scalar("loss", scale / (step + 1), step=step)
            wf.summary.scalar({XSS!r}, float(step), step=step)
    writer.close()
%load_ext webflow.lab
%tensorboard --logdir logs
"""
LIVE = f"""\
writer = wf.summary.create_file_writer("live_logs/run")
panel = lab.tensorboard("live_logs", live=True, every=0.1)
with writer.as_default():
    for step in range({LIVE_STEPS}):
        wf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        writer.flush()
        time.sleep(0.02)
        panel.refresh()
writer.close()
panel.close()
"""
TF_RUN = """
import tensorflow as tf
writer = tf.summary.create_file_writer(LOGDIR)
with writer.as_default():
    for step in range(6):
        tf.summary.scalar("loss", 2.0 / (step + 1), step=step * 2)
writer.close()
result = True
"""
LINES = """out => [...out.querySelectorAll('.wf-tb-smoothed')].map(l => [l.getAttribute('data-tag'),
  l.getAttribute('data-run'), Number(l.getAttribute('data-points')), Number(l.getAttribute('data-last-step')),
  l.getAttribute('points').trim().split(/\\s+/).length])"""


def _tensorflow_run(logdir: str) -> bool:
    """A run written by real TensorFlow into logdir (skipped without the oracle venv)."""
    if not os.environ.get("WEBFLOW_TF_PYTHON"):
        return False
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "summary"))
    from summary_oracle import run_oracle

    run_oracle(f"LOGDIR = {logdir!r}\n" + TF_RUN)
    return True


def test_tensorboard_panel_in_jupyterlab(tmp_path: pytest.TempPathFactory) -> None:
    require_jupyterlab()
    start = time.perf_counter()
    os.makedirs(ARTIFACTS, exist_ok=True)
    root = str(tmp_path / "notebooks")
    os.makedirs(root)
    with_tensorflow = _tensorflow_run(os.path.join(root, "logs", "tensorflow"))
    write_notebook(root, "board.ipynb", [WRITE, LIVE])
    timings = {"tensorflow run": time.perf_counter() - start}
    with lab_page(root, tmp_path) as (url, page, log):
        page.goto(url + "/lab/tree/board.ipynb", timeout=180_000)
        notebook = NotebookUI(page)
        notebook.wait_idle()
        timings["lab up"] = time.perf_counter() - start

        # --- 1. %tensorboard draws the curves ----------------------------------------------------------------
        notebook.run(0)
        notebook.wait_done(0)
        out = notebook.output(0)
        out.locator(".wf-tensorboard .wf-tb-smoothed").first.wait_for(timeout=60_000)
        timings["%tensorboard drawn"] = time.perf_counter() - start
        lines = {(tag, run): (points, last_step, drawn) for tag, run, points, last_step, drawn in out.evaluate(LINES)}
        runs = ["eval", "tensorflow", "train"] if with_tensorflow else ["eval", "train"]
        assert out.locator(".wf-tensorboard").get_attribute("data-runs") == str(len(runs))
        for run in ("train", "eval"):
            assert lines[("loss", run)] == (8, 7, 8) and lines[(XSS, run)] == (8, 7, 8)
        if with_tensorflow:
            assert lines[("loss", "tensorflow")] == (6, 10, 6)  # TensorFlow's points: steps 0, 2, ..., 10
        assert sorted({run for _, run in lines}) == runs
        # --- 2. the payload tag is text ---------------------------------------------------------------------
        headings = out.locator(".wf-tb-scalar h4").all_inner_texts()
        assert XSS in headings and "loss" in headings
        assert out.locator("img").count() == 0 and page.evaluate("() => window.__pwned") is None
        out.scroll_into_view_if_needed()
        notebook.cell(0).screenshot(path=os.path.join(ARTIFACTS, "tensorboard_magic.png"))

        # --- 3. live: the same output updated while the loop writes ------------------------------------------
        notebook.run(1)
        out = notebook.output(1)
        out.locator(".wf-tensorboard[data-live='true']").wait_for(timeout=60_000)
        out.evaluate("out => { out.querySelector('.wf-tensorboard').__wfTag = 'kept'; }")
        notebook.wait_done(1)
        out.locator(".wf-tensorboard[data-live='false']").wait_for(timeout=30_000)
        line = out.locator(".wf-tb-smoothed[data-tag='loss'][data-run='run']")
        assert line.get_attribute("data-points") == str(LIVE_STEPS)
        assert out.evaluate("out => out.querySelector('.wf-tensorboard').__wfTag") == "kept"  # updated in place
        notebook.cell(1).screenshot(path=os.path.join(ARTIFACTS, "tensorboard_live.png"))
        timings["live done"] = time.perf_counter() - start
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
    print("timings: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items()))
    print("kernel imports webflow from", REPO)
