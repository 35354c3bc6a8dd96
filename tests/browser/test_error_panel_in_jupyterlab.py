"""Issue 31 in a REAL JupyterLab with a live kernel: after `%load_ext webflow.lab`, a shape error shows ONE panel
whose first line is `Cell In[2], line 3` (IPython's name for the cell), no engine frame until the toggle, operand
marks on the operands' columns, the failing op highlighted; a ~370-op training graph (the Deep MNIST tutorial's)
and a ~4,700-op one (an unrolled 2-layer LSTM language model) are drawn as <= 40 boxes with labels >= 11 px, and a
plain wheel over a graph scrolls the notebook.
Screenshots go to $WEBFLOW_ARTIFACTS or tests/lab/artifacts/issue31/.
"""

from __future__ import annotations

import os
import time

import pytest
from launch import TESTS, lab_page, require_jupyterlab, write_notebook
from notebook_ui import NotebookUI

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(TESTS, "lab", "artifacts"), "issue31")
SETUP = "%load_ext webflow.lab\nimport webflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
FAILING = ("w = tf.constant([[1.0, 2.0], [3.0, 4.0]])\nprint('built w')\n"
           "z = tf.matmul(tf.constant([[1.0, 2.0, 3.0]]), w)\n")
DEEP_MNIST = """tf.reset_default_graph()
x = tf.placeholder(tf.float32, [None, 784]); y_ = tf.placeholder(tf.float32, [None, 10])
def weight(shape): return tf.Variable(tf.truncated_normal(shape, stddev=0.1))
def bias(shape): return tf.Variable(tf.constant(0.1, shape=shape))
def conv(x, W): return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding='SAME')
def pool(x): return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
h1 = pool(tf.nn.relu(conv(tf.reshape(x, [-1, 28, 28, 1]), weight([5, 5, 1, 32])) + bias([32])))
h2 = pool(tf.nn.relu(conv(h1, weight([5, 5, 32, 64])) + bias([64])))
f = tf.nn.relu(tf.matmul(tf.reshape(h2, [-1, 7 * 7 * 64]), weight([7 * 7 * 64, 1024])) + bias([1024]))
keep = tf.placeholder(tf.float32)
y = tf.matmul(tf.nn.dropout(f, keep), weight([1024, 10])) + bias([10])
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=y))
train = tf.train.AdamOptimizer(1e-4).minimize(loss)
tf.get_default_graph()
"""
def lstm_program(steps: int) -> str:
    """The lessons' LSTM language model unrolled over `steps` (static_rnn, 2 layers, clipped Adam): 20 steps make
    ~4,700 ops, 5 steps ~1,400."""
    return f"""tf.reset_default_graph()
vocab, hidden, steps = 65, 128, {steps}
ids = tf.placeholder(tf.int32, [None, steps]); targets = tf.placeholder(tf.int32, [None, steps])
inputs = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab, hidden]), ids)
cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(2)])
outputs, state = tf.nn.static_rnn(cells, tf.unstack(inputs, axis=1), dtype=tf.float32)
logits = tf.layers.dense(tf.reshape(tf.stack(outputs, axis=1), [-1, hidden]), vocab)
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]), logits=logits))
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tf.trainable_variables()), 5.0)
train = tf.train.AdamOptimizer(0.002).apply_gradients(zip(grads, tf.trainable_variables()))
tf.get_default_graph()
"""


LSTM = lstm_program(20)   # ~4,700 ops
MARK_COLUMNS = """out => {
  const pre = out.querySelector('.wf-error-code');
  const range = document.createRange();
  range.setStart(pre.firstChild, 0); range.setEnd(pre.firstChild, 1);
  const first = range.getBoundingClientRect();
  return [...pre.querySelectorAll('mark')].map((m) => (m.getBoundingClientRect().left - first.left) / first.width);
}"""
SMALLEST_LABEL = """out => Math.min(...[...out.querySelectorAll(
  '.wf-label, .wf-sublabel, .wf-frame-label, .wf-edge-label')]
  .filter((t) => t.textContent && t.getBoundingClientRect().width > 0)
  .map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
SCROLL_TOP = """out => {  // the notebook's scrolling element: the nearest scrollable ancestor of the graph
  let el = out.querySelector('.wf-graph-svg').parentElement;
  while (el && !(el.scrollHeight > el.clientHeight && /(auto|scroll)/.test(getComputedStyle(el).overflowY))) {
    el = el.parentElement;
  }
  return el ? el.scrollTop : -1;
}"""


def check_error_panel(out, cell: str, screenshot: str) -> None:
    """The output of FAILING run as `cell` ("Cell In[2]"): one error panel and no IPython traceback beside it,
    the two operands marked in the failing line, the engine's frames hidden until the toggle shows them."""
    assert out.locator(".wf-error-panel").count() == 1
    assert "Traceback" not in out.inner_text() and "registry.py" not in out.inner_text()
    assert out.locator(".wf-error-body > *").first.inner_text() == f"{cell}, line 3"
    assert out.locator(".wf-engine-frame:visible").count() == 0
    assert out.locator('[data-error="true"]').count() == 1
    code = FAILING.splitlines()[2]
    columns = out.evaluate(MARK_COLUMNS)
    expected = [code.index("tf.constant"), code.index("w)")]
    assert len(columns) == 2 and all(abs(c - e) < 0.25 for c, e in zip(columns, expected)), (columns, expected)
    out.locator(".wf-error-panel").screenshot(path=screenshot)
    out.locator(".wf-engine-toggle").click()
    assert out.locator(".wf-engine-frame:visible").count() >= 3


