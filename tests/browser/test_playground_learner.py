"""Issue 31 in the graph playground (headless Chromium): one error panel in the learner's terms, readable graphs,
a wheel that scrolls the page, and real times.

The built site (site/_build, `make site`) is served with the current sources laid over it by URL mounts (the
build is not modified): site/playground/ itself, the renderer bundle labextension/dist/webflow-graph.{js,css}
(`npm run build:standalone`, or `make labext`) and webflow's wheel built now. Screenshots of the error panel and of
the default graph go to tests/lab/artifacts/issue31/ (WEBFLOW_ARTIFACTS overrides the folder).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
for folder in (HERE, os.path.join(TESTS, "pyodide")):
    sys.path.insert(0, folder)
from launch import require_chromium, served_page  # noqa: E402
from wheels import WheelUnavailable, build_webflow_wheel  # noqa: E402

REPO = os.path.dirname(TESTS)
BUILD = os.path.join(REPO, "site", "_build")
BUNDLE = os.path.join(REPO, "labextension", "dist")
ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "issue31")
READY_TIMEOUT_MS = 240_000
RUN_TIMEOUT_MS = 120_000

# a build-time MatMul error whose operands are long expressions (line 5 is the learner's line)
MATMUL_ERROR = """import webflow.compat.v1 as tf
tf.disable_v2_behavior()
w = tf.constant([[1.0, 2.0], [3.0, 4.0]])
print("built w")
z = tf.matmul(tf.constant([[1.0, 2.0, 3.0]]), w)
"""


@pytest.fixture(scope="module")
def page():
    require_chromium()
    needed = [os.path.join(BUILD, "pyodide", "pyodide.mjs"), os.path.join(BUNDLE, "webflow-graph.js")]
    missing = [path for path in needed if not os.path.exists(path)]
    if missing:
        require_or_skip(f"not built: {missing[0]} (`make labext` and `make site`)")
    with tempfile.TemporaryDirectory(prefix="wf-issue31-") as work:
        wheels = os.path.join(work, "wheels")
        os.makedirs(wheels)
        try:
            wheel = build_webflow_wheel(wheels)
        except WheelUnavailable as error:
            require_or_skip(str(error))
        with open(os.path.join(BUILD, "wheels", "index.json")) as f:
            index = json.load(f)
        index["webflow"] = os.path.basename(wheel)
        with open(os.path.join(wheels, "index.json"), "w") as f:
            json.dump(index, f)
        for name in index.values():  # the other wheels (protobuf) as built
            if not os.path.exists(os.path.join(wheels, name)):
                os.symlink(os.path.join(BUILD, "wheels", name), os.path.join(wheels, name))
        mounts = {"/": BUILD, "/playground/": os.path.join(REPO, "site", "playground"), "/wheels/": wheels,
                  "/playground/webflow-graph.js/": os.path.join(BUNDLE, "webflow-graph.js"),
                  "/playground/webflow-graph.css/": os.path.join(BUNDLE, "webflow-graph.css")}
        with served_page(mounts) as (origin, browser_page, log):
            browser_page.set_viewport_size({"width": 1280, "height": 800})
            browser_page.goto(origin + "/playground/index.html")
            browser_page.wait_for_function("['ready', 'error'].includes(document.body.dataset.state)",
                                           timeout=READY_TIMEOUT_MS)
            assert browser_page.locator("body").get_attribute("data-state") == "ready", \
                browser_page.locator("#status").text_content()
            yield browser_page, log


def _run(page, source: str) -> None:
    page.fill("#source", source)
    page.evaluate("window.playground.last = null")  # playground.js sets it again when the result arrives
    page.click("#run")
    page.wait_for_function("window.playground.last && ['done', 'error'].includes(document.body.dataset.state)",
                           timeout=RUN_TIMEOUT_MS)


def _screenshot(page, selector: str, name: str) -> None:
    os.makedirs(ARTIFACTS, exist_ok=True)
    page.locator(selector).first.screenshot(path=os.path.join(ARTIFACTS, name))


def test_one_error_panel_with_the_learners_line_first(page) -> None:
    page, _ = page
    _run(page, MATMUL_ERROR)
    assert page.locator("body").get_attribute("data-state") == "error"
    panel = page.locator("#graph .wf-error-panel")
    assert panel.count() == 1 and panel.is_visible()
    first = panel.locator(".wf-error-body > *").first
    assert re.fullmatch(r'File ".*program\.py", line 5', first.text_content()), first.text_content()
    assert page.locator("#graph .wf-engine-frame:visible").count() == 0  # folded until the toggle
    assert page.locator("#graph .wf-trace-frames:visible .wf-trace-frame").count() == 1
    explanation = panel.locator(".wf-explanation")
    assert explanation.count() == 1
    assert "tf.constant" not in explanation.text_content()
    assert "a has 3 columns but w has 2 rows" in explanation.text_content()
    assert page.locator('#graph [data-error="true"]').count() == 1  # the failing op is highlighted
    # the marks sit on the operands' columns of a monospace line: x offset / character width = column
    columns = page.evaluate("""() => {
        const pre = document.querySelector('#graph .wf-error-code');
        const range = document.createRange();
        const text = pre.firstChild;
        range.setStart(text, 0); range.setEnd(text, 1);
        const first = range.getBoundingClientRect();
        return [...pre.querySelectorAll('mark')].map((m) =>
            (m.getBoundingClientRect().left - first.left) / first.width);
    }""")
    code = MATMUL_ERROR.splitlines()[4]
    expected = [code.index("tf.constant"), code.index("w)")]
    assert all(abs(c - e) < 0.25 for c, e in zip(columns, expected)) and len(columns) == 2, (columns, expected)
    _screenshot(page, "#graph .wf-error-panel", "playground_error_panel.png")
    page.locator("#graph .wf-engine-toggle").click()
    assert page.locator("#graph .wf-engine-frame:visible").count() >= 1


def _op_count_in_cpython(source: str) -> int:
    """The number of ops the example's graph holds when it runs here, in CPython (its prints swallowed)."""
    import contextlib
    import io

    scope: dict = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(source, scope)
    return len(scope["tf"].get_default_graph().get_operations())


