"""webflow.lab.explain: the failing op, the learner's line with its operands marked, which dimension disagrees.

Oracles: the source text of this file (offsets found with str.index on the literal line), the shapes the
test built, TensorFlow's exception type/message (real TF when WEBFLOW_TF_PYTHON is set), and the
terminal output of a child Python.
"""

from __future__ import annotations

import ast
import inspect
import os
import subprocess
import sys
import textwrap

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow

import webflow as wf
import webflow.compat.v1 as tf
from webflow.lab import explain, source_spans

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _operand(explanation, text: str) -> dict:
    return next(o for o in explanation.document["error"]["operands"] if o["text"] == text)


def test_broadcast_error_built_in_a_graph() -> None:
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (3, 1), name="x")
    b = tf.constant([[1.0], [2.0]], name="b")
    with pytest.raises(ValueError) as info:
        y = x + b  # noqa: F841
    line = inspect.currentframe().f_lineno - 1
    message = str(info.value)
    assert message.startswith("Dimensions must be equal, but are 3 and 2 for '{{node add}} = AddV2")
    explanation = explain(info.value)
    assert str(info.value) == message and type(info.value).__mro__[1] is ValueError  # the exception is untouched
    error = explanation.document["error"]
    code = "y = x + b  # noqa: F841"
    assert error["source"] == {"file": __file__, "line": line, "function": "test_broadcast_error_built_in_a_graph",
                               "code": code}
    assert [(o["text"], o["shape"], o["start"], o["end"]) for o in error["operands"]] == [
        ("x", "(3, 1)", code.index("x"), code.index("x") + 1), ("b", "(2, 1)", code.index("b"), code.index("b") + 1)]
    assert error["node"] == "add" and error["phase"] == "build" and error["type"] == type(info.value).__name__
    assert "Cause: + on tensor operand x w/shape (3, 1) and operand b w/shape (2, 1)" in explanation.text
    assert "x's dimension 0 is 3 and b's dimension 0 is 2" in explanation.text
    assert "    y = x + b  # noqa: F841\n        ^   ^\n" in explanation.text
    # the op does not exist: a synthetic node flagged as the error, with edges from x and b
    nodes = {n["name"]: n for n in explanation.document["nodes"]}
    assert nodes["add"]["synthetic"] and nodes["add"]["error"] and nodes["add"]["type"] == "AddV2"
    assert {(e["source"], e["input_index"]) for e in explanation.document["edges"] if e["target"] == "add"} == {
        ("x", 0), ("b", 1)}


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_tensorflow_raises_the_same_type_and_message_prefix() -> None:
    program = textwrap.dedent("""
        x = tf.placeholder(tf.float32, (3, 1), name="x")
        b = tf.constant([[1.0], [2.0]], name="b")
        try:
            x + b
            result = None
        except Exception as error:
            result = [type(error).__name__, str(error)]
    """)
    name, message = run_tensorflow({"add": program})["add"]
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (3, 1), name="x")
    b = tf.constant([[1.0], [2.0]], name="b")
    with pytest.raises(ValueError) as info:
        x + b
    assert name == "ValueError" and isinstance(info.value, ValueError)
    prefix = "Dimensions must be equal, but are 3 and 2 for '{{node add}} = AddV2"
    assert message.startswith(prefix) and str(info.value).startswith(prefix)


def test_matmul_inner_dimension_mismatch_names_both_arguments() -> None:
    tf.disable_v2_behavior()
    a = tf.zeros((2, 3), name="a")
    weights = {"w": tf.zeros((4, 5), name="w")}
    with pytest.raises(ValueError) as info:
        tf.matmul(a, weights["w"], name="logits")
    explanation = explain(info.value)
    code = 'tf.matmul(a, weights["w"], name="logits")'
    error = explanation.document["error"]
    assert error["source"]["code"] == code
    assert [(o["text"], o["shape"], o["start"], o["end"]) for o in error["operands"]] == [
        ("a", "(2, 3)", code.index("a,"), code.index("a,") + 1),
        ('weights["w"]', "(4, 5)", code.index("weights"), code.index(", name"))]
    assert "Cause: tf.matmul() on tensor argument a w/shape (2, 3) and argument weights[\"w\"] w/shape (4, 5)" \
        in explanation.text
    assert "a has 3 columns but weights[\"w\"] has 4 rows" in explanation.text
    assert error["node"] == "logits"