def check_wheel_scrolls_the_notebook(page, graph) -> None:
    """A mouse wheel over a drawn graph scrolls the notebook around it; the graph's zoom stays as it was."""
    box = graph.locator(".wf-graph-svg").first.bounding_box()
    transform = graph.locator(".wf-viewport").first.get_attribute("transform")
    before = graph.evaluate(SCROLL_TOP)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(60, box["height"] / 2))
    page.mouse.wheel(0, 400 if before <= 0 else -400)
    page.wait_for_timeout(400)
    after = graph.evaluate(SCROLL_TOP)
    assert before >= 0 and after != before, (before, after)  # the notebook scrolled
    assert graph.locator(".wf-viewport").first.get_attribute("transform") == transform  # the graph did not zoom


def test_one_error_panel_and_a_readable_large_graph(tmp_path: pytest.TempPathFactory) -> None:
    require_jupyterlab()
    start = time.perf_counter()
    os.makedirs(ARTIFACTS, exist_ok=True)
    root = str(tmp_path / "notebooks")
    write_notebook(root, "errors.ipynb", [SETUP, FAILING, DEEP_MNIST, LSTM])
    with lab_page(root, tmp_path) as (url, page, log):
        page.goto(url + "/lab/tree/errors.ipynb", timeout=180_000)
        notebook = NotebookUI(page)
        try:
            notebook.wait_idle()
            for index in range(2):
                notebook.run(index)
                notebook.wait_done(index)
        except Exception:
            page.screenshot(path=os.path.join(ARTIFACTS, "jupyterlab_failure.png"))
            print("\n".join(log.console[-40:] + log.errors[-20:]))
            raise
        out = notebook.output(1)
        out.locator(".wf-error-panel").first.wait_for(timeout=60_000)
        check_error_panel(out, "Cell In[2]", os.path.join(ARTIFACTS, "jupyterlab_error_panel.png"))

        notebook.run(2)
        notebook.wait_done(2)
        graph = notebook.output(2)
        graph.locator(".wf-graph-svg").first.wait_for(timeout=60_000)
        drawn = graph.locator("g.wf-node, g.wf-group").count()
        smallest = graph.evaluate(SMALLEST_LABEL)
        assert smallest >= 11, smallest
        graph.scroll_into_view_if_needed()
        notebook.cell(2).screenshot(path=os.path.join(ARTIFACTS, "jupyterlab_deep_mnist_graph.png"))
        check_wheel_scrolls_the_notebook(page, graph)
        assert drawn <= 40, drawn

        notebook.run(3)
        notebook.wait_done(3)
        lstm = notebook.output(3)
        lstm.locator(".wf-graph-svg").first.wait_for(timeout=120_000)
        lstm_drawn = lstm.locator("g.wf-node, g.wf-group").count()
        lstm_smallest = lstm.evaluate(SMALLEST_LABEL)
        lstm.scroll_into_view_if_needed()
        notebook.cell(3).screenshot(path=os.path.join(ARTIFACTS, "jupyterlab_lstm_graph.png"))
        title = lstm.locator(".wf-title").first.inner_text()
        assert int(title.split("(")[1].split()[0]) > 1000, title
        assert lstm_drawn <= 40 and lstm_smallest >= 11, (lstm_drawn, lstm_smallest)
        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
    print(f"\njupyterlab: Deep MNIST graph drawn with {drawn} boxes (ops + collapsed scopes), smallest label "
          f"{smallest:.1f} px; LSTM ({title}) {lstm_drawn} boxes, smallest label {lstm_smallest:.1f} px; "
          f"{time.perf_counter() - start:.1f} s")
