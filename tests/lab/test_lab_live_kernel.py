"""webflow.lab in a REAL JupyterLab with a live kernel; cells run through the UI (click, Shift+Enter) like a learner.

Stages (one notebook, one kernel; a screenshot of each stage goes to $WEBFLOW_ARTIFACTS or tests/lab/artifacts/):
1. graph: `lab.show(graph)` draws one `data-op-name`/`data-op-type` element per op and one edge per producer →
   consumer pair, equal to the ops and edges the same code builds in a separate CPython process (the oracle).
2. live: a training loop under `lab.watch(sess)` updates the SAME output in place: the renderer's root and the
   MatMul node element keep their identity (JS properties set on them before the loop survive), the node turns
   executed and gets a timing label, the title counts the runs, and no output element is ever removed (no flicker).
3. profile: one Session.run with FULL_TRACE shown with its `profile` section: a table with one row per op the
   oracle's traced run executed.
4. dashboard: curves after Dashboard.log: one point per log call, the legend's last loss equals the oracle's.
5. shape error (under `%load_ext webflow.lab`): the explanation panel marks the operands `y` and `bad` with their
   shapes (2, 1) and (3, 1), and the failing node (the oracle's op name) is drawn with data-error="true".
Every request the browser makes must stay on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "browser"))
from launch import REPO, lab_page, require_jupyterlab, write_notebook  # noqa: E402  (tests/browser/launch.py)
from notebook_ui import NotebookUI  # noqa: E402

ARTIFACTS = os.path.join(os.environ.get("WEBFLOW_ARTIFACTS") or os.path.join(HERE, "artifacts"), "lab_live_kernel")

# The model, shared verbatim by the notebook and the oracle process.
BUILD = """\
x = tf.placeholder(tf.float32, (None, 2), name="x")
y_true = tf.placeholder(tf.float32, (None, 1), name="y_true")
w = tf.Variable(tf.zeros((2, 1)), name="w")
b = tf.Variable(tf.zeros((1,)), name="b")
y = tf.matmul(x, w) + b
loss = tf.reduce_mean(tf.square(y - y_true))
train = tf.train.GradientDescentOptimizer(0.02).minimize(loss)
"""
FEEDS = """\
feed = {x: [[1.0, 2.0], [3.0, 4.0]], y_true: [[5.0], [11.0]]}
val_feed = {x: [[2.0, 1.0]], y_true: [[4.0]]}
"""
WATCH_STEPS = 60
BOARD_STEPS = 40
PROFILE_RUN = ("run_metadata = tf.RunMetadata()\n"
               "sess.run(train, feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), "
               "run_metadata=run_metadata)\n")
BOARD_LOOP = f"""\
for step in range({BOARD_STEPS}):
    _, train_loss = sess.run([train, loss], feed)
    board.log(step, loss=train_loss, val_loss=sess.run(loss, val_feed))
"""
ERROR = 'bad = tf.constant([[1.0], [2.0], [3.0]], name="bad")\nz = y + bad\n'

ORACLE = f"""\
import json
import webflow.compat.v1 as tf
tf.disable_v2_behavior()
{BUILD}graph = tf.get_default_graph()
ops = [[op.name, op.type] for op in graph.get_operations()]
edges = [[t.op.name, op.name, False] for op in graph.get_operations() for t in op.inputs]
edges += [[c.name, op.name, True] for op in graph.get_operations() for c in op.control_inputs]
x_label = str(x.shape) + " " + x.dtype.name
sess = tf.Session()
sess.run(tf.global_variables_initializer())
ops_with_init = len(graph.get_operations())
{FEEDS}for _ in range({WATCH_STEPS}):
    sess.run(train, feed)
{PROFILE_RUN}executed = [stat.node_name for stat in run_metadata.step_stats.dev_stats]
for step in range({BOARD_STEPS}):
    _, train_loss = sess.run([train, loss], feed)
    last = {{"loss": float(train_loss), "val_loss": float(sess.run(loss, val_feed))}}
y_shape = str(tuple(sess.run(y, {{x: [[1.0, 2.0], [3.0, 4.0]]}}).shape))
{ERROR}try:
    sess.run(z, {{x: [[1.0, 2.0], [3.0, 4.0]]}})
    error = None
except Exception as e:
    error = type(e).__name__
print(json.dumps({{"ops": ops, "edges": edges, "x_label": x_label, "ops_with_init": ops_with_init,
                  "executed": executed, "last": last, "y_shape": y_shape, "bad_shape": str(bad.shape),
                  "z_op": z.op.name, "error": error}}))
