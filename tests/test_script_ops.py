"""`tf.py_func`, `tf.numpy_function`, `tf.py_function` against real TensorFlow: values, op types, unknown output
shapes, the gradient through py_function (graph and GradientTape), the error types and messages a failing or
mistyped function gives, and TF2's eager behaviour (no op: the function is called at once)."""

from __future__ import annotations

import json
import os
import subprocess

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

GRAPH_PROGRAMS = {
    "values_types_shapes": """
p = tf.placeholder(tf.float32, [None, 2])
a, b = tf.py_func(lambda v: (v * 2, np.int32(v.size)), [p], [tf.float32, tf.int32])
c = tf.py_func(lambda v: v + 1, [p], tf.float32, stateful=False)
d = tf.numpy_function(lambda v: v.astype(np.float64).sum(), [p], tf.float64)
e = tf.py_function(lambda v: tf.reduce_max(v, axis=1), [p], tf.float32)
s = tf.py_func(lambda v: np.array([b"x", b"yz"], dtype=object), [p], tf.string)
none = tf.py_func(lambda v: None, [p], [])
with tf.Session() as sess:
    values = sess.run([a, b, c, d, e, s, none], {p: [[1., 2.], [3., 5.]]})
result = {"values": [v.decode() if isinstance(v, bytes) else v for v in values[:5]] + [[x.decode() for x in values[5]],
          values[6]], "types": [t.op.type for t in (a, c, d, e)], "names": [t.op.name for t in (a, b, c, d, e)],
          "ranks": [t.shape.ndims for t in (a, d, e)], "no_grad": [g is None for g in tf.gradients(a, p)],
          "attrs": sorted(k for k in ("token", "Tin", "Tout") if a.op.get_attr(k) is not None),
          "tout": [t.name for t in a.op.get_attr("Tout")], "none_type": none.type}
""",
    "py_function_gradient": """
x = tf.constant([1., 2., 3.])
y, z = tf.py_function(lambda v: (tf.reduce_sum(v * v * v), tf.sin(v)), [x], [tf.float32, tf.float32])
g = tf.gradients(3.0 * z + y, x)[0]   # one gradient per run: TensorFlow's gradient pops the forward call's tape
with tf.Session() as sess:
    result = {"values": sess.run([y, z, g]), "grad_type": g.op.type}
""",
    "errors": """
import re
p = tf.placeholder(tf.float32, [2])
def raising(error):
    def f(v):
        raise error
    return f
cases = {"value": tf.py_func(raising(ValueError("bad")), [p], tf.float32),
         "stop": tf.py_func(raising(StopIteration()), [p], tf.float32),
         "zero": tf.numpy_function(raising(ZeroDivisionError("z")), [p], tf.float32),
         "unimplemented": tf.py_function(raising(NotImplementedError("n")), [p], tf.float32),
         "type": tf.py_function(raising(TypeError("t")), [p], tf.float32),
         "dtype": tf.py_func(lambda v: v.astype(np.float64), [p], tf.float32),
         "python_int": tf.py_func(lambda v: 3, [p], tf.float32),
         "count": tf.py_func(lambda v: (v, v), [p], tf.float32),
         "eager_dtype": tf.py_function(lambda v: tf.cast(v, tf.float64), [p], tf.float32)}
result = {}
with tf.Session() as sess:
    for key, tensor in cases.items():
        try:
            sess.run(tensor, {p: [1., 2.]})
            result[key] = "ran"
        except tf.errors.OpError as error:
            lines = [re.sub("pyfunc_[0-9]+", "pyfunc_N", line) for line in str(error).splitlines()
                     if re.search("returned by pyfunc_|pyfunc_[0-9]+ returns", line)]
            result[key] = [type(error).__name__, lines[0] if lines else ""]
""",
}

EAGER_PROGRAM = """
import json, os, sys
import numpy as np
import tensorflow as tf
x = tf.constant([1., 2.])
out = {}
out["numpy_function_keeps_dtype"] = tf.numpy_function(lambda v: v.astype(np.float64) * 2, [x], tf.float32).dtype.name
out["list_result"] = [t.numpy().tolist() for t in tf.numpy_function(lambda v: [v, v + 1], [x], tf.float32)]
out["none"] = tf.numpy_function(lambda v: None, [x], []) is None
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.py_function(lambda v: v * v * 3.0 + tf.exp(v), [x], tf.float32)
out["tape_grad"] = tape.gradient(y, x).numpy().tolist()
out["py_function_value"] = y.numpy().tolist()
try:
    tf.py_function(lambda v: 1 / 0, [x], tf.float32)
except tf.errors.OpError as error:
    out["eager_error"] = type(error).__name__
try:
    tf.numpy_function(lambda v: 1 / 0, [x], tf.float32)
except Exception as error:
    out["numpy_function_error"] = type(error).__name__
print("RESULT:" + json.dumps(out))
"""


def _run_eager(source: str, module: object) -> dict:
    if module == "tf":
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""}
        done = subprocess.run([TF_PYTHON, "-c", source], capture_output=True, text=True, timeout=600, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        line = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")][-1]
        return json.loads(line[len("RESULT:"):])
    import contextlib
    import io
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(source.replace("import tensorflow as tf", "import webflow as tf"), {"__name__": "program"})
    return json.loads(buffer.getvalue().split("RESULT:")[-1])


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    return run_tensorflow(GRAPH_PROGRAMS)


@pytest.mark.parametrize("program", sorted(GRAPH_PROGRAMS))
def test_graph_programs_match_tensorflow(program: str, tensorflow_results: dict) -> None:
    ours, theirs = run_webflow(GRAPH_PROGRAMS[program]), tensorflow_results[program]
    if program == "py_function_gradient":
        assert ours["grad_type"] == theirs["grad_type"]
        for got, expected in zip(ours["values"], theirs["values"]):
            np.testing.assert_allclose(got, expected, rtol=1e-6)
        return
    assert ours == theirs


def test_eager_behaviour_matches_tensorflow() -> None:
    ours, theirs = _run_eager(EAGER_PROGRAM, "webflow"), _run_eager(EAGER_PROGRAM, "tf")
    for key in ("tape_grad", "py_function_value"):
        np.testing.assert_allclose(ours.pop(key), theirs.pop(key), rtol=1e-6)
    assert ours == theirs
