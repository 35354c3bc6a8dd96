"""Issue 31 in the JupyterLite site (the Pyodide kernel: no NumPy): after `%load_ext webflow.lab`, a shape error
shows ONE panel whose first line is `Cell In[3], line 3`, no engine frame until the toggle, the operands marked on
their columns, the failing op highlighted; the Deep MNIST training graph (~370 ops) and an LSTM language model
unrolled over 5 steps (~1,400 ops) are drawn as <= 40 boxes with labels >= 11 px, and a plain wheel over a graph
scrolls the notebook, not the graph.

The built site (site/_build/lite, `make site`) is served with the current sources laid over it by URL mounts, as
test_tensorboard_panel_in_jupyterlite.py lays them (its `_overlay`: this checkout's wheel, the built extension, the
notebook). The screenshot goes to tests/lab/artifacts/issue31/.
"""

from __future__ import annotations

import os
import sys
import time

from conftest import require_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
for folder in (HERE, os.path.join(TESTS, "lab"), os.path.join(TESTS, "pyodide")):
    sys.path.insert(0, folder)
import chromium  # noqa: E402
from lab_server import BUILT  # noqa: E402
from notebook_ui import NotebookUI  # noqa: E402
from static_server import serve  # noqa: E402
from test_error_panel_in_jupyterlab import DEEP_MNIST, SMALLEST_LABEL  # noqa: E402
from test_tensorboard_panel_in_jupyterlite import SITE, _overlay  # noqa: E402
from wheels import WheelUnavailable, build_webflow_wheel  # noqa: E402

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "issue31")
CELLS = ["import webflow.lab\nimport webflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
         "%load_ext webflow.lab\n",
         "w = tf.constant([[1.0, 2.0], [3.0, 4.0]])\nprint('built w')\n"
         "z = tf.matmul(tf.constant([[1.0, 2.0, 3.0]]), w)\n",
         DEEP_MNIST,
         # the lessons' LSTM language model unrolled over 5 steps (static_rnn, 2 layers, clipped Adam): ~1,400 ops
         """tf.reset_default_graph()
vocab, hidden, steps = 65, 128, 5
ids = tf.placeholder(tf.int32, [None, steps]); targets = tf.placeholder(tf.int32, [None, steps])
inputs = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab, hidden]), ids)
cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(2)])
outputs, state = tf.nn.static_rnn(cells, tf.unstack(inputs, axis=1), dtype=tf.float32)
logits = tf.layers.dense(tf.reshape(tf.stack(outputs, axis=1), [-1, hidden]), vocab)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]), logits=logits))
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tf.trainable_variables()), 5.0)
train = tf.train.AdamOptimizer(0.002).apply_gradients(zip(grads, tf.trainable_variables()))
tf.get_default_graph()
"""]
SCROLL_TOP = """out => {  // the notebook's scrolling element: the nearest scrollable ancestor of the graph
  let el = out.querySelector('.wf-graph-svg').parentElement;
  while (el && !(el.scrollHeight > el.clientHeight && /(auto|scroll)/.test(getComputedStyle(el).overflowY))) {
    el = el.parentElement;
  }
  return el ? el.scrollTop : -1;
}"""
MARK_COLUMNS = """out => {
  const pre = out.querySelector('.wf-error-code');
  const range = document.createRange();
  range.setStart(pre.firstChild, 0); range.setEnd(pre.firstChild, 1);
  const first = range.getBoundingClientRect();
  return [...pre.querySelectorAll('mark')].map((m) => (m.getBoundingClientRect().left - first.left) / first.width);
}"""


def test_one_error_panel_in_jupyterlite(tmp_path) -> None:
    if not os.path.exists(os.path.join(SITE, "lab", "index.html")):
        require_or_skip(f"JupyterLite site not built at {SITE}: run `make site`")
    reason = chromium.unavailable_reason()
    if reason:
        require_or_skip(reason)
    if not os.path.exists(os.path.join(BUILT, "static", "style.js")):
        require_or_skip("webflow/lab/labextension is not built (make labext)")
    start = time.perf_counter()
    try:
        wheel = build_webflow_wheel(str(tmp_path / "wheel"))
    except WheelUnavailable as error:
        require_or_skip(f"no webflow wheel: {error}")
    mounts = _overlay(str(tmp_path / "overlay"), CELLS, wheel)
    os.makedirs(ARTIFACTS, exist_ok=True)
    with serve(mounts) as origin, \
            chromium.chromium_page(origin, viewport={"width": 1400, "height": 1000}) as (page, log):
        try:
            page.goto(origin + "/lab/index.html?path=board.ipynb", timeout=180_000)
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
        assert out.locator(".wf-error-panel").count() == 1
        assert "Traceback" not in out.inner_text() and "registry.py" not in out.inner_text()
        assert out.locator(".wf-error-body > *").first.inner_text() == "Cell In[3], line 3"
        assert out.locator(".wf-engine-frame:visible").count() == 0
        assert out.locator('[data-error="true"]').count() == 1
        code = CELLS[2].splitlines()[2]
        columns = out.evaluate(MARK_COLUMNS)
        expected = [code.index("tf.constant"), code.index("w)")]
        assert len(columns) == 2 and all(abs(c - e) < 0.25 for c, e in zip(columns, expected)), (columns, expected)
        out.locator(".wf-error-panel").screenshot(path=os.path.join(ARTIFACTS, "jupyterlite_error_panel.png"))
        out.locator(".wf-engine-toggle").click()
        assert out.locator(".wf-engine-frame:visible").count() >= 3

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
        box = graph.locator(".wf-graph-svg").first.bounding_box()
        transform = graph.locator(".wf-viewport").first.get_attribute("transform")
        before = graph.evaluate(SCROLL_TOP)
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(60, box["height"] / 2))
        page.mouse.wheel(0, 400 if before <= 0 else -400)
        page.wait_for_timeout(400)
        after = graph.evaluate(SCROLL_TOP)
        assert before >= 0 and after != before, (before, after)  # the notebook scrolled
        assert graph.locator(".wf-viewport").first.get_attribute("transform") == transform  # the graph did not zoom
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
        missing = [line for line in log.console if "404" in line]
    (mnist_ops, mnist_boxes, mnist_label), (lstm_ops, lstm_boxes, lstm_label) = drawn["deep_mnist"], drawn["lstm"]
    print(f"\njupyterlite: Deep MNIST {mnist_ops} ops as {mnist_boxes} boxes, smallest label {mnist_label:.1f} px; "
          f"LSTM {lstm_ops} ops as {lstm_boxes} boxes, smallest label {lstm_label:.1f} px; "
          f"{time.perf_counter() - start:.1f} s; console lines naming a 404: {missing[:5]}")
    assert mnist_ops >= 300 and mnist_boxes <= 40 and mnist_label >= 11, drawn
    assert lstm_ops >= 1000 and lstm_boxes <= 40 and lstm_label >= 11, drawn
    assert not missing, missing