"""


def _cells(go_file: str) -> list[str]:
    setup = ("import os, time\nimport webflow\nimport webflow.compat.v1 as tf\nimport webflow.lab as lab\n"
             "tf.disable_v2_behavior()\n%load_ext webflow.lab\nprint('webflow from', webflow.__file__)")
    graph = BUILD + "lab.show(tf.get_default_graph())"
    watch = (f"sess = tf.Session()\nsess.run(tf.global_variables_initializer())\n{FEEDS}"
             f"with lab.watch(sess, every=0.2) as watcher:\n"
             f"    deadline = time.monotonic() + 120\n"
             f"    while not os.path.exists({go_file!r}):  # the browser test tags the view first\n"
             f"        assert time.monotonic() < deadline, 'the test never said go'\n"
             f"        time.sleep(0.05)\n"
             f"    for step in range({WATCH_STEPS}):\n"
             f"        sess.run(train, feed)\n"
             f"        time.sleep(0.04)\n"
             f"print('updates', watcher.updates)")
    profile = PROFILE_RUN + "lab.show(lab.graph_document(tf.get_default_graph(), run_metadata=run_metadata))"
    board = "board = lab.Dashboard(title='linear fit', every=0.2)\n" + BOARD_LOOP + "board.close()"
    error = ERROR + "sess.run(z, {x: [[1.0, 2.0], [3.0, 4.0]]})"
    return [setup, graph, watch, profile, board, error]


def _oracle() -> dict:
    env = {**os.environ, "PYTHONPATH": REPO, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", ORACLE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- JavaScript run in the page ------------------------------------------------------------------------
NODES = """out => [...out.querySelectorAll('.wf-node[data-op-name]')].map(e => [e.getAttribute('data-op-name'),
  e.getAttribute('data-op-type'), e.getAttribute('data-id')])"""
EDGES = """out => [...out.querySelectorAll('.wf-edge')].map(e => [e.getAttribute('data-source'),
  e.getAttribute('data-target'), e.classList.contains('wf-control'), e.querySelector('.wf-edge-label').textContent])"""
# Tags the renderer root and the MatMul node with JS properties, and records every change of the view.
TAG_AND_OBSERVE = """out => {
  const root = out.querySelector('.wf-lab-output');
  const matmul = out.querySelector('.wf-node[data-op-name="MatMul"]');
  root.__wfTag = 'root'; matmul.__wfTag = 'matmul';
  const seen = window.__wfSeen = [];
  const removed = window.__wfRemoved = [];
  const snap = () => {
    const m = out.querySelector('.wf-node[data-op-name="MatMul"]');
    const s = [out.querySelector('.wf-graph .wf-title').textContent, m.getAttribute('class'),
               m.querySelector('.wf-sublabel').textContent,
               out.querySelector('.wf-graph').classList.contains('wf-live')];
    if (JSON.stringify(s) !== JSON.stringify(seen[seen.length - 1])) seen.push(s);
  };
  snap();
  new MutationObserver(records => {
    for (const r of records) for (const n of r.removedNodes)
      if (n.nodeType === 1 && (n === root || n.contains(root) || n.classList.contains('jp-OutputArea-child')))
        removed.push(n.className || n.nodeName);
    snap();
  }).observe(out, {subtree: true, childList: true, characterData: true, attributes: true});
  return seen[0];
}"""
STILL_TAGGED = """out => [out.querySelector('.wf-lab-output')?.__wfTag ?? null,
  out.querySelector('.wf-node[data-op-name="MatMul"]')?.__wfTag ?? null, window.__wfRemoved, window.__wfSeen]"""


def test_webflow_lab_with_a_live_kernel(tmp_path: pytest.TempPathFactory) -> None:
    require_jupyterlab()
    timings: dict[str, float] = {}
    start = time.perf_counter()
    oracle = _oracle()
    timings["oracle (CPython)"] = time.perf_counter() - start
    os.makedirs(ARTIFACTS, exist_ok=True)
    root = str(tmp_path / "notebooks")
    go_file = os.path.join(root, "go")
    write_notebook(root, "live.ipynb", _cells(go_file))

    def lap(name: str, since: float) -> float:
        timings[name] = time.perf_counter() - since
        print(f"{name}: {timings[name]:.1f} s", flush=True)
        return time.perf_counter()

    def shot(name: str, notebook: NotebookUI, cell: int) -> None:
        notebook.cell(cell).scroll_into_view_if_needed()
        notebook.cell(cell).screenshot(path=os.path.join(ARTIFACTS, f"{name}.png"))

    t = time.perf_counter()
    with lab_page(root, tmp_path) as (url, page, log):
        t = lap("jupyter lab up", t)
        page.goto(url + "/lab/tree/live.ipynb", timeout=180_000)
        notebook = NotebookUI(page)
        notebook.wait_idle()
        t = lap("notebook open, kernel idle", t)

        # --- 0. the kernel imports this checkout's webflow -------------------------------------------------
        notebook.run(0)
        notebook.wait_done(0)
        text = notebook.output_text(0)
        assert f"webflow from {os.path.join(REPO, 'webflow', '__init__.py')}" in text, text
        t = lap("setup cell", t)

        # --- 1. graph: nodes and edges as the oracle built them ---------------------------------------------
        notebook.run(1)
        notebook.wait_done(1)
        out = notebook.output(1)
        out.locator(".wf-graph .wf-node[data-op-name]").first.wait_for(timeout=60_000)
        assert out.locator('.wf-group[data-scope="gradients"]').count() == 1  # gradient subgraph starts collapsed
        shot("1_graph_collapsed", notebook, 1)
        t = lap("1. graph shown", t)
        out.locator(".wf-button", has_text="Expand all").click()
        nodes = out.evaluate(NODES)
        edges = out.evaluate(EDGES)
        assert sorted([name, op_type] for name, op_type, _ in nodes) == sorted(oracle["ops"])
        name_of = {item_id: name for name, _, item_id in nodes}
        drawn = {(name_of[s], name_of[d]): (control, label) for s, d, control, label in edges}
        wanted: dict[tuple, bool] = {}
        for source, target, control in oracle["edges"]:
            wanted[(source, target)] = wanted.get((source, target), True) and control
        assert set(drawn) == set(wanted)
        assert {pair for pair, (control, _) in drawn.items() if control} == {p for p, c in wanted.items() if c}
        assert drawn[("x", "MatMul")][1] == oracle["x_label"]  # "(?, 2) float32"
        shot("1_graph_expanded", notebook, 1)
        t = lap(f"1. graph ({len(nodes)} ops, {len(edges)} edges)", t)

        # --- 2. live update in place --------------------------------------------------------------------------
        notebook.run(2)
        out = notebook.output(2)
        out.locator(".wf-graph.wf-live .wf-node[data-op-name='MatMul']").wait_for(timeout=120_000)
        title, classes, sublabel, live = out.evaluate(TAG_AND_OBSERVE)
        assert live and "wf-executed" not in classes.split() and sublabel == "MatMul"  # nothing ran yet
        shot("2_live_before", notebook, 2)
        open(go_file, "w").close()  # the loop starts now
        out.locator(".wf-graph .wf-node.wf-executed[data-op-name='MatMul']").wait_for(timeout=60_000)
        shot("2_live_running", notebook, 2)
        notebook.wait_done(2)
        out.locator(".wf-graph:not(.wf-live)").wait_for(timeout=30_000)  # the final update (live: false)
        root_tag, node_tag, removed, seen = out.evaluate(STILL_TAGGED)
        assert (root_tag, node_tag) == ("root", "matmul"), "the output was re-created instead of updated in place"
        assert removed == [], f"output elements were removed during the updates (flicker): {removed}"
        titles = [s[0] for s in seen]
        timed = [s[2] for s in seen if s[2] != "MatMul"]
        assert len(set(titles)) >= 3, titles  # several updates arrived while the loop ran
        assert titles[-1] == f"Session.run #{WATCH_STEPS} ({oracle['ops_with_init']} ops)"
        assert "wf-executed" in seen[-1][1].split() and seen[-1][3] is False
        assert timed and all(label.startswith("MatMul · ") and label.endswith(("µs", "ms", " s")) for label in timed)
        assert out.locator(".wf-live-badge").is_hidden()
        print(f"   {len(seen)} distinct states, {len(set(titles))} titles, {len(set(timed))} MatMul timings; "
              f"kernel said: {notebook.output_text(2).strip().splitlines()[-1]}")
        shot("2_live_after", notebook, 2)
        t = lap("2. live watch", t)

        # --- 3. profile table: one row per executed op --------------------------------------------------------
        notebook.run(3)
        notebook.wait_done(3)
        out = notebook.output(3)
        out.locator(".wf-profile-table tbody tr").first.wait_for(timeout=60_000)
        # issue 31: the table starts with the ten slowest ops; "show all" lists every one
        assert out.locator(".wf-profile-table tbody tr[data-op-name]").count() == min(10, len(set(oracle["executed"])))
        if out.locator(".wf-profile-more").count():
            out.locator(".wf-profile-more").click()
        rows = out.locator(".wf-profile-table tbody tr[data-op-name]").evaluate_all(
            "rows => rows.map(r => [r.getAttribute('data-op-name'), r.cells[4].textContent])")
        names = [name for name, _ in rows]
        assert len(names) == len(set(names)), "one row per op"
        assert sorted(names) == sorted(set(oracle["executed"]))
        assert all(duration.endswith(("µs", "ms", " s")) for _, duration in rows)
        assert out.locator(".wf-timeline .wf-bar").count() == len(rows)
        assert out.locator(".wf-profile-total").inner_text().startswith("total ")
        out.locator(".wf-profile").scroll_into_view_if_needed()
        shot("3_profile", notebook, 3)
        t = lap(f"3. profile ({len(rows)} rows)", t)

        # --- 4. dashboard curves ------------------------------------------------------------------------------
        notebook.run(4)
        notebook.wait_done(4)
        out = notebook.output(4)
        out.locator(".wf-dashboard polyline.wf-series[data-series='loss']").wait_for(timeout=60_000)
        points = out.locator("polyline.wf-series").evaluate_all(
            "ls => ls.map(l => [l.getAttribute('data-series'), l.getAttribute('points').trim().split(/\\s+/)])")
        curves = {name: [tuple(map(float, p.split(","))) for p in pts] for name, pts in points}
        assert set(curves) == {"loss", "val_loss"}
        assert all(len(pts) == BOARD_STEPS for pts in curves.values())
        assert curves["loss"][0][1] < curves["loss"][-1][1]  # the loss falls: its line goes down (SVG y grows)
        assert all(a[0] < b[0] for a, b in zip(curves["loss"], curves["loss"][1:]))  # x = step, increasing
        legend = dict(item.rsplit(" ", 1) for item in out.locator(".wf-legend-item").all_inner_texts())
        colours = out.evaluate("""out => [...out.querySelectorAll('.wf-legend-item')].map(item => [
          getComputedStyle(item.querySelector('.wf-swatch')).backgroundColor,
          getComputedStyle(out.querySelector(`polyline[data-series="${item.dataset.series}"]`)).stroke])""")
        assert all(swatch == stroke for swatch, stroke in colours), colours  # each swatch has its line's colour
        for name in ("loss", "val_loss"):
            assert float(legend[name]) == pytest.approx(oracle["last"][name], rel=6e-3), (name, legend)
        shot("4_dashboard", notebook, 4)
        t = lap("4. dashboard", t)

        # --- 5. shape error explained, failing node highlighted ---------------------------------------------
        notebook.run(5)
        notebook.wait_done(5)
        out = notebook.output(5)
        panel = out.locator(".wf-error-panel")
        panel.locator(".wf-explanation").wait_for(timeout=60_000)
        assert oracle["error"] == "InvalidArgumentError"
        assert panel.locator(".wf-error-head strong").inner_text() == oracle["error"]
        marks = panel.locator("mark.wf-operand").evaluate_all(
            "ms => ms.map(m => [m.textContent, m.getAttribute('data-shape')])")
        assert marks == [["y", oracle["y_shape"]], ["bad", oracle["bad_shape"]]]  # (2, 1) and (3, 1)
        assert "z = y + bad" in panel.locator(".wf-error-code").inner_text()
        operands = panel.locator(".wf-operands li").all_inner_texts()
        assert operands == [f"y shape {oracle['y_shape']}", f"bad shape {oracle['bad_shape']}"]
        explanation = panel.locator(".wf-explanation").inner_text()
        assert oracle["y_shape"] in explanation and oracle["bad_shape"] in explanation
        failing = out.locator('.wf-graph [data-error="true"]')
        assert failing.count() == 1 and failing.get_attribute("data-op-name") == oracle["z_op"]
        assert "wf-error" in (failing.get_attribute("class") or "").split()
        assert "InvalidArgumentError" in notebook.output_text(5)  # the usual traceback is still shown
        shot("5_shape_error", notebook, 5)
        page.screenshot(path=os.path.join(ARTIFACTS, "page.png"), full_page=True)
        lap("5. shape error", t)

        assert not log.foreign, f"requests left 127.0.0.1: {log.foreign[:5]}"
        print(f"{len(log.urls)} requests, all to {url}; screenshots in {ARTIFACTS}")
    print("timings: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items()))
