"""webflow without NumPy (as in Pyodide): it imports, and a TF1 training program runs on the C kernels.

Each test runs a child Python with `sys.modules["numpy"] = None` (so `import numpy` fails there), runs a
program, prints its results as JSON, and the parent checks them against pure-Python references derived
by hand: the gradient of a mean squared error for a 2-parameter linear fit, and the softmax
cross-entropy of a tiny classifier computed from the fetched weights.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BLOCK_NUMPY = "import sys\nsys.modules['numpy'] = None\n"


def run_without_numpy(program: str) -> dict:
    """Runs `program` in a child Python where NumPy cannot be imported; returns the JSON it prints last."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", BLOCK_NUMPY + textwrap.dedent(program)], env=env,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_imports_without_numpy() -> None:
    result = run_without_numpy("""
        import json
        import webflow, webflow.compat.v1
        print(json.dumps({"numpy": "numpy" in sys.modules and sys.modules["numpy"] is not None,
                          "has_placeholder": hasattr(webflow.compat.v1, "placeholder")}))
    """)
    assert result == {"numpy": False, "has_placeholder": True}


NEEDS_C = """
    import json
    from webflow.backends import c_library
    if not c_library.available():
        print(json.dumps({"skip": c_library.unavailable_reason()}))
        raise SystemExit(0)
"""


def _skip_if_no_c(result: dict) -> None:
    if "skip" in result:
        pytest.skip(f"C kernels unavailable: {result['skip']}")


LINEAR_PROGRAM = NEEDS_C + """
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [None, 1], name="x")
    t = tf.placeholder(tf.float32, [None], name="t")
    w = tf.Variable(tf.zeros([1, 1]))
    b = tf.Variable(tf.constant([0.5]))
    y = tf.reshape(tf.nn.bias_add(tf.matmul(x, w), b), [-1])
    loss = tf.reduce_mean(tf.square(y - t))
    grads = tf.gradients(loss, [w, b])
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    feed = {x: [[1.0], [2.0], [3.0], [4.0]], t: [3.0, 5.0, 7.0, 9.0]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_grads = [g.tolist() for g in sess.run(grads, feed)]
        losses = [float(sess.run([loss, train], feed)[0]) for _ in range(30)]
        w_value, b_value = sess.run([w, b])
    print(json.dumps({"grads": first_grads, "losses": losses, "w": w_value.tolist(), "b": b_value.tolist(),
                      "type": type(w_value).__name__, "shape": list(w_value.shape), "dtype": w_value.dtype.name,
                      "indexed": float(w_value[0, 0]), "row": w_value[0].tolist()}))
"""


def _linear_reference(steps: int, rate: float) -> tuple:
    """Gradient descent on L = mean((w x + b - t)^2), by hand: dL/dw = 2 mean(r x), dL/db = 2 mean(r)."""
    xs, ts = [1.0, 2.0, 3.0, 4.0], [3.0, 5.0, 7.0, 9.0]
    w, b, losses, first = 0.0, 0.5, [], None
    for _ in range(steps):
        residuals = [w * x + b - t for x, t in zip(xs, ts)]
        grad_w = 2 * sum(r * x for r, x in zip(residuals, xs)) / len(xs)
        grad_b = 2 * sum(residuals) / len(xs)
        first = first or (grad_w, grad_b)
        losses.append(sum(r * r for r in residuals) / len(xs))
        w, b = w - rate * grad_w, b - rate * grad_b
    return first, losses, w, b


def test_linear_regression_trains_without_numpy() -> None:
    result = run_without_numpy(LINEAR_PROGRAM)
    _skip_if_no_c(result)
    (grad_w, grad_b), losses, w, b = _linear_reference(30, 0.05)
    assert result["grads"][0] == [[pytest.approx(grad_w, rel=1e-5)]]
    assert result["grads"][1] == [pytest.approx(grad_b, rel=1e-5)]
    assert result["losses"] == pytest.approx(losses, rel=1e-4)
    assert result["losses"][-1] < result["losses"][0] / 10
    assert result["w"] == [[pytest.approx(w, rel=1e-4)]] and result["b"] == [pytest.approx(b, rel=1e-4)]
    assert (result["type"], result["shape"], result["dtype"]) == ("CArray", [1, 1], "float32")
    assert result["indexed"] == result["w"][0][0] and result["row"] == result["w"][0]


CLASSIFIER_PROGRAM = NEEDS_C + """
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [None, 2])
    labels = tf.placeholder(tf.int32, [None])
    w = tf.Variable(tf.random_uniform([2, 4], -1.0, 1.0, seed=3))
    v = tf.Variable(tf.random_uniform([4, 3], -1.0, 1.0, seed=4))
    b = tf.Variable(tf.zeros([3]))
    logits = tf.matmul(tf.nn.relu(tf.matmul(x, w)), v) + b
    sparse = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    dense = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.one_hot(labels, 3), logits=logits))
    train = tf.train.AdamOptimizer(0.05).minimize(sparse)
    feed = {x: [[1.0, 0.5], [0.2, 1.5], [1.2, 1.0]], labels: [0, 2, 1]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w0, v0, b0, first, first_dense = sess.run([w, v, b, sparse, dense], feed)
        losses = [float(sess.run([sparse, train], feed)[0]) for _ in range(40)]
    print(json.dumps({"w0": w0.tolist(), "v0": v0.tolist(), "b0": b0.tolist(), "first": float(first),
                      "first_dense": float(first_dense), "losses": losses}))
"""


def _cross_entropy(w: list, v: list, b: list, xs: list, labels: list) -> float:
    """mean over rows of logsumexp(z) - z[label], z = relu(x W) V + b."""
    total = 0.0
    for row, label in zip(xs, labels):
        hidden = [max(sum(row[i] * w[i][k] for i in range(2)), 0.0) for k in range(4)]
        z = [sum(hidden[k] * v[k][j] for k in range(4)) + b[j] for j in range(3)]
        top = max(z)
        total += top + math.log(sum(math.exp(v - top) for v in z)) - z[label]
    return total / len(xs)


def test_classifier_trains_with_adam_without_numpy() -> None:
    result = run_without_numpy(CLASSIFIER_PROGRAM)
    _skip_if_no_c(result)
    xs, labels = [[1.0, 0.5], [0.2, 1.5], [1.2, 1.0]], [0, 2, 1]
    assert all(-1.0 <= v < 1.0 for row in result["w0"] + result["v0"] for v in row) and result["b0"] == [0.0, 0.0, 0.0]
    expected = _cross_entropy(result["w0"], result["v0"], result["b0"], xs, labels)
    assert result["first"] == pytest.approx(expected, rel=1e-5)
    assert result["first_dense"] == pytest.approx(expected, rel=1e-5)
    assert result["losses"][0] == pytest.approx(expected, rel=1e-5)
    assert result["losses"][-1] < 0.7 * result["losses"][0]
