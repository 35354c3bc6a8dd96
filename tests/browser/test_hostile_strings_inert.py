"""Issue 29's security item: strings a notebook puts into webflow's views render as text, never as markup, in a REAL
JupyterLab and in the JupyterLite site. The payload (an <img onerror> and a <script>, each setting
window.__pwned) goes into a run-time error message (tf.check_numerics' message: the explained-error panel), a string
constant's value in the live graph view, and a dashboard's title and curve name. Pass: the payload's text is shown,
no <img src=x> or injected <script> exists anywhere in the page, and window.__pwned was never set.
"""

from __future__ import annotations

import pytest
from launch import (
    LITE_NOTEBOOK,
    lab_page,
    lite_overlay,
    lite_page,
    require_jupyterlab,
    require_lite_site,
    write_notebook,
)
from notebook_ui import NotebookUI

PAYLOAD = "<img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>"
CELLS = [
    f"import webflow.lab as lab\nimport webflow.compat.v1 as tf\ntf.disable_v2_behavior()\nP = {PAYLOAD!r}\n",
    # its own cell: Pyodide loads the webflow package when a cell imports it, before %load_ext can find it
    "%load_ext webflow.lab\n",
    # a run-time error whose message is the payload: the explained-error panel
    "x = tf.constant([1.0, float('nan')])\nchecked = tf.check_numerics(x, message=P)\n"
    "tf.Session().run(checked)\n",
    # a string constant holding the payload, drawn by the graph view
    "tf.reset_default_graph()\nc = tf.constant(P, name='text')\nd = tf.identity(c, name='shown')\n"
    "tf.get_default_graph()\n",
    # a dashboard titled with the payload, one curve named with it
    "board = lab.Dashboard(title=P)\nboard.log(0, **{P: 1.0})\nboard.log(1, **{P: 0.5})\nboard.close()\n",
]
INJECTED = """() => ({
  images: document.querySelectorAll("img[src='x']").length,
  scripts: [...document.querySelectorAll('script')].filter((s) => s.textContent.includes('__pwned')).length,
  pwned: window.__pwned === undefined ? null : window.__pwned,
})"""


def _run_and_check(page, log) -> None:
    notebook = NotebookUI(page)
    notebook.wait_idle()
    for index in range(len(CELLS)):
        notebook.run(index)
        notebook.wait_done(index)
    panel = notebook.output(2).locator(".wf-error-panel").first
    panel.wait_for(timeout=60_000)
    notebook.output(3).locator(".wf-graph-svg").first.wait_for(timeout=60_000)
    page.wait_for_timeout(1000)   # an onerror of a broken image would have fired by now
    try:
        assert PAYLOAD in panel.inner_text()                       # shown, as text
        assert "<img src=x onerror" in notebook.output(4).inner_text()
        assert page.evaluate(INJECTED) == {"images": 0, "scripts": 0, "pwned": None}
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
    except AssertionError:
        print("\n".join(log.console[-40:] + log.errors[-20:]))
        raise


def test_hostile_strings_are_text_in_jupyterlab(tmp_path: pytest.TempPathFactory) -> None:
    require_jupyterlab()
    root = str(tmp_path / "notebooks")
    write_notebook(root, "hostile.ipynb", CELLS)
    with lab_page(root, tmp_path) as (url, page, log):
        page.goto(url + "/lab/tree/hostile.ipynb", timeout=180_000)
        _run_and_check(page, log)


def test_hostile_strings_are_text_in_jupyterlite(tmp_path: pytest.TempPathFactory) -> None:
    wheel = require_lite_site(tmp_path / "wheel")
    with lite_page(lite_overlay(str(tmp_path / "overlay"), CELLS, wheel)) as (origin, page, log):
        page.goto(origin + LITE_NOTEBOOK, timeout=180_000)
        _run_and_check(page, log)
