"""The lessons' JupyterLite site in Chromium, offline: JupyterLab boots, the Pyodide kernel starts, the lessons run.

Serves the built site (site/_build/lite, from `make site` or site/build_lite.py) on 127.0.0.1, opens
each lesson in JupyterLab, waits for the kernel's Idle status (typing earlier loses keys, PLATFORM.md), runs
every cell (Run → Run All Cells) and checks, in the page, that webflow computed what the lesson derives by
hand (`22.0` from `sess.run(f)`, the `[?, 2]` placeholder rows) and that no cell raised — so every
`assert` of the lesson held inside Pyodide, without NumPy, with `import webflow` loaded from the site's
own Pyodide lock. Every request the browser makes is recorded (tests/browser/chromium.py); any that leaves the origin
fails the test (and is aborted, so a leak cannot hang it).
Prints the time from page load to the first cell output. Skips (fails under WEBFLOW_REQUIRE_BROWSER=1)
without Chromium, Playwright or the built site.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

import pytest
from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from launch import require_chromium, served_page  # noqa: E402

SITE = os.environ.get("WEBFLOW_LITE_SITE", os.path.join(HERE, "..", "..", "site", "_build", "lite"))
BOOT_TIMEOUT_MS = 240_000  # the kernel loads ~18 MB of Pyodide, ipython and jedi; slow on a busy machine
RUN_TIMEOUT_MS = 300_000
# What each lesson prints that only a correct run prints (values derived by hand in its prose).
EXPECTED = {
    "01_session_run.ipynb": ["add_2:0 is output 0 of the operation add_2 of type AddV2", "22.0",
                             "[[1.0, 4.0], [3.0, 8.0], [5.0, 12.0]]",
                             "You must feed a value for placeholder tensor 'x'"],  # InvalidArgumentError, caught
    "02_variables_and_gradients.ipynb": ["graph:   [-27.5, -9.5]", "by hand: [-27.5, -9.5]", "-27.5 -9.5"],
    "03_automatic_differentiation.ipynb": ["engine:  [47.738391, 35.70522, 27.63719]", "gradients/AddN",
                                           "∂²f/∂x² = 0.787382", "straight-through gradient: [2.0, 2.0, 2.0]",
                                           "custom rule: [0.5, 0.88079", "Exercise 3.3: not started"],
    "04_mnist.ipynb": ["labels of the first ten images: [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]", "ln 10: 2.302585",
                       "MLP on 5,000 images", "tf.metrics: accuracy", "NumPy is not installed here",
                       "Exercise 4.3: not started"],
    "05_convolutions.ipynb": ["running in the browser (Pyodide)",
                              "the pixels under the filter at output (0, 0)): [1.0, 2.0, 0.0, 1.0]",
                              "'Conv2DBackpropFilter', 'Conv2DBackpropInput'", "equal: True",
                              "150 steps in", "label 7  prediction 7", "Exercise 5.3: not started"],
    "06_broadcasting_and_shape_errors.ipynb": ["[[11.0, 21.0], [12.0, 22.0], [13.0, 23.0]]",
                                               "run with 5 images: tf.shape(logits) = [5, 10]",
                                               "Matrix size-incompatible: In[0]: [1,783], In[1]: [784,10]",
                                               "Incompatible shapes: [3] vs. [2]", "C function: wf_gemm_f32",
                                               "Exercise 6.3: not started"],
    "07_input_pipelines.ipynb": ["[[0, 1, 4, 9], [16, 25, 36, 49], [64, 81]]",
                                 "838000 bytes on disk = 822000 bytes of records + 16 × 1000 of framing",
                                 "queues exhausted after 1000 records", "Exercise 7.3: not started"],
    "08_saving_and_tensorboard.ipynb": ["[('W', [784, 10]), ('b', [10]), ('global_step', [])]",
                                        "60 loss values, steps 1 to 60", "Exercise 8.3: not started"],
    "09_recurrent_networks.ipynb": ["BasicLSTMCell h: [0.28956, 0.18637, 0.03182, -0.09325, -0.18603]",
                                    "step 4: row 0 h[0] = +0.27095   row 1 h[0] = +0.00000",
                                    "from the passage in this cell", "Exercise 9.3: not started"],
    "10_high_level_apis.ipynb": ["Total params: 50890", "TF1 graph   scores of image 0", "image 0 predicted 7",
                                 "no NumPy here (the browser): ModelCheckpoint left out", "Exercise 10.3: not started"],
    "11_performance.ipynb": ["in the browser (Pyodide)", "forced wasm    ran on wasm",
                             "zeros: {'float32': 0, 'float16': 16, 'float16, loss × 2**15': 0}",
                             "float16 tensors need NumPy", "mixed_float16 computes in float16",
                             "Exercise 11.3: not started"],
    "12_beyond_one_machine.ipynb": ["the MatMul ran on: wasm", "after round 10: 0.", "their weighted average: 0.",
                                    "lines changed: [('import webflow.compat.v1 as tf', "
                                    "'import tensorflow.compat.v1 as tf')]",
                                    "TensorFlow is not available here", "Exercise 12.3: not started"],
}
# Pictures a lesson must show, counted by CSS selector: its plots (lessons/plots.py, SVG outputs) and webflow's
# TensorBoard panel (drawn by the labextension: its scalar-smoothing control).
SVG_OUTPUT = '.jp-OutputArea-output[data-mime-type="image/svg+xml"]'
TENSORBOARD_PANEL = ".jp-OutputArea-output .wf-tb-smoothing"
ERROR_PANEL = ".jp-OutputArea-output .wf-error-panel"  # an explanation (webflow.lab.explain) shown as a cell's value
GRAPH_VIEW = ".jp-OutputArea-output .wf-graph-svg"  # a Graph as a cell's value: the live graph view
# Lessons whose pictures are kept as screenshots (one PNG per picture, in order), in $WEBFLOW_ARTIFACTS or
# tests/lab/artifacts/, under issue28/.
SCREENSHOTS = {"03_automatic_differentiation.ipynb": [SVG_OUTPUT, GRAPH_VIEW], "04_mnist.ipynb": [SVG_OUTPUT],
               "05_convolutions.ipynb": [SVG_OUTPUT, GRAPH_VIEW],
               "11_performance.ipynb": [SVG_OUTPUT], "12_beyond_one_machine.ipynb": [SVG_OUTPUT]}
ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(HERE, "..", "lab", "artifacts"), "issue28")
PICTURES = {"03_automatic_differentiation.ipynb": {SVG_OUTPUT: 2, GRAPH_VIEW: 1},
            "04_mnist.ipynb": {SVG_OUTPUT: 8},
            "05_convolutions.ipynb": {SVG_OUTPUT: 8, GRAPH_VIEW: 2},  # the CNN's graph; lab.watch of its training
            "06_broadcasting_and_shape_errors.ipynb": {SVG_OUTPUT: 1, ERROR_PANEL: 1},
            "07_input_pipelines.ipynb": {SVG_OUTPUT: 2},
            "08_saving_and_tensorboard.ipynb": {SVG_OUTPUT: 2, TENSORBOARD_PANEL: 1},
            "09_recurrent_networks.ipynb": {SVG_OUTPUT: 1},
            "10_high_level_apis.ipynb": {SVG_OUTPUT: 1},
            "11_performance.ipynb": {SVG_OUTPUT: 5},  # without NumPy: no float16 training curves
            "12_beyond_one_machine.ipynb": {SVG_OUTPUT: 3}}
# After lesson 01 (which imported webflow): protobuf, installed with webflow from the site's Pyodide lock (webflow's
# entry depends on it: site/build_lite.py), then imported and used for a tf.train.Example. Run in the lesson's kernel
# through JupyterLab's API, one request each: the kernel loads lock packages named by a request's imports first,
# so the first request (no protobuf import) shows that `import webflow` brought protobuf in.
PROTOBUF_LESSON = "01_session_run.ipynb"
PROTOBUF_CODE = [
    "import importlib.metadata\nprint('installed', importlib.metadata.version('protobuf'))",
    "import google.protobuf\nfrom google.protobuf.internal import api_implementation\n"
    "import webflow.compat.v1 as tf\n"
    "ex = tf.train.Example(features=tf.train.Features(feature={'n': tf.train.Feature(\n"
    "    int64_list=tf.train.Int64List(value=[3]))}))\n"
    "print('runtime', google.protobuf.__version__, api_implementation.Type(), ex.SerializeToString().hex())"]
KERNEL_OUTPUT = """async (code) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    const future = kernel.requestExecute({ code, store_history: false });
    let text = "";
    future.onIOPub = (msg) => {
        if (msg.header.msg_type === "stream") text += msg.content.text;
        if (msg.header.msg_type === "error") text += `${msg.content.ename}: ${msg.content.evalue}`;
    };
    await future.done;
    return text;
}"""
# A traceback is rendered as stderr text (application/vnd.jupyter.stderr): any stderr output counts as a failure.
ERROR_OUTPUT = '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'
# Done when every code cell shows an execution count ([n]: not [*]: or [ ]:), or as soon as a cell shows an error.
LESSON_DONE = """(errorSelector) => {
    const notebook = document.querySelector('.jp-Notebook');
    if (notebook.querySelector(errorSelector) !== null) return true;
    const prompts = [...notebook.querySelectorAll('.jp-CodeCell .jp-InputPrompt')];
    return prompts.length > 0 && prompts.every(prompt => /\\[\\d+\\]/.test(prompt.innerText));
}"""


def _mounts(lesson: str, work: str) -> dict:
    """The site at "/"; for PROTOBUF_LESSON its jupyter-lite.json with `exposeAppInBrowser` (JupyterLab's own
    option: `window.jupyterapp`, through which the test talks to the kernel), served over the built one."""
    if lesson != PROTOBUF_LESSON:
        return {"/": SITE}
    with open(os.path.join(SITE, "jupyter-lite.json")) as file:
        config = json.load(file)
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
    path = os.path.join(work, "jupyter-lite.json")
    with open(path, "w") as file:
        json.dump(config, file)
    return {"/": SITE, "/jupyter-lite.json/": path}


@pytest.mark.parametrize("lesson", sorted(EXPECTED))
def test_lesson_runs_in_jupyterlite_offline(lesson: str, tmp_path) -> None:
    if not os.path.exists(os.path.join(SITE, "lab", "index.html")):
        require_or_skip(f"JupyterLite site not built at {SITE}: run `make site` (or python site/build_lite.py WHEEL)")
    require_chromium()

    with served_page(_mounts(lesson, str(tmp_path))) as (origin, page, log):
        try:
            started = time.perf_counter()
            page.goto(f"{origin}/lab/index.html?path={lesson}", timeout=BOOT_TIMEOUT_MS)
            page.wait_for_selector(".jp-Notebook .jp-CodeCell", timeout=BOOT_TIMEOUT_MS)
            opened = time.perf_counter() - started
            page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=BOOT_TIMEOUT_MS)
            idle = time.perf_counter() - started
            page.click(".jp-Notebook .jp-CodeCell .cm-content")  # focus the notebook
            page.click(".lm-MenuBar-itemLabel:text-is('Run')")
            page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
            page.wait_for_selector(".jp-OutputArea-output", timeout=RUN_TIMEOUT_MS)
            first_output = time.perf_counter() - started
            page.wait_for_function(LESSON_DONE, arg=ERROR_OUTPUT, timeout=RUN_TIMEOUT_MS)
            finished = time.perf_counter() - started
            text = page.inner_text(".jp-Notebook")
            errors = [element.inner_text()
                      for element in page.query_selector_all(ERROR_OUTPUT)]
            pictures = {selector: len(page.query_selector_all(selector)) for selector in PICTURES.get(lesson, {})}
            _screenshots(page, lesson)
            protobuf = ([page.evaluate(KERNEL_OUTPUT, code) for code in PROTOBUF_CODE]
                        if lesson == PROTOBUF_LESSON else [])
        except Exception:
            print("\n".join(log.console[-60:]))
            raise

    print(f"\nJupyterLite: notebook shown {opened:.1f} s, kernel idle {idle:.1f} s, first output "
          f"{first_output:.1f} s, {lesson} done {finished:.1f} s after page load; {len(log.urls)} requests")
    assert not log.foreign, f"requests left {origin}: {log.foreign}"
    assert not errors, f"a lesson cell raised in the browser: {errors}"
    for expected in EXPECTED[lesson]:
        assert expected in text, (expected, text[-3000:])
    assert pictures == PICTURES.get(lesson, {}), pictures
    if protobuf:
        print(f"kernel: {' / '.join(line.strip() for line in protobuf)}")
    if protobuf:  # one Example with n = [3]: features{feature{key "n" value{int64_list{value 3}}}}
        version = protobuf[0].split()[-1]
        assert protobuf[0] == f"installed {version}\n" and version.split(".")[0] == "7", protobuf
        assert protobuf[1] == f"runtime {version} python 0a0c0a0a0a016e12051a030a0103\n", protobuf


def _screenshots(page, lesson: str) -> None:
    """Each picture of the lesson (SCREENSHOTS) as a PNG: <lesson>_<kind>_<n>.png."""
    for selector in SCREENSHOTS.get(lesson, []):
        os.makedirs(ARTIFACTS, exist_ok=True)
        kind = "graph" if selector == GRAPH_VIEW else "picture"
        for number, element in enumerate(page.query_selector_all(selector), start=1):
            element.screenshot(path=os.path.join(ARTIFACTS, f"{lesson[:-6]}_{kind}_{number}.png"))


def test_the_site_offers_webflow_to_piplite_offline() -> None:
    """`%pip install webflow` in the lite kernel resolves against the site's own piplite index (no PyPI)."""
    index = os.path.join(SITE, "pypi", "all.json")
    if not os.path.isfile(index):
        require_or_skip(f"no JupyterLite build at {SITE} (make site)")
    with open(index) as file:
        releases = json.load(file)["webflow"]["releases"]
    files = [entry for entries in releases.values() for entry in entries]
    assert files and all(entry["url"].startswith("./") for entry in files)  # same origin, relative
    for entry in files:  # the wheel named in the index is in the site, byte for byte what the index hashes
        path = os.path.join(SITE, "pypi", os.path.basename(entry["url"]))
        with open(path, "rb") as wheel:
            assert hashlib.sha256(wheel.read()).hexdigest() == entry["digests"]["sha256"]
