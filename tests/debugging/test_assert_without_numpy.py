"""Without NumPy (as in Pyodide) a failing Assert op still says what TensorFlow says, Print and tf.print still write
TensorFlow's text, and the eager checks still raise InvalidArgumentError (their difference report, which TensorFlow
builds with NumPy, is then left out). Run in a subprocess whose `import numpy` fails."""

from __future__ import annotations

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = r"""
import sys
sys.modules["numpy"] = None
import webflow as wf
import webflow.compat.v1 as tf
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
assert not HAVE_NUMPY
graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, [None], name="x")
    check = tf.Assert(tf.reduce_all(x > 0), ["x:", x], summarize=2)
    shown = tf.Print(x, [x, tf.constant([[True, False], [False, True]])], message="x = ")
    with tf.Session() as session:
        session.run(shown, {x: [1.5, 2.0]})
        try:
            session.run(check, {x: [1.0, -2.0, 3.0]})
        except tf.errors.InvalidArgumentError as error:
            print(error.message.split("\n")[0])
wf.print("eager", wf.constant([[1, 2], [3, 4]]), output_stream=sys.stdout)
try:
    wf.debugging.assert_equal(wf.constant([1, 2]), wf.constant([1, 3]), message="labels")
except wf.errors.InvalidArgumentError as error:
    print(repr(error.message))
"""


def test_assert_and_print_without_numpy() -> None:
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    # TensorFlow 2.21's texts for the same values (tests/debugging/test_assert_summaries_vs_tf.py checks the format)
    assert done.stdout.splitlines() == ["assertion failed: [x:] [1 -2...]", "eager [[1 2]", " [3 4]]",
                                        "'labels\\nCondition x == y did not hold.'"]
    assert done.stderr.splitlines()[-1] == "x = [1.5 2][[1 0][0...]...]"  # (3 elements by default)
