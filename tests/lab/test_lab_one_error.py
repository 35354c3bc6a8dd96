"""After `%load_ext webflow.lab`, a failed op shows ONE output in the learner's terms (issue 31).

A real IPython shell runs the cells; every output it publishes is recorded. A shape error must give one bundle
(no IPython traceback printed before it): its panel names the learner's line as IPython does (`Cell In[3], line
3`), lists engine frames only as folded ones, calls long operand expressions by short names; its text fallback
is the traceback without engine frames plus the one explanation.
"""

from __future__ import annotations

import contextlib
import io
import sys

import pytest

from webflow.lab import error_frames
from webflow.lab.graph_document import MIME_TYPE

CELLS = [
    "%reload_ext webflow.lab",  # %load_ext in a fresh kernel; the shell here is shared with other tests
    "import webflow.compat.v1 as tf\ntf.disable_v2_behavior()",
    "x = 1\ny = 2\nz = tf.matmul(tf.constant([[1., 2., 3.]]),\n    tf.constant([[1., 2.], [3., 4.]]))",
]


@pytest.fixture(scope="module")
def shell_outputs() -> tuple:
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    published: list = []
    original = shell.display_pub.publish
    shell.display_pub.publish = lambda data, metadata=None, **kw: published.append(data)
    printed = io.StringIO()
    failing = shell.execution_count + 2  # the number IPython gives the third cell
    try:
        with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
            for cell in CELLS:
                shell.run_cell(cell, store_history=True)
    finally:
        shell.display_pub.publish = original
        from webflow.lab import hooks

        hooks.disable()
        shell.extension_manager.loaded.discard("webflow.lab")  # so that another test's %load_ext enables it again
    return published, printed.getvalue(), failing


def test_one_output_and_no_ipython_traceback(shell_outputs: tuple) -> None:
    published, printed, _ = shell_outputs
    assert len(published) == 1, published
    assert "Traceback" not in printed and "webflow/ops" not in printed, printed
    assert set(published[0]) == {MIME_TYPE, "text/plain"}


def test_the_panel_names_the_cell_as_ipython_does(shell_outputs: tuple) -> None:
    error = shell_outputs[0][0][MIME_TYPE]["error"]
    cell = f"Cell In[{shell_outputs[2]}], line 3"
    assert error["where"] == cell
    learner = [f for f in error["frames"] if not f["engine"]]
    assert learner == [{"where": cell, "function": "<module>",
                        "code": "z = tf.matmul(tf.constant([[1., 2., 3.]]),", "engine": False}]
    engine = [f for f in error["frames"] if f["engine"]]
    assert any("registry.py" in f["where"] for f in engine)  # folded, still there to step into


def test_one_explanation_with_short_operand_names(shell_outputs: tuple) -> None:
    error = shell_outputs[0][0][MIME_TYPE]["error"]
    assert error["summary"] == ("tf.matmul() on tensor argument a w/shape (1, 3) and argument b w/shape (2, 2)\n"
                                "matrix product: a has 3 columns but b has 2 rows; they must be equal.")
    assert "tf.constant" not in error["summary"]
    node = next(n for n in shell_outputs[0][0][MIME_TYPE]["nodes"] if n["name"] == error["node"])
    assert node.get("error") is True  # the failing op is highlighted in the graph


def test_text_fallback_has_no_engine_frames(shell_outputs: tuple) -> None:
    text = shell_outputs[0][0]["text/plain"]
    assert text.splitlines()[:3] == ["Traceback (most recent call last):", f"  Cell In[{shell_outputs[2]}], line 3",
                                     "    z = tf.matmul(tf.constant([[1., 2., 3.]]),"]
    assert "registry.py" not in text and "engine frames not shown" in text
    assert text.count("Dimensions must be equal") == 1
    assert text.endswith("matrix product: a has 3 columns but b has 2 rows; they must be equal.")


def test_pyodides_zipped_standard_library_is_not_the_learners_line() -> None:
    """In Pyodide an error raised through a `with` block passes /lib/python314.zip/contextlib.py: skip it."""
    assert error_frames.is_stdlib("/lib/python314.zip/contextlib.py")
    assert error_frames.is_engine_file("/lib/python314.zip/contextlib.py")
    assert not error_frames.is_stdlib("/home/learner/lesson.py")
    through_contextlib = compile("def enter(callback):\n    callback()\n", "/lib/python314.zip/contextlib.py", "exec")
    scope: dict = {}
    exec(through_contextlib, scope)

    def learners_line() -> None:
        scope["enter"](fail)

    def fail() -> None:
        raise ValueError("bad name")

    try:
        learners_line()
    except ValueError:
        tb = sys.exc_info()[2]
    frames = []
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lasti, tb.tb_lineno))
        tb = tb.tb_next
    frame, _, _ = error_frames.user_frame_of(frames)
    assert frame.f_code.co_name == "fail"  # this test file is the learner's; contextlib's frame is skipped
    assert frames[-2][0].f_code.co_filename == "/lib/python314.zip/contextlib.py"


def test_where_outside_ipython_is_pythons_file_line() -> None:
    assert error_frames.where("/home/learner/train.py", 12) == 'File "/home/learner/train.py", line 12'
