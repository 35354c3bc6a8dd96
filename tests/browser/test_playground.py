"""The "Graph playground" page in headless Chromium: TF1 programs run in the browser and their graphs are drawn.

What a visitor does, on the site `make site` built (site/_build, served from 127.0.0.1): the page boots
Pyodide and webflow in its worker (data-state loading -> ready), Run runs the default program (-> running
-> done), the graph appears, drawn by the JupyterLab extension's renderer; then an example with a
broadcasting error and one failing inside Session.run (-> error) show webflow.lab's explanation and the
failing op marked in the graph.

The oracle is a plain `python program.py` of the same example file in CPython (a subprocess: webflow with
NumPy, another backend than the browser's WebAssembly kernels on CArrays), which gives the printed output,
the graph's ops and their inputs, and the error. With WEBFLOW_TF_PYTHON set, real TensorFlow runs the same
files too, and the printed output, the ops outside the gradient subgraph and the error shapes must match it.
Every request is recorded: any that leaves the origin fails, as does any console or page error.
Needs `make site` first (the test does not build: it checks the build is not older than site/playground/).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import RECORD_STATES, fail_if_stale, require_chromium, served_page  # noqa: E402

REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SITE = os.path.join(REPO, "site")
PLAYGROUND = os.path.join(SITE, "playground")
EXAMPLES = os.path.join(PLAYGROUND, "examples")
BUILD = os.path.join(SITE, "_build")
READY_TIMEOUT_MS = 240_000     # Pyodide boot + wheel install + import, on a loaded 2-core machine
RUN_TIMEOUT_MS = 120_000
GRADIENT_SCOPE = re.compile(r"^gradients(_\d+)?(/|$)")

# Runs one example file as `python file.py` would (webflow.compat.v1 swapped for another TF1 module if
# asked), then reports what it printed, every op of the default graph with its data inputs, and the error.
ORACLE = r"""
import contextlib, importlib, io, json, sys
path, module = sys.argv[1], sys.argv[2]
source = open(path, encoding="utf-8").read().replace("import webflow.compat.v1 as tf", f"import {module} as tf")
tf = importlib.import_module(module)
printed, error = io.StringIO(), None
with contextlib.redirect_stdout(printed):
    try:
        exec(compile(source, path, "exec"), {"__name__": "__main__", "__file__": path})
    except Exception as exc:
        error = {"type": type(exc).__name__, "message": str(exc)}
