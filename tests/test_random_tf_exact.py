"""Random ops give TensorFlow's numbers: the same programs run under real TensorFlow and under webflow.

TF1 programs (graph seed + op seeds, implicit op seeds, several runs, a second session) go through
tests/tf_subprocess.py; one TF2 eager program (`tf.random.set_seed(1); tf.random.normal([3])` ...)
through a small eager driver here. Values must be equal bit for bit (float log/sin/cos come from the
C library, as in TensorFlow's kernels; without one we allow a few ulps).
"""


import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result, run_tensorflow, run_webflow

from webflow.backends.numpy import random_distributions
from webflow.framework import random_seed

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
EXACT = bool(random_distributions._LIBM)

TF1_PROGRAMS = {
    "graph_and_op_seeds": """
tf.set_random_seed(42)
logits = np.log(np.array([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]], np.float32))
ops = dict(
    normal=tf.random_normal([3, 5]), normal_seeded=tf.random_normal([7], mean=2.0, stddev=3.0, seed=7),
    truncated=tf.truncated_normal([4, 9], seed=3), uniform=tf.random_uniform([6], -1.0, 2.0),
    uniform_default=tf.random_uniform([5]), uniform_scaled=tf.random_uniform([5], maxval=3.0),
    int32=tf.random_uniform([10], 0, 10, dtype=tf.int32), int64=tf.random_uniform([10], -5, 1000, dtype=tf.int64),
    shuffle=tf.random_shuffle(np.arange(10)), shuffle_rows=tf.random_shuffle(np.arange(12).reshape(6, 2)),
    multinomial=tf.multinomial(logits, 6, seed=1),
)
with tf.Session() as sess:
    runs = [sess.run(ops), sess.run(ops)]
with tf.Session() as sess:
    runs.append(sess.run(ops))
result = runs
""",
    "op_seed_only_and_dtypes": """
ops = dict(normal64=tf.random_normal([5], dtype=tf.float64, seed=1),
           truncated64=tf.truncated_normal([5], dtype=tf.float64, seed=2),
           uniform64=tf.random_uniform([5], dtype=tf.float64, seed=3),
           normal16=tf.random_normal([5], dtype=tf.float16, seed=4),
           uniform16=tf.random_uniform([5], dtype=tf.float16, seed=5), truncated=tf.truncated_normal([1001], seed=6),
           normal=tf.random_normal([2001], seed=6))
with tf.Session() as sess:
    result = [sess.run(ops), sess.run(ops)]
""",
    "partially_known_shape": """
tf.set_random_seed(3)
n = tf.placeholder(tf.int32, [])
x = tf.random_normal([n, 3])
y = tf.random_uniform(tf.stack([n, 2]), seed=9)
with tf.Session() as sess:
    result = [str(x.shape), str(y.shape), sess.run([x, y], {n: 4}), sess.run([x, y], {n: 2})]
""",
}

TF2_PROGRAM = """
out = []
tf.random.set_seed(1)
out.append(tf.random.normal([3]))
out.append(tf.random.normal([3]))
out.append(tf.random.uniform([4], seed=5))
out.append(tf.random.uniform([2, 2], seed=5))
out.append(tf.random.truncated_normal([5], seed=2))
out.append(tf.random.uniform([6], 0, 100, dtype=tf.int32))
out.append(tf.random.shuffle(tf.constant(np.arange(8))))
out.append(tf.random.categorical(tf.constant(np.log([[0.5, 0.25, 0.25]]).astype(np.float32)), 5))
tf.random.set_seed(1)
out.append(tf.random.normal([3]))
tf.random.set_seed(None)
out.append(tf.random.uniform([4], seed=5))
result = [o.numpy() for o in out]
"""

_TF2_DRIVER = r"""
import json, sys
import numpy as np
import tensorflow as tf
scope = {"tf": tf, "np": np}
exec(sys.stdin.read(), scope)
print("RESULT:" + json.dumps([np.asarray(v).tolist() for v in scope["result"]]))
"""


@pytest.fixture(autouse=True)
def _fresh_random_state():
    random_seed.set_global_seed(None)
    yield
    random_seed.set_global_seed(None)


def assert_same_numbers(got, expected, where=""):
    """Equal structure; equal numbers (bit for bit, or within a few float32 ulps without a C library)."""
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            assert_same_numbers(got[key], expected[key], f"{where}/{key}")
        return
    if isinstance(expected, str):
        assert got == expected, where
        return
    if isinstance(expected, list) and not _rectangular(expected):
        assert isinstance(got, list) and len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same_numbers(g, e, f"{where}[{i}]")
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, f"{where}: shape {got.shape} vs TensorFlow {expected.shape}"
    if EXACT or got.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        np.testing.assert_allclose(got, expected, rtol=4e-7, atol=1e-7, err_msg=where)


def _rectangular(value):
    """True when `value` is one numeric array (not a tuple of results of different shapes)."""
    try:
        return np.asarray(value).dtype.kind in "biuf"
    except ValueError:
        return False


@pytest.fixture(scope="module")
def tensorflow_results():
    return run_tensorflow(TF1_PROGRAMS)


@pytest.mark.parametrize("program", sorted(TF1_PROGRAMS))
def test_tf1_program_matches_tensorflow(program, tensorflow_results):
    assert_same_numbers(run_webflow(TF1_PROGRAMS[program]), tensorflow_results[program], program)


def test_consecutive_runs_differ_and_a_new_session_replays(tensorflow_results):
    runs = run_webflow(TF1_PROGRAMS["graph_and_op_seeds"])
    assert runs[0]["normal"] != runs[1]["normal"]
    assert runs[0] == runs[2]


def test_tf2_eager_matches_tensorflow():
    expected = child_result(_TF2_DRIVER, TF2_PROGRAM)

    import webflow as wf

    scope = {"tf": wf, "np": np}
    exec(TF2_PROGRAM, scope)
    got = [np.asarray(v).tolist() for v in scope["result"]]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert_same_numbers(g, e, f"eager value {i}")
