"""Without NumPy (as in Pyodide) EnsureShape still checks shapes, eagerly and in a Session, and
`enable_check_numerics` still finds NaN and infinities in eager outputs, with the texts TensorFlow 2.21 gives for the
same values (compared with TensorFlow in test_ensure_shape_check_numerics_vs_tf.py and
tests/tf1_programs/ensure_shape.py). Run in a subprocess whose `import numpy` fails."""

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
print(wf.ensure_shape(wf.constant([[1.0, 2.0]]), [None, 2]).shape)
try:
    wf.ensure_shape(wf.zeros([3, 2]), [3, 3])
except wf.errors.InvalidArgumentError as error:
    print(error.message)
graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    checked = tf.ensure_shape(x * 2.0, [3, None])
    with tf.Session() as session:
        try:
            session.run(checked, {x: [[1.0, 2.0]]})
        except tf.errors.InvalidArgumentError as error:
            print(error.message.split("\n")[0])
wf.debugging.enable_check_numerics()
try:
    wf.constant([-1.0, 0.0, 1.0]) / wf.constant([0.0, 0.0, 0.0])
except wf.errors.InvalidArgumentError as error:
    print(error.message.split("\n")[2], error.message.split("\n")[5:8], error.message.split("\n")[-1])
finally:
    wf.debugging.disable_check_numerics()
"""


def test_ensure_shape_and_check_numerics_without_numpy() -> None:
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "(1, 2)",
        "Shape of tensor input [3,2] is not compatible with expected shape [3,3]. [Op:EnsureShape]",
        "Shape of tensor mul [1,2] is not compatible with expected shape [3,?].",
        '!!! Detected Infinity or NaN in output 0 of eagerly-executing op "RealDiv" (# of outputs: 1) !!! '
        "['  # of -Inf elements: 1', '  # of +Inf elements: 1', '  # of +NaN elements: 1'] "
        " : Tensor had -Inf, +Inf, and NaN values [Op:CheckNumericsV2]",
    ]