ops = [{"name": op.name, "inputs": [t.op.name for t in op.inputs]} for op in tf.get_default_graph().get_operations()]
print("RESULT:" + json.dumps({"stdout": printed.getvalue(), "ops": ops, "error": error}))
"""


def run_oracle(example: str, python: str = sys.executable, module: str = "webflow.compat.v1") -> dict:
    env = {**os.environ, "PYTHONPATH": REPO, "TF_CPP_MIN_LOG_LEVEL": "3", "OPENBLAS_NUM_THREADS": "1"}
    process = subprocess.run([python, "-c", ORACLE, os.path.join(EXAMPLES, example), module],
                             capture_output=True, text=True, timeout=600, env=env, cwd=REPO)
    line = next((x for x in process.stdout.splitlines() if x.startswith("RESULT:")), None)
    assert line is not None, process.stderr[-3000:]
    return json.loads(line[len("RESULT:"):])


def tensorflow_oracle(example: str) -> dict | None:
    python = os.environ.get("WEBFLOW_TF_PYTHON")
    return run_oracle(example, python, "tensorflow.compat.v1") if python else None


def shapes_in(message: str) -> list[str]:
    """The operand shapes of an error message ("[2,3], [4]" or "In[0]: [1,2]"), written as Python prints them."""
    shapes = []
    for dims in re.findall(r"(?<!In)\[(\d+(?:,\d+)*)\]", message):   # not TF's operand labels In[0], In[1]
        values = tuple(int(d) for d in dims.split(","))
        shapes.append(str(values))
    return shapes


def _check_build() -> None:
    require_chromium()
    pages = ("index.html", "webflow-graph.js", "webflow-graph.css")
    needed = [os.path.join(BUILD, "playground", name) for name in pages]
    needed.append(os.path.join(BUILD, "pyodide", "pyodide.mjs"))
    missing = [path for path in needed if not os.path.exists(path)]
    if missing:
        require_or_skip(f"the site is not built: run `make labext` and `make site` (missing {missing[0]})")
    for folder, _, names in os.walk(PLAYGROUND):
        for name in names:
            source = os.path.join(folder, name)
            built = os.path.join(BUILD, "playground", os.path.relpath(source, PLAYGROUND))
            fail_if_stale(built, source, os.path.relpath(source, REPO))


@pytest.fixture(scope="module")
def playground():
    """The page, loaded and ready; yields (page, log, seconds from goto to ready)."""
    _check_build()
    with served_page(BUILD) as (origin, page, log):
        page.add_init_script(RECORD_STATES)
        started = time.perf_counter()
        page.goto(origin + "/playground/index.html")
        page.wait_for_function("['ready', 'error'].includes(document.body.dataset.state)", timeout=READY_TIMEOUT_MS)
        ready_seconds = time.perf_counter() - started
        assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
        yield page, log, ready_seconds


def _run(page, how: str = "click") -> float:
    """Runs what the editor holds (a click on Run, or Ctrl+Enter in the editor); returns the seconds it took."""
    before = page.evaluate("window.__states.length")
    started = time.perf_counter()
    if how == "click":
        page.click("#run")
    else:
        page.focus("#source")
        page.keyboard.press("Control+Enter")
    # The states recorded since: "running", then "done" or "error" (a short run is over before a poll sees it).
    page.wait_for_function("""(before) => {
        const states = window.__states.slice(before);
        return states[0] === 'running' && ['done', 'error'].includes(states[states.length - 1]);
    }""", arg=before, timeout=RUN_TIMEOUT_MS)
    return time.perf_counter() - started


def _choose_example(page, file: str) -> None:
    expected = open(os.path.join(EXAMPLES, file), encoding="utf-8").read()
    page.select_option("#example", file)
    page.wait_for_function("(text) => document.querySelector('#source').value === text", arg=expected,
                           timeout=10_000)


def test_default_program_runs_and_its_graph_is_drawn(playground) -> None:
    page, log, ready_seconds = playground
    oracle = run_oracle("linear_regression.py")
    expected_source = open(os.path.join(EXAMPLES, "linear_regression.py"), encoding="utf-8").read()
    assert page.input_value("#source") == expected_source   # the default program is the first example
    assert oracle["error"] is None and oracle["stdout"]

    seconds = _run(page)
    status = page.locator("#status").text_content()
    assert page.locator("body").get_attribute("data-state") == "done", status
    assert page.locator("#stdout").text_content() == oracle["stdout"]
    assert page.locator("#explanation").is_hidden()

    # The renderer's default view: every scope open except the gradient subgraph, drawn as one group.
    ops = [op["name"] for op in oracle["ops"]]
    outside = [name for name in ops if not GRADIENT_SCOPE.match(name)]
    gradient_ops = [name for name in ops if GRADIENT_SCOPE.match(name)]
    assert gradient_ops and {name.split("/")[0] for name in gradient_ops} == {"gradients"}
    drawn = page.eval_on_selector_all("#graph g.wf-node[data-op-name]",
                                      "els => els.map(e => e.getAttribute('data-op-name'))")
    assert sorted(drawn) == sorted(outside)
    group = page.locator('#graph g.wf-collapsed[data-scope="gradients"]')
    assert group.count() == 1
    assert group.locator(".wf-sublabel").text_content().split()[0] == str(len(gradient_ops))
    # Each data input between two drawn ops is an edge of the drawing.
    edges = set(map(tuple, page.eval_on_selector_all(
        "#graph g.wf-edge", "els => els.map(e => [e.getAttribute('data-source'), e.getAttribute('data-target')])")))
    for op in oracle["ops"]:
        for source in op["inputs"]:
            if op["name"] in outside and source in outside:
                assert (f"n:{source}", f"n:{op['name']}") in edges, (source, op["name"])
    # The last Session.run (W, b and the loss, no training step) was traced: the ops it ran are marked.
    executed = set(page.eval_on_selector_all("#graph g.wf-node[data-executed='true']",
                                             "els => els.map(e => e.getAttribute('data-op-name'))"))
    assert {"MatMul", "add", "Square", "Mean"} <= executed, executed
    assert not any("ApplyGradientDescent" in name for name in executed), executed

    reference = tensorflow_oracle("linear_regression.py")
    if reference is not None:   # real TensorFlow prints the same and names the same ops
        assert reference["stdout"] == oracle["stdout"]
        assert sorted(o["name"] for o in reference["ops"] if not GRADIENT_SCOPE.match(o["name"])) == sorted(outside)
    ready = page.evaluate("window.playground.ready")
    worker = {step: ready["timings"][f"{step}_ms"] / 1e3 for step in ("boot", "install", "import")}
    print(f"\nplayground: load -> ready {ready_seconds:.1f} s (worker: Pyodide {worker['boot']:.1f} s, "
          f"wheel {worker['install']:.1f} s, import {worker['import']:.1f} s; "
          f"kernels {ready['backend']}); default program Run -> drawn {seconds:.2f} s "
          f"({page.evaluate('window.playground.last.timings')}); {len(ops)} ops; status: {status}")


@pytest.mark.parametrize("example, phase", [("broadcasting_error.py", "could not be built"),
                                            ("run_time_error.py", "failed in Session.run")])
def test_errors_are_explained_and_marked(playground, example: str, phase: str) -> None:
    page, log, _ = playground
    oracle = run_oracle(example)
    assert oracle["error"] is not None
    failing_op = re.search(r"\{\{node (\S+?)\}\}", oracle["error"]["message"]).group(1)
    shapes = shapes_in(oracle["error"]["message"])
    assert len(shapes) == 2, oracle["error"]
    reference = tensorflow_oracle(example)
    if reference is not None:   # TensorFlow fails at the same op with the same operand shapes
        assert re.search(r"\{\{node (\S+?)\}\}", reference["error"]["message"]).group(1) == failing_op
        assert shapes_in(reference["error"]["message"])[-2:] == shapes

    _choose_example(page, example)
    seconds = _run(page, how="keyboard")
    assert page.locator("body").get_attribute("data-state") == "error", page.locator("#status").text_content()
    assert page.locator("#stdout").text_content() == oracle["stdout"]   # what it printed before failing
    explanation = page.locator("#explanation").text_content()
    assert page.locator("#explanation").is_visible()
    assert phase in explanation and f"'{failing_op}'" in explanation, explanation
    for shape in shapes:
        assert shape in explanation, (shape, explanation)
    assert oracle["error"]["type"] in page.locator("#stderr").text_content()
    marked = page.locator('#graph [data-error="true"]')
    assert marked.count() == 1
    assert marked.get_attribute("data-op-name") == failing_op
    # The graph built before the error is drawn too.
    drawn = set(page.eval_on_selector_all("#graph g.wf-node[data-op-name]",
                                          "els => els.map(e => e.getAttribute('data-op-name'))"))
    assert {op["name"] for op in oracle["ops"]} <= drawn | {failing_op}
    print(f"\nplayground: {example} Run -> explained {seconds:.2f} s")


def test_stop_ends_a_program_that_never_finishes(playground) -> None:
    page, log, _ = playground
    page.fill("#source", "import webflow.compat.v1 as tf\nprint('started')\nwhile True:\n    pass\n")
    page.click("#run")
    page.wait_for_function("document.body.dataset.state === 'running'", timeout=10_000)
    page.wait_for_timeout(500)
    assert page.locator("body").get_attribute("data-state") == "running"
    started = time.perf_counter()
    page.click("#stop")
    page.wait_for_function("['ready', 'error'].includes(document.body.dataset.state)", timeout=READY_TIMEOUT_MS)
    assert page.locator("body").get_attribute("data-state") == "ready", page.locator("#status").text_content()
    restart = time.perf_counter() - started
    _choose_example(page, "linear_regression.py")
    _run(page)
    assert page.locator("body").get_attribute("data-state") == "done"
    assert page.locator("#stdout").text_content() == run_oracle("linear_regression.py")["stdout"]
    print(f"\nplayground: Stop -> ready again {restart:.1f} s")


def test_page_stayed_on_its_origin_and_quiet(playground) -> None:
    page, log, _ = playground
    states = page.evaluate("window.__states")
    assert states[:4] == ["loading", "ready", "running", "done"], states
    assert not log.foreign, f"requests left the origin: {log.foreign}"
    assert not log.errors, log.errors
    assert any(url.endswith(".whl") for url in log.urls) and any("webflow-graph.js" in url for url in log.urls)
