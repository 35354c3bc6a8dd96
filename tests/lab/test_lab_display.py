"""Notebook display: mime bundles of Graph / Session / wf.function, show(), watch() live updates, and the
IPython exception handler. Live outputs are checked with fake display functions and with IPython's real
display publisher (captured), which records each message's display_id and whether it is an update.
"""

from __future__ import annotations

import json

import pytest
from conftest import require_or_skip

import webflow as wf
import webflow.compat.v1 as tf
import webflow.lab as lab
from webflow.lab import MIME_TYPE


class FakeDisplay:
    """Stands in for IPython.display.display: records display(..., display_id=True) and handle.update()."""

    def __init__(self) -> None:
        self.calls: list = []

    def __call__(self, data: dict, raw: bool = False, display_id: bool = False):
        assert raw and display_id
        self.calls.append(("display", data))
        return self

    def update(self, data: dict, raw: bool = False) -> None:
        assert raw
        self.calls.append(("update", data))


def _small_graph():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (None, 2), name="x")
    w = tf.Variable(tf.ones((2, 1)), name="w")
    y = tf.reduce_sum(tf.matmul(x, w))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(y)
    return x, y, train


def test_graph_session_and_function_have_mime_bundles() -> None:
    x, y, train = _small_graph()
    graph = tf.get_default_graph()
    data = graph._repr_mimebundle_()
    assert set(data) == {MIME_TYPE, "text/plain"}
    assert [n["name"] for n in data[MIME_TYPE]["nodes"]] == [op.name for op in graph.get_operations()]
    assert "MatMul = MatMul(x, w/read) -> (?, 1) float32" in data["text/plain"]
    json.dumps(data, allow_nan=False)
    with tf.Session() as sess:
        assert sess._repr_mimebundle_()[MIME_TYPE]["nodes"] == data[MIME_TYPE]["nodes"]

    tf.enable_eager_execution()

    @wf.function
    def double_plus_one(t):
        return t * 2.0 + 1.0

    assert "not traced" in double_plus_one._repr_mimebundle_()["text/plain"]
    double_plus_one(wf.constant([1.0, 2.0]))
    traced = double_plus_one._repr_mimebundle_()[MIME_TYPE]
    concrete = double_plus_one.get_concrete_function(wf.constant([1.0, 2.0]))
    assert [n["name"] for n in traced["nodes"]] == [op.name for op in concrete.graph.get_operations()]
    assert {n["type"] for n in traced["nodes"]} >= {"Mul", "AddV2"}


def test_show_prints_text_outside_ipython(capsys) -> None:
    _small_graph()
    lab.show(tf.get_default_graph())
    assert "MatMul = MatMul(x, w/read)" in capsys.readouterr().out


def test_watch_displays_once_then_updates_the_same_output() -> None:
    x, y, train = _small_graph()
    fake = FakeDisplay()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with lab.watch(sess, every=3600.0, display=fake) as watcher:  # throttled: only the first run is traced
            for _ in range(5):
                sess.run(train, {x: [[1.0, 2.0]]})
        assert "run" not in sess.__dict__  # the session's own run is back
    kinds = [kind for kind, _ in fake.calls]
    assert kinds[0] == "display" and set(kinds[1:]) == {"update"}
    assert len(kinds) == 3  # the first display, the first (traced) run, the final update
    first, last = fake.calls[0][1][MIME_TYPE], fake.calls[-1][1][MIME_TYPE]
    assert first["live"] is True and last["live"] is False
    assert watcher.runs == 5
    executed = {n["name"] for n in last["nodes"] if n["executed"]}
    assert "GradientDescent" in executed and "MatMul" in executed
    timed = [n for n in last["nodes"] if n["timing_us"] is not None]
    assert timed and all(n["name"] in executed for n in timed)


def test_watch_updates_at_most_every_interval() -> None:
    x, y, train = _small_graph()
    fake = FakeDisplay()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with lab.watch(sess, every=0.0, display=fake):
            for _ in range(4):
                sess.run(train, {x: [[1.0, 2.0]]})
    assert [kind for kind, _ in fake.calls] == ["display"] + ["update"] * 5  # every run + the final one


def _ipython_shell():
    try:
        from IPython.core.interactiveshell import InteractiveShell
        from IPython.utils.capture import capture_output
    except ImportError:
        require_or_skip("IPython is not installed")
    return InteractiveShell.instance(), capture_output


def test_watch_with_ipython_uses_one_display_id() -> None:
    shell, capture_output = _ipython_shell()
    x, y, train = _small_graph()
    with capture_output() as captured, tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with lab.watch(sess, every=0.0):
            for _ in range(3):
                sess.run(train, {x: [[1.0, 2.0]]})
    outputs = captured.outputs
    ids = {o.transient["display_id"] for o in outputs}
    assert len(ids) == 1
    assert [o.update for o in outputs] == [False] + [True] * 4
    assert [o.data[MIME_TYPE]["live"] for o in outputs] == [True] * 4 + [False]


def test_ipython_handler_shows_the_traceback_then_the_explanation() -> None:
    shell, capture_output = _ipython_shell()
    with capture_output() as captured:
        shell.run_line_magic("load_ext", "webflow.lab")
        try:
            result = shell.run_cell(
                "import webflow.compat.v1 as tf\n"
                "tf.disable_v2_behavior()\n"
                "x = tf.placeholder(tf.float32, (3, 1), name='x')\n"
                "b = tf.constant([[1.0], [2.0]], name='b')\n"
                "y = x + b\n")
            shell.run_cell("raise ValueError('not a webflow error')")
        finally:
            lab.disable()
    assert isinstance(result.error_in_exec, ValueError)  # the exception is the original one
    # issue 31: a webflow error is ONE output (no IPython traceback printed first), whose text fallback is the
    # learner's traceback; another error keeps IPython's usual traceback
    assert "Dimensions must be equal, but are 3 and 2" not in captured.stdout
    assert "not a webflow error" in captured.stdout
    assert len(captured.outputs) == 1  # one explanation, for the webflow error only
    assert "Dimensions must be equal, but are 3 and 2" in captured.outputs[0].data["text/plain"]
    document = captured.outputs[0].data[MIME_TYPE]
    assert document["error"]["node"] == "add"
    assert [(o["text"], o["shape"]) for o in document["error"]["operands"]] == [("x", "(3, 1)"), ("b", "(2, 1)")]
    assert {n["name"]: n for n in document["nodes"]}["add"]["error"] is True


@pytest.fixture(autouse=True)
def _no_handlers_left():
    yield
    lab.disable()
