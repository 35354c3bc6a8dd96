"""A failed assertion in webflow.lab's error panel and text: an InvalidArgumentError like any other op's, whose
document names the Assert node, carries the assertion's own message ("assertion failed: [...]") and points at
the learner's line that built the check; eagerly (no op), the text shows the message TensorFlow's eager check gives.
"""

from __future__ import annotations

import pytest

import webflow as wf
import webflow.compat.v1 as tf
from webflow.lab.hooks import notebook_bundle
from webflow.lab.shape_errors import explain


def _graph_failure() -> tuple:
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        check = tf.assert_positive(x, message="x must be positive")  # the line the panel points at
        with tf.control_dependencies([check]):
            doubled = tf.identity(x) * 2.0
        with tf.Session() as session:
            with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                session.run(doubled, {x: [1.0, -2.0]})
    return caught.value, check


def test_graph_assertion_in_the_panel() -> None:
    error, check = _graph_failure()
    assert error.op.name == "assert_positive/assert_less/Assert/AssertGuard/Assert"
    explanation = explain(error)
    document = explanation.document["error"]
    assert document["node"] == error.op.name
    assert document["type"] == "InvalidArgumentError"
    assert document["message"].startswith("assertion failed: [x must be positive.  ] [Condition x > 0 did not hold "
                                          "element-wise:] [x (x:0) = ] [1 -2]")
    assert "the Assert op 'assert_positive/assert_less/Assert/AssertGuard/Assert' failed in Session.run" \
        in document["explanation"]
    assert 'tf.assert_positive(x, message="x must be positive")' in document["explanation"]
    text = notebook_bundle(explanation)["text/plain"]
    assert "InvalidArgumentError: assertion failed: [x must be positive.  ]" in text


def test_eager_assertion_text() -> None:
    with pytest.raises(wf.errors.InvalidArgumentError) as caught:
        wf.debugging.assert_equal(wf.constant([1, 2]), wf.constant([1, 3]), message="labels differ")
    text = notebook_bundle(explain(caught.value))["text/plain"]
    assert text.endswith("InvalidArgumentError: labels differ\nCondition x == y did not hold.\n"
                         "Indices of first 1 different values:\n[[1]]\nCorresponding x values:\n[2]\n"
                         "Corresponding y values:\n[3]\nFirst 2 elements of x:\n[1 2]\nFirst 2 elements of y:\n[1 3]")