def test_dtype_mismatch_is_explained_with_dtypes() -> None:
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (3, 1), name="x")
    counts = tf.constant([[1], [2], [3]], tf.int32)
    with pytest.raises(TypeError) as info:
        x * counts
    explanation = explain(info.value)
    assert "Cause: * on tensor operand x w/dtype float32 and operand counts w/dtype int32" in explanation.text


def test_run_time_error_points_at_the_line_that_built_the_op() -> None:
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (None, 1), name="x")
    b = tf.constant([[1.0], [2.0]], name="b")
    y = x * 2.0 + b; line = inspect.currentframe().f_lineno  # noqa: E702
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(y, {x: [[1.0], [2.0], [3.0]]})
    explanation = explain(info.value)
    error = explanation.document["error"]
    assert error["phase"] == "run" and error["node"] == y.op.name
    assert error["source"]["line"] == line
    assert [(o["text"], o["shape"]) for o in error["operands"]] == [("x * 2.0", "(3, 1)"), ("b", "(2, 1)")]
    assert {n["name"]: n for n in explanation.document["nodes"]}[y.op.name]["error"] is True


def test_eager_error_is_explained_too() -> None:
    p = wf.constant([[1.0], [2.0], [3.0]])
    q = wf.constant([[1.0], [2.0]])
    with pytest.raises(wf.errors.InvalidArgumentError) as info:
        p - q
    explanation = explain(info.value)
    assert explanation.document["error"]["phase"] == "eager"
    assert "Cause: - on tensor operand p w/shape (3, 1) and operand q w/shape (2, 1)" in explanation.text


def test_unrelated_exceptions_are_not_explained() -> None:
    explanation = explain(ValueError("nothing to do with webflow"))
    assert not explanation.found and explanation.document is None


def test_operands_are_read_without_running_user_code() -> None:
    calls = []

    class Holder:
        @property
        def tensor(self):
            calls.append(1)
            return 1

    holder, items = Holder(), [10, 20]  # noqa: F841 - read through the frame below
    frame = inspect.currentframe()
    read = [source_spans.safe_value(ast.parse(text, mode="eval").body, frame)
            for text in ("holder.tensor", "items[1]", "items[5]", "len(items)")]
    assert read == [source_spans.MISSING, 20, source_spans.MISSING, source_spans.MISSING]
    assert calls == []


def test_terminal_hook_prints_the_marked_line_after_the_traceback(tmp_path) -> None:
    script = tmp_path / "broken.py"
    script.write_text(textwrap.dedent("""
        import webflow.compat.v1 as tf
        import webflow.lab
        webflow.lab.enable()
        tf.disable_v2_behavior()
        x = tf.placeholder(tf.float32, (3, 1), name="x")
        b = tf.constant([[1.0], [2.0]], name="b")
        y = x + b
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1"))
    assert done.returncode == 1
    stderr = done.stderr
    traceback_at = stderr.index("Traceback (most recent call last)")
    message_at = stderr.index("ShapeError: Dimensions must be equal, but are 3 and 2")  # a ValueError subclass
    marked_at = stderr.index("    y = x + b\n        ^   ^\n")
    assert traceback_at < message_at < marked_at
    assert f'File "{script}", line 8, in <module>' in stderr[message_at:]
    assert "Cause: + on tensor operand x w/shape (3, 1) and operand b w/shape (2, 1)" in stderr
