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
    from webflow.backends.c import library as c_library
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


def run_with_numpy(program: str) -> dict:
    """The same program in a child Python that has NumPy (the reference kernels)."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1")
    env.pop("WEBFLOW_BACKEND", None)
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(program)], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# The TF1 Deep-MNIST tutorial's CNN, built with tf.layers (a smaller width), on random 28x28 "images".
CNN_PROGRAM = NEEDS_C + """
    import random
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.set_random_seed(1)
    rng = random.Random(0)
    images = [[rng.random() for _ in range(784)] for _ in range(8)]
    labels = [[1.0 if j == i % 10 else 0.0 for j in range(10)] for i in range(8)]
    x = tf.placeholder(tf.float32, [None, 784])
    y_ = tf.placeholder(tf.float32, [None, 10])
    training = tf.placeholder_with_default(False, [])
    h = tf.reshape(x, [-1, 28, 28, 1])
    h = tf.layers.conv2d(h, 4, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.conv2d(h, 8, 5, padding="same", activation=tf.nn.relu)
    h = tf.layers.max_pooling2d(h, 2, 2)
    h = tf.layers.flatten(h)
    h = tf.layers.dense(h, 32, activation=tf.nn.relu,
                        kernel_initializer=tf.truncated_normal_initializer(stddev=0.1),
                        bias_initializer=tf.constant_initializer(0.1))
    h = tf.layers.dropout(h, rate=0.4, training=training)
    logits = tf.layers.dense(h, 10)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    train = tf.train.AdamOptimizer(1e-3).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    feed = {x: images, y_: labels}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first_logits, first_loss = sess.run([logits, loss], feed)
        losses = [float(first_loss)]
        for _ in range(3):
            sess.run(train, {x: images, y_: labels, training: True})
            losses.append(float(sess.run(loss, feed)))
        final_logits, final_accuracy = sess.run([logits, accuracy], feed)
    print(json.dumps({"losses": losses, "first_logits": first_logits.tolist(), "logits": final_logits.tolist(),
                      "accuracy": float(final_accuracy), "labels": labels}))
"""


def _argmax(row: list) -> int:
    return row.index(max(row))


def test_tf1_cnn_with_layers_trains_without_numpy_as_with_numpy() -> None:
    result = run_without_numpy(CNN_PROGRAM)
    _skip_if_no_c(result)
    reference = run_with_numpy(CNN_PROGRAM)
    _skip_if_no_c(reference)
    # same seeds -> the same initial weights and dropout masks: the runs agree up to float32 summation order
    assert result["first_logits"] == [pytest.approx(row, abs=1e-5) for row in reference["first_logits"]]
    assert result["losses"] == pytest.approx(reference["losses"], rel=1e-5)
    assert result["losses"][-1] < result["losses"][0]
    # accuracy = mean(argmax(logits) == argmax(labels)), recomputed here from the fetched logits
    hits = [_argmax(z) == _argmax(t) for z, t in zip(result["logits"], result["labels"])]
    assert result["accuracy"] == pytest.approx(sum(hits) / len(hits))


ARRAY_OPS_PROGRAM = NEEDS_C + """
    import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.set_random_seed(3)
    x = tf.Variable(tf.reshape(tf.range(6.0), [2, 3]))
    fetches = {
        "truncated": tf.truncated_normal([5, 7], stddev=0.1), "normal": tf.random_normal([9]),
        "normal64": tf.random_normal([5], dtype=tf.float64),
        "transpose": tf.transpose(tf.reshape(tf.range(24), [2, 3, 4]), [2, 0, 1]),
        "strided": tf.reshape(tf.range(24.0), [2, 3, 4])[1:, ::-1, tf.newaxis, 2],
        "tile": tf.tile(tf.constant([[1, 2]]), [2, 3]), "pad": tf.pad(tf.ones([2, 2]), [[1, 0], [0, 2]]),
        "argmax": tf.argmax(tf.constant([[1.0, 3, 3], [7, 0, 1]]), 0), "argmin": tf.argmin([[3, 1], [0, 5]], 1),
        "concat": tf.concat([tf.ones([2, 1]), tf.zeros([2, 2])], 1),
        "stack": tf.stack([tf.range(3), tf.range(3, 6)], 1),
        "unstack": tf.unstack(tf.reshape(tf.range(6), [2, 3]), axis=1), "pow": tf.pow([1.5, -2.0], [2.0, 3.0]),
        "equal": tf.equal([[1, 2]], [[1], [2]]), "less_equal": tf.less_equal([1.0, 2.0, 3.0], 2.0),
        "where": tf.where([True, False, True], tf.range(3.0), -tf.range(3.0)),
        "slice": tf.slice(tf.reshape(tf.range(12), [3, 4]), [1, 1], [2, -1]),
        "one_hot": tf.one_hot([2, 0], 3), "constant_init": tf.constant_initializer([1.0, 2.0])([2, 2]),
        "grad": tf.gradients(tf.reduce_sum(tf.transpose(tf.concat([x[:, 1:], tf.tile(x, [1, 2])], 1)) ** 2.0), x)[0],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(fetches)
    print(json.dumps({k: [a.tolist() for a in v] if isinstance(v, list) else v.tolist() for k, v in values.items()}))
"""


def test_array_ops_and_random_initializers_match_numpy() -> None:
    result = run_without_numpy(ARRAY_OPS_PROGRAM)
    _skip_if_no_c(result)
    reference = run_with_numpy(ARRAY_OPS_PROGRAM)
    assert result.keys() == reference.keys()
    for name, value in reference.items():  # the same Philox stream and Box-Muller: identical numbers
        assert result[name] == value, name


EAGER_PROGRAM = NEEDS_C + """
    import webflow as wf
    wf.random.set_seed(5)
    w = wf.Variable(wf.random.truncated_normal([3, 2], stddev=0.5))
    b = wf.Variable(wf.zeros([2]))
    x = wf.constant([[1.0, 2.0, 0.5], [0.0, -1.0, 2.0]])
    y = wf.constant([0, 1])
    w0 = w.numpy().tolist()
    with wf.GradientTape() as tape:
        logits = wf.matmul(x, w) + b
        loss = wf.reduce_mean(wf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    grad_w, grad_b = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * grad_w)
    b.assign_sub(0.1 * grad_b)
    print(json.dumps({"w0": w0, "loss": float(loss), "grad_w": grad_w.numpy().tolist(),
                      "grad_b": grad_b.numpy().tolist(), "w": w.numpy().tolist(), "b": b.numpy().tolist()}))
"""


def _softmax_rows(w: list, b: list, xs: list) -> list:
    rows = []
    for row in xs:
        z = [sum(row[i] * w[i][j] for i in range(3)) + b[j] for j in range(2)]
        top = max(z)
        exps = [math.exp(v - top) for v in z]
        rows.append([e / sum(exps) for e in exps])
    return rows


def test_eager_gradient_tape_step_without_numpy() -> None:
    result = run_without_numpy(EAGER_PROGRAM)
    _skip_if_no_c(result)
    xs, labels, w0 = [[1.0, 2.0, 0.5], [0.0, -1.0, 2.0]], [0, 1], result["w0"]
    probs = _softmax_rows(w0, [0.0, 0.0], xs)
    # L = mean(-log p[label]); dL/dz = (p - onehot) / n; dL/dW = x^T dL/dz; dL/db = sum over rows of dL/dz
    dz = [[(p - (1.0 if j == t else 0.0)) / 2 for j, p in enumerate(row)] for row, t in zip(probs, labels)]
    grad_w = [[sum(xs[r][i] * dz[r][j] for r in range(2)) for j in range(2)] for i in range(3)]
    grad_b = [sum(dz[r][j] for r in range(2)) for j in range(2)]
    loss = -sum(math.log(row[t]) for row, t in zip(probs, labels)) / 2
    assert all(abs(v) < 1.0 for row in w0 for v in row)  # truncated at 2 standard deviations of 0.5
    assert result["loss"] == pytest.approx(loss, rel=1e-5)
    assert result["grad_w"] == [pytest.approx(row, abs=1e-6) for row in grad_w]
    assert result["grad_b"] == pytest.approx(grad_b, abs=1e-6)
    assert result["w"] == [pytest.approx([w0[i][j] - 0.1 * grad_w[i][j] for j in range(2)], abs=1e-6)
                           for i in range(3)]
    assert result["b"] == pytest.approx([-0.1 * g for g in grad_b], abs=1e-6)
