"""Issue 31 in the JupyterLite site (the Pyodide kernel: no NumPy): after `%load_ext webflow.lab`, a shape error
shows ONE panel whose first line is `Cell In[3], line 3`, no engine frame until the toggle, the operands marked on
their columns, the failing op highlighted; the Deep MNIST training graph (~370 ops) and an LSTM language model
unrolled over 5 steps (~1,400 ops) are drawn as <= 40 boxes with labels >= 11 px, and a plain wheel over a graph
scrolls the notebook, not the graph.

The built site (site/_build/lite, `make site`) is served with the current sources laid over it by URL mounts, as
test_tensorboard_panel_in_jupyterlite.py lays them (launch.lite_overlay: this checkout's wheel, the built extension, the
notebook). The screenshot goes to tests/lab/artifacts/issue31/.
"""

from __future__ import annotations

import os
import time

from launch import LITE_NOTEBOOK, TESTS, lite_overlay, lite_page, require_lite_site
from notebook_ui import NotebookUI
from test_error_panel_in_jupyterlab import (
    DEEP_MNIST,
    FAILING,
    SMALLEST_LABEL,
    check_error_panel,
    check_wheel_scrolls_the_notebook,
    lstm_program,
)

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "issue31")
CELLS = ["import webflow.lab\nimport webflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
         "%load_ext webflow.lab\n",
         FAILING,
         DEEP_MNIST,
         lstm_program(5)]   # ~1,400 ops


def test_one_error_panel_in_jupyterlite(tmp_path) -> None:
    start = time.perf_counter()
    wheel = require_lite_site(tmp_path / "wheel")
    mounts = lite_overlay(str(tmp_path / "overlay"), CELLS, wheel)
    os.makedirs(ARTIFACTS, exist_ok=True)
    with lite_page(mounts) as (origin, page, log):
        try:
            page.goto(origin + LITE_NOTEBOOK, timeout=180_000)
            notebook = NotebookUI(page)
            notebook.wait_idle()
            for index in range(3):
                notebook.run(index)
                notebook.wait_done(index)
            out = notebook.output(2)
            out.locator(".wf-error-panel").first.wait_for(timeout=60_000)
        except Exception:
            page.screenshot(path=os.path.join(ARTIFACTS, "jupyterlite_failure.png"))
            print("\n".join(log.console[-40:] + log.errors[-20:]))
            raise
        check_error_panel(out, "Cell In[3]", os.path.join(ARTIFACTS, "jupyterlite_error_panel.png"))

        drawn = {}
        for index, name in ((3, "deep_mnist"), (4, "lstm")):
            notebook.run(index)
            notebook.wait_done(index)
            graph = notebook.output(index)
            graph.locator(".wf-graph-svg").first.wait_for(timeout=120_000)
            title = graph.locator(".wf-title").first.inner_text()
            drawn[name] = (int(title.split("(")[1].split()[0]), graph.locator("g.wf-node, g.wf-group").count(),
                           graph.evaluate(SMALLEST_LABEL))
            graph.scroll_into_view_if_needed()
            notebook.cell(index).screenshot(path=os.path.join(ARTIFACTS, f"jupyterlite_{name}_graph.png"))
        graph = notebook.output(3)
        graph.scroll_into_view_if_needed()
        check_wheel_scrolls_the_notebook(page, graph)
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
        missing = [line for line in log.console if "404" in line]
    (mnist_ops, mnist_boxes, mnist_label), (lstm_ops, lstm_boxes, lstm_label) = drawn["deep_mnist"], drawn["lstm"]
    print(f"\njupyterlite: Deep MNIST {mnist_ops} ops as {mnist_boxes} boxes, smallest label {mnist_label:.1f} px; "
          f"LSTM {lstm_ops} ops as {lstm_boxes} boxes, smallest label {lstm_label:.1f} px; "
          f"{time.perf_counter() - start:.1f} s; console lines naming a 404: {missing[:5]}")
    assert mnist_ops >= 300 and mnist_boxes <= 40 and mnist_label >= 11, drawn
    assert lstm_ops >= 1000 and lstm_boxes <= 40 and lstm_label >= 11, drawn
    assert not missing, missing
