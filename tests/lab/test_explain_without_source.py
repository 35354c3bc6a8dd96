"""`explain` of a run-time error whose op was built in code that cannot be read back (exec'd source, `python -c`,
a lesson run as a script by tests/test_lessons.py): the op and the error are named; no code lines, no crash."""

from __future__ import annotations

import webflow.compat.v1 as tf
from webflow.lab import explain

SOURCE = """
u = tf.placeholder(tf.float32, [None], name="u")
v = tf.placeholder(tf.float32, [None], name="v")
total = u + v
"""


def test_a_run_time_error_built_in_unreadable_code_is_explained() -> None:
    namespace = {"tf": tf}
    with tf.Graph().as_default():
        exec(compile(SOURCE, "<not a file>[cell 1]", "exec"), namespace)  # noqa: S102 (no file to read back)
        with tf.Session() as sess:
            try:
                sess.run(namespace["total"], {namespace["u"]: [1.0, 2.0, 3.0], namespace["v"]: [1.0, 2.0]})
            except tf.errors.InvalidArgumentError as error:
                caught = error
    explanation = explain(caught)
    assert explanation.found
    assert explanation.text.startswith("webflow: the AddV2 op 'add' failed in Session.run (InvalidArgumentError)")
    assert "total = u + v" not in explanation.text  # the line could not be read: it is not invented
