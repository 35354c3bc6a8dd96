"""tf.TensorArray (and map_fn / scan / foldl / foldr on it) against real TensorFlow 2.21: values, static shapes and
run-time errors (type and message) of the same TF1 programs in both engines (tests/tf_subprocess.py); and a
TensorArray written in a while_loop whose tf.gradients match central differences (no TensorFlow needed)."""

import re

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

WRAP = """
T = tf.TensorArray
def build():
{body}
try:
    fetch = build()
    static = [str(t.shape) for t in (fetch if isinstance(fetch, list) else [fetch]) if hasattr(t, "shape")]
    with tf.Session() as sess:
        result = {{"value": sess.run(fetch), "static": static}}
except Exception as error:
    result = {{"error": type(error).__name__, "message": str(getattr(error, "message", error))}}
"""

PROGRAMS = {
    "stack_unwritten_zeros": "return T(tf.float32, 3).write(0, [1.0, 2.0]).stack()",
    "read_unwritten_known_shape": "return T(tf.float32, 3, element_shape=[2]).read(1)",
    "gather_concat": "t = T(tf.float32, 3, clear_after_read=False).unstack([[1., 2.], [3., 4.], [5., 6.]])\n"
                     "    return [t.gather([2, 0]), t.concat(), t.size()]",
    "scatter_split": "a = T(tf.float32, 4).scatter([3, 1], [[1.0], [2.0]]).gather([1, 3])\n"
                     "    b = T(tf.float32, 2, infer_shape=False).split([1.0, 2.0, 3.0], [1, 2]).read(1)\n"
                     "    return [a, b]",
    "dynamic_size": "t = T(tf.float32, 0, dynamic_size=True, element_shape=[]).write(2, 1.0).write(0, 3.0)\n"
                    "    return [t.stack(), t.size()]",
    "read_out_of_range": "return T(tf.float32, 3).write(0, 1.0).read(5)",
    "write_twice": "return T(tf.float32, 3).write(0, 1.0).write(0, 2.0).read(0)",
    "write_past_size": "return T(tf.float32, 3).write(3, 1.0).read(0)",
    "read_twice_cleared": "t = T(tf.float32, 3).write(0, 1.0)\n    return [t.read(0), t.read(0)]",
    "read_unwritten_unknown_shape": "return T(tf.float32, 3).read(2)",
    "stack_empty_unknown_shape": "return T(tf.float32, 0).stack()",
    "split_lengths_sum": "return T(tf.float32, 2).split([1.0, 2.0, 3.0], [1, 1]).read(1)",
    "split_lengths_count": "return T(tf.float32, 3).split([1.0, 2.0, 3.0], [1, 2]).read(1)",
    "unstack_too_many": "return T(tf.float32, 2).unstack([1.0, 2.0, 3.0]).read(1)",
    "inconsistent_shapes": "return T(tf.float32, 3).write(0, [1.0, 2.0]).write(1, [1.0]).stack()",
    "map_fn_scan_fold": "x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])\n"
                        "    return [tf.map_fn(lambda r: r * 2.0, x), tf.scan(lambda a, e: a + e, x),\n"
                        "            tf.scan(lambda a, e: a * e, x, initializer=tf.ones([2]), reverse=True),\n"
                        "            tf.foldl(lambda a, e: a - e, x), tf.foldr(lambda a, e: a * 0.5 + e, x),\n"
                        "            tf.map_fn(lambda r: tf.cast(r, tf.int32), x, dtype=tf.int32)]",
    "cond_returns_arrays": "t = T(tf.float32, 2)\n"
                           "    t = tf.cond(tf.constant(False), lambda: t.write(0, [1.0]), lambda: t.write(0, [2.0]))\n"
                           "    return t.write(1, [3.0]).stack()",
    "map_fn_unknown_length": "x = tf.placeholder_with_default([[1.0, 2.0], [3.0, 4.0]], [None, 2])\n"
                             "    return [tf.map_fn(lambda r: tf.reduce_sum(r), x), tf.scan(lambda a, e: a + e, x)]",
}


def _source(key: str) -> str:
    return WRAP.format(body="    " + PROGRAMS[key])


def _normal(message: str) -> str:
    """The message's first line, without the array's name (TensorFlow numbers its arrays differently)."""
    return re.sub(r"TensorArray \S+: ", "TensorArray A: ", message.strip().splitlines()[0])


@pytest.fixture(scope="module")
def tensorflow_results():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({key: _source(key) for key in PROGRAMS})