def test_default_graph_is_readable_and_the_wheel_scrolls_the_page(page) -> None:
    page, _ = page
    source = open(os.path.join(REPO, "site", "playground", "examples", "linear_regression.py")).read()
    _run(page, source)
    assert page.locator("body").get_attribute("data-state") == "done"
    visible = page.locator("#graph g.wf-node, #graph g.wf-group").count()
    assert visible <= 40, visible
    # the graph (65 ops, as TensorFlow 2.21 builds the same program) is small enough to be shown whole but for the
    # gradient subgraph (one group)
    groups = page.eval_on_selector_all("#graph g.wf-collapsed", "els => els.map(e => e.getAttribute('data-scope'))")
    assert groups == ["gradients"], groups
    sublabel = page.locator('#graph g.wf-collapsed[data-scope="gradients"] .wf-sublabel').text_content()
    gradient_ops = int(sublabel.split()[0])
    assert page.locator("#graph g.wf-node").count() + gradient_ops == _op_count_in_cpython(source)
    smallest = page.evaluate("""() => Math.min(...[...document.querySelectorAll(
        '#graph .wf-label, #graph .wf-sublabel, #graph .wf-frame-label, #graph .wf-edge-label')]
        .filter((t) => t.textContent && t.getBoundingClientRect().width > 0)
        .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))""")
    assert smallest >= 11, smallest
    _screenshot(page, "#graph", "playground_linear_regression_graph.png")
    box = page.locator("#graph svg.wf-graph-svg").bounding_box()
    page.evaluate("window.scrollTo(0, 0)")
    before = page.locator("#graph .wf-viewport").get_attribute("transform")
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 100))
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(300)
    assert page.evaluate("window.scrollY") > 0  # the page scrolled
    assert page.locator("#graph .wf-viewport").get_attribute("transform") == before  # the graph did not zoom


def test_profile_times_are_real(page) -> None:
    page, _ = page
    source = open(os.path.join(REPO, "site", "playground", "examples", "linear_regression.py")).read()
    _run(page, source)
    total = page.locator("#graph .wf-profile-total").text_content()
    value = float(re.search(r"total ([\d.]+)", total).group(1))
    assert value > 0, total
    rows = page.locator("#graph .wf-profile-table tbody tr").count()
    assert 0 < rows <= 10  # the top ten at most; the timeline folded
    assert page.locator("#graph details.wf-timeline-box").get_attribute("open") is None
    print(f"\nplayground profile: {total}")
