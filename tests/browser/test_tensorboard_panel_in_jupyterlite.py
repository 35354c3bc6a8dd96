"""The notebook TensorBoard panel in JupyterLite: `%tensorboard --logdir DIR` run by the Pyodide kernel (no server, no
NumPy, no protobuf) draws the curves of runs written by webflow and (with WEBFLOW_TF_PYTHON) by TensorFlow 2.21.

The built lessons site (site/_build/lite, `make site`) is served on 127.0.0.1 with the current sources laid over it
by URL mounts (the built site is not modified): webflow's wheel built now (2-3 s) and a pyodide-lock.json naming it,
the built extension (webflow/lab/labextension) and its federated_extensions entry, and the notebook. The event files
travel inside the notebook's cell (base64), which writes them into Pyodide's file system before calling the magic.
"""

from __future__ import annotations

import base64
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TESTS, "summary"))
from launch import lite_overlay, lite_page, require_lite_site  # noqa: E402
from notebook_ui import NotebookUI  # noqa: E402
from summary_oracle import TF_PYTHON, run_oracle  # noqa: E402

import webflow as wf  # noqa: E402
from webflow.summary import summary_v2  # noqa: E402

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "tensorboard")
XSS = "<img src=x onerror=window.__pwned=1>"
TF_RUN = """
import numpy as np
import tensorflow as tf
writer = tf.summary.create_file_writer(LOGDIR)
with writer.as_default():
    for step in range(6):
        tf.summary.scalar("loss", 2.0 / (step + 1), step=step * 2)
    tf.summary.image("digit", np.linspace(0, 1, 28 * 28, dtype=np.float32).reshape(1, 28, 28, 1), step=10)
writer.close()
result = True
"""


def _logdir(root: str) -> dict[str, str]:
    """Event files of a webflow run (+ a TensorFlow run): {path under the logdir: base64 of the file}."""
    writer = wf.summary.create_file_writer(os.path.join(root, "webflow"))
    try:
        with writer.as_default():
            for step in range(8):
                wf.summary.scalar("loss", 1.5 / (step + 1), step=step)
                wf.summary.scalar(XSS, float(step), step=step)
    finally:
        writer.close()
        summary_v2.set_step(None)
    if TF_PYTHON:
        run_oracle(f"LOGDIR = {os.path.join(root, 'tensorflow')!r}\n" + TF_RUN)
    files = {}
    for folder, _, names in os.walk(root):
        for name in names:
            with open(os.path.join(folder, name), "rb") as f:
                files[os.path.relpath(os.path.join(folder, name), root)] = base64.b64encode(f.read()).decode()
    return files


def _cells(files: dict) -> list[str]:
    """Two cells: the kernel loads packages from a cell's imports only when the cell parses as Python (no magics)."""
    write = (f"import base64, os\nimport webflow.lab\nFILES = {files!r}\n"
             "for name, data in FILES.items():\n"
             "    path = os.path.join('/tmp/logs', name)\n"
             "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"
             "    with open(path, 'wb') as f:\n"
             "        f.write(base64.b64decode(data))\n")
    return [write, "%load_ext webflow.lab\n%tensorboard --logdir /tmp/logs\n"]


def test_tensorboard_magic_in_jupyterlite(tmp_path) -> None:
    start = time.perf_counter()
    wheel = require_lite_site(tmp_path / "wheel")
    mounts = lite_overlay(str(tmp_path / "overlay"), _cells(_logdir(str(tmp_path / "logs"))), wheel)
    timings = {"wheel + logdir": time.perf_counter() - start}
    os.makedirs(ARTIFACTS, exist_ok=True)
    with lite_page(mounts) as (origin, page, log):
        try:
            page.goto(origin + "/lab/index.html?path=board.ipynb", timeout=180_000)
            notebook = NotebookUI(page)
            notebook.wait_idle()
            timings["kernel idle"] = time.perf_counter() - start
            notebook.run(0)
            notebook.wait_done(0)
            notebook.run(1)
            out = notebook.output(1)
            out.locator(".wf-tensorboard .wf-tb-smoothed").first.wait_for(timeout=90_000)
            timings["panel drawn"] = time.perf_counter() - start
        except Exception:
            page.screenshot(path=os.path.join(ARTIFACTS, "jupyterlite_failure.png"))
            print("\n".join(log.console[-40:] + log.errors[-20:]))
            print("output:", "\n".join(t[-2000:] for t in page.locator(".jp-OutputArea").all_inner_texts()))
            raise
        lines = out.evaluate("""out => [...out.querySelectorAll('.wf-tb-smoothed')].map(l => [
          l.getAttribute('data-tag'), l.getAttribute('data-run'), Number(l.getAttribute('data-points')),
          Number(l.getAttribute('data-last-step'))])""")
        found = {(tag, run): (points, last) for tag, run, points, last in lines}
        assert found[("loss", "webflow")] == (8, 7) and found[(XSS, "webflow")] == (8, 7)
        if TF_PYTHON:
            assert found[("loss", "tensorflow")] == (6, 10)
            image = out.locator(".wf-tb-image-run[data-run='tensorflow'] img")
            assert image.get_attribute("data-step") == "10" and image.get_attribute("width") == "28"
            assert image.evaluate("img => img.complete && img.naturalWidth") == 28  # the PNG decoded
        assert XSS in out.locator(".wf-tb-scalar h4").all_inner_texts()
        assert out.locator("img[src='x']").count() == 0 and page.evaluate("() => window.__pwned") is None
        out.screenshot(path=os.path.join(ARTIFACTS, "jupyterlite_tensorboard.png"))
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
    print("timings: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items()))