@pytest.mark.parametrize("key", PROGRAMS)
def test_matches_tensorflow(key, tensorflow_results):
    expected, got = tensorflow_results[key], run_webflow(_source(key))
    if "error" in expected:
        assert got.get("error") == expected["error"], got
        tf_lines = [_normal(line) for line in expected["message"].splitlines() if line.strip()]
        assert _normal(got["message"]) in tf_lines, (got["message"], expected["message"])
        return
    assert "error" not in got, got
    assert got["static"] == expected["static"]
    for mine, theirs in zip(got["value"] if isinstance(got["value"], list) else [got["value"]],
                            expected["value"] if isinstance(expected["value"], list) else [expected["value"]]):
        np.testing.assert_allclose(np.asarray(mine), np.asarray(theirs))


LOOP = """
x = tf.placeholder(tf.float64, [5, 2])
w = tf.placeholder(tf.float64, [2, 2])
inputs = tf.TensorArray(tf.float64, 5).unstack(x)
def body(t, h, out):
    h = tf.sigmoid(tf.matmul(tf.reshape(inputs.read(t), [1, 2]), w) * h + 0.5)
    return t + 1, h, out.write(t, tf.reshape(h, [2]) * tf.cast(t + 1, tf.float64))
_, h, out = tf.while_loop(lambda t, h, o: t < 5, body, [0, tf.ones([1, 2], tf.float64), tf.TensorArray(tf.float64, 5)])
loss = tf.reduce_sum(tf.sin(out.stack())) + tf.reduce_sum(h * h)
grads = tf.gradients(loss, [x, w])
with tf.Session() as sess:
    result = [sess.run(loss, {x: xv, w: wv}), sess.run(grads, {x: xv, w: wv})]
"""


def test_gradient_through_while_loop_matches_central_differences():
    rng = np.random.default_rng(3)
    values = [rng.uniform(-1, 1, (5, 2)), rng.uniform(-1, 1, (2, 2))]

    def run(xv, wv):
        return run_webflow(f"xv, wv = np.array({xv.tolist()!r}), np.array({wv.tolist()!r})\n" + LOOP)

    _, grads = run(*values)
    for index, value in enumerate(values):
        numeric = np.zeros_like(value)
        for position in np.ndindex(value.shape):
            plus = [v.copy() for v in values]
            minus = [v.copy() for v in values]
            plus[index][position] += 1e-6
            minus[index][position] -= 1e-6
            numeric[position] = (run(*plus)[0] - run(*minus)[0]) / 2e-6
        np.testing.assert_allclose(np.asarray(grads[index]), numeric, atol=1e-7, rtol=1e-6)


RANDOM_LOOP = """
tf.set_random_seed(2)
x = tf.placeholder(tf.float64, [4, 3])
inputs = tf.TensorArray(tf.float64, 4).unstack(x)
def body(t, o):
    return t + 1, o.write(t, inputs.read(t) * tf.random_uniform([3], dtype=tf.float64, seed=7))
_, o = tf.while_loop(lambda t, o: t < 4, body, [0, tf.TensorArray(tf.float64, 4)])
y = o.stack()
w = np.arange(12.0).reshape(4, 3) + 1
g = tf.gradients(tf.reduce_sum(y * w), x)[0]
xv = np.random.RandomState(0).uniform(0.5, 1.5, (4, 3))
with tf.Session() as sess:
    result = [sess.run([y, g], {x: xv}) for _ in range(2)]
"""


def test_a_random_op_in_a_loop_body_is_differentiated_with_each_steps_draw():
    """y_t = x_t * u_t with u_t drawn at step t: dy/dx_t must use u_t (= y_t / x_t), not another step's draw;
    the next run draws new numbers."""
    runs = run_webflow(RANDOM_LOOP)
    xv, w = np.random.RandomState(0).uniform(0.5, 1.5, (4, 3)), np.arange(12.0).reshape(4, 3) + 1
    for y, grad in runs:
        np.testing.assert_allclose(np.asarray(grad), w * np.asarray(y) / xv, rtol=1e-12)
    assert len({tuple(np.round(np.asarray(y)[:, 0], 12)) for y, _ in runs}) == 2


TWO_GRADIENT_CALLS = """
x = tf.placeholder(tf.float64, [4, 3])
out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.reshape(x, [1, 4, 3]), dtype=tf.float64)
first = tf.gradients(tf.reduce_sum(out), x)[0]
second = tf.gradients(tf.reduce_sum(out), x)[0]
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    xv = np.random.RandomState(1).randn(4, 3)
    result = [sess.run(first, {x: xv}), sess.run(second, {x: xv})]
"""


def test_a_second_gradients_call_through_the_loop_gets_the_same_gradient():
    """The second tf.gradients (scope gradients_1) finds the gradient arrays its loop body writes."""
    first, second = run_webflow(TWO_GRADIENT_CALLS)
    assert np.abs(np.asarray(first)).max() > 0.01
    np.testing.assert_array_equal(np.asarray(first), np.asarray(second))
