"""tf.nn extras against real TensorFlow: the same TF1 programs run under TensorFlow (a subprocess, see
tests/tf_subprocess.py) and under webflow.compat.v1.

- dropout: bit-identical masks and values for graph-level and op-level seeds, keep_prob / rate / tensor rate /
  rate 0 (which still takes an op seed) / noise_shape, across runs and sessions; TF's node names and shapes;
- fused_batch_norm: y, running mean and Bessel-corrected running variance, exponential averaging, gradients;
- activations and their gradients; top_k and in_top_k with ties; errors (types and messages).
Skipped unless WEBFLOW_TF_PYTHON names a Python with TensorFlow.
"""


import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, child_result, run_tensorflow, run_webflow

from webflow.backends.numpy import random_distributions
from webflow.framework import random_seed

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
EXACT = bool(random_distributions._LIBM)

PROGRAMS = {
    "dropout_seeds_names_shapes": """
tf.set_random_seed(1)
x = tf.placeholder(tf.float32, [None, 4], name="x")
outs = [tf.nn.dropout(x, keep_prob=0.7), tf.nn.dropout(x, rate=0.3, seed=5), tf.nn.dropout(x, rate=0.0)]
rate = tf.placeholder(tf.float32, [])
outs += [tf.nn.dropout(x, rate=rate), tf.nn.dropout(x, rate=0.5, noise_shape=[1, 4]),
         tf.nn.dropout(x, rate=0.25, noise_shape=[6, 1], name="drop")]
outs.append(tf.random_uniform([3]))  # takes the next implicit op seed: rate=0 must have taken one too
names = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
feed = {x: np.arange(1, 25, dtype=np.float32).reshape(6, 4), rate: 0.25}
with tf.Session() as s:
    runs = [s.run(outs, feed), s.run(outs, feed)]
with tf.Session() as s:
    runs.append(s.run(outs, feed))
result = [names, [t.name for t in outs], [str(t.shape) for t in outs], runs]
""",
    "dropout_op_seed_only_float64": """
x = tf.constant(np.linspace(-1, 1, 40).reshape(5, 8))
d = tf.nn.dropout(x, rate=0.6, seed=11)
with tf.Session() as s:
    result = [s.run(d), s.run(d)]
""",
    "fused_batch_norm": """
rng = np.random.default_rng(0)
x = tf.constant(rng.standard_normal((2, 3, 2, 3)).astype(np.float32))
scale = tf.constant([1.0, 2.0, 0.5]); offset = tf.constant([0.1, -0.2, 0.3])
mean = tf.constant([0.5, -0.5, 0.0]); var = tf.constant([1.0, 2.0, 3.0])
train = tf.nn.fused_batch_norm(x, scale, offset)
infer = tf.nn.fused_batch_norm(x, scale, offset, mean, var, epsilon=0.01, is_training=False)
blend = tf.nn.fused_batch_norm(x, scale, offset, mean, var, exponential_avg_factor=0.1)
nchw = tf.nn.fused_batch_norm(tf.transpose(x, [0, 3, 1, 2]), scale, offset, data_format="NCHW")
dy = tf.constant(rng.standard_normal((2, 3, 2, 3)).astype(np.float32))
grads = [tf.gradients(train[0], [x, scale, offset], dy), tf.gradients(infer[0], [x, scale, offset], dy)]
with tf.Session() as s:
    values = s.run([list(train), list(infer), list(blend), list(nchw), grads, train[0].op.outputs[3:5]])
result = [values, [str(t.shape) for t in train[0].op.outputs[:5]], train[0].name, tf.gradients(train[0], x)[0].op.type]
""",
    "activations_and_gradients": """
x = tf.constant(np.linspace(-7, 7, 29).astype(np.float32))
fs = [tf.nn.relu6, tf.nn.elu, tf.nn.selu, tf.nn.leaky_relu, tf.nn.softplus, tf.nn.softsign,
      lambda v: tf.nn.leaky_relu(v, alpha=0.1), lambda v: tf.nn.l2_normalize(v, 0)]
ys = [f(x) for f in fs]
gs = [tf.gradients(y, x)[0] for y in ys]
g2 = [tf.gradients(tf.gradients(f(x), x)[0], x)[0] for f in (tf.nn.elu, tf.nn.selu, tf.nn.softplus)]
xb = tf.constant(np.linspace(-2, 2, 12).reshape(4, 3).astype(np.float32))
bn = tf.nn.batch_normalization(xb, tf.constant([0.1, 0.2, 0.3]), tf.constant([1.0, 0.5, 2.0]),
                               tf.constant([0.0, 1.0, -1.0]), tf.constant([2.0, 1.0, 0.5]), 1e-3)
xw = tf.nn.xw_plus_b(xb, tf.constant(np.arange(6).reshape(3, 2).astype(np.float32)), tf.constant([1.0, -1.0]))
with tf.Session() as s:
    result = s.run([ys, gs, g2, bn, xw])
""",
    "top_k_and_in_top_k_ties": """
p = tf.placeholder(tf.float32, [None, None])
t = tf.placeholder(tf.int32, [None])
k = tf.placeholder(tf.int32, [])
top = tf.nn.top_k(p, k)
hit = tf.nn.in_top_k(p, t, k)
preds = np.array([[1, 2, 2, 3], [np.nan, 1, 1, 1], [np.inf, 1, 1, 1], [1, 1, 1, 1], [0, 5, 5, 5]], np.float32)
ties = np.array([[1, 3, 3, 2, 3], [5, 4, 5, 4, 6]], np.float32)
with tf.Session() as s:
    result = [[s.run(hit, {p: preds, t: [1, 0, 0, 3, 2], k: kk}) for kk in (0, 1, 2, 3, 9)],
              [list(s.run(top, {p: ties, k: kk})) for kk in (1, 3, 5)],
              [top.values.name, top.indices.name, hit.name, str(tf.nn.top_k(tf.zeros([2, 5]), 2).values.shape)]]
""",
    "errors": """
def attempt(build):
    try:
        build()
        return None
    except Exception as error:
        kind = next(t for t in (TypeError, ValueError, Exception) if isinstance(error, t))  # ShapeError: a ValueError
        return [kind.__name__, str(error).split(" for '{{node")[0]]
x = tf.placeholder(tf.float32, [None, 4], name="x")
result = [attempt(f) for f in [
    lambda: tf.nn.dropout(x, rate=1.0), lambda: tf.nn.dropout(x, keep_prob=0.0), lambda: tf.nn.dropout(x),
    lambda: tf.nn.dropout(tf.placeholder(tf.int32, [3]), rate=0.5),
    lambda: tf.nn.dropout(x, rate=tf.placeholder(tf.float32, [2])),
    lambda: tf.nn.dropout(x, rate=tf.placeholder(tf.float64, [])),
    lambda: tf.nn.dropout(x, keep_prob=0.5, rate=0.5), lambda: tf.nn.dropout(x, rate="a"),
    lambda: tf.nn.top_k(x, 5), lambda: tf.nn.top_k(tf.placeholder(tf.float32, []), 1),
    lambda: tf.nn.in_top_k(tf.placeholder(tf.float32, [3]), tf.placeholder(tf.int32, [3]), 1),
    lambda: tf.nn.in_top_k(tf.placeholder(tf.float64, [3, 4]), tf.placeholder(tf.int32, [3]), 1),
    lambda: tf.nn.fused_batch_norm(x, tf.ones([4]), tf.zeros([4])),
    lambda: tf.nn.fused_batch_norm(tf.placeholder(tf.float32, [2, 3, 3, 2]), tf.ones([2]), tf.zeros([2]),
                                   is_training=False),
    lambda: tf.nn.fused_batch_norm(tf.placeholder(tf.float64, [2, 3, 3, 2]), tf.ones([2], tf.float64),
                                   tf.zeros([2], tf.float64)),
    lambda: tf.nn.elu(tf.placeholder(tf.int32, [2])), lambda: tf.nn.l2_normalize(x, axis=0, dim=1),
]]
""",
}

TF2_DROPOUT = """
out = []
x = tf.constant(np.arange(1, 13, dtype=np.float32).reshape(3, 4))
tf.random.set_seed(3)
out.append(tf.nn.dropout(x, 0.4, seed=1))
out.append(tf.nn.dropout(x, 0.4, seed=1))
out.append(tf.nn.dropout(x, 0.5))
out.append(tf.nn.dropout(x, 0.0))
out.append(tf.nn.dropout(x, 0.5))
tf.random.set_seed(3)
out.append(tf.nn.dropout(x, 0.4, seed=1))
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


@pytest.fixture(scope="module")
def tensorflow_results():
    return run_tensorflow(PROGRAMS)


@pytest.fixture(autouse=True)
def _fresh_random_state():
    random_seed.set_global_seed(None)
    yield
    random_seed.set_global_seed(None)


def same(got, expected, exact=True, where=""):
    """Equal structure; numbers equal bit for bit (exact) or to float32 round-off."""
    if isinstance(expected, (list, tuple)) and expected and isinstance(expected[0], str) or isinstance(expected, str):
        assert got == expected, where
        return
    if isinstance(expected, list) and not _rectangular(expected):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got} vs {expected}"
        for i, (g, e) in enumerate(zip(got, expected)):
            same(g, e, exact, f"{where}[{i}]")
        return
    got, expected = np.asarray(got, dtype=object if expected is None else None), np.asarray(expected)
    assert got.shape == expected.shape, f"{where}: shape {got.shape} vs TensorFlow {expected.shape}"
    if exact or expected.dtype.kind != "f":
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        np.testing.assert_allclose(got, expected, rtol=2e-6, atol=2e-6, err_msg=where)


def _rectangular(value):
    try:
        return np.asarray(value).dtype != object
    except ValueError:
        return False


def test_dropout_is_bit_identical_with_tensorflow_names_and_shapes(tensorflow_results):
    expected = tensorflow_results["dropout_seeds_names_shapes"]
    got = run_webflow(PROGRAMS["dropout_seeds_names_shapes"])
    assert got[0] == expected[0]                     # every node: name and type, in creation order
    assert got[1] == expected[1] and got[2] == expected[2]
    same(got[3], expected[3], exact=EXACT, where="values")


def test_dropout_op_seed_only_float64(tensorflow_results):
    same(run_webflow(PROGRAMS["dropout_op_seed_only_float64"]), tensorflow_results["dropout_op_seed_only_float64"],
         exact=EXACT)


def test_dropout_eager_tf2_seeds():
    import webflow as wf

    expected = child_result(_TF2_DRIVER, TF2_DROPOUT)
    scope = {"tf": wf, "np": np}
    exec(TF2_DROPOUT, scope)
    same([np.asarray(v).tolist() for v in scope["result"]], expected, exact=EXACT)


def test_fused_batch_norm_matches_tensorflow(tensorflow_results):
    expected = tensorflow_results["fused_batch_norm"]
    got = run_webflow(PROGRAMS["fused_batch_norm"])
    same(got[0], expected[0], exact=False, where="values")
    assert got[1:] == expected[1:]


def test_activations_and_gradients_match_tensorflow(tensorflow_results):
    same(run_webflow(PROGRAMS["activations_and_gradients"]), tensorflow_results["activations_and_gradients"],
         exact=False)


def test_top_k_and_in_top_k_ties_match_tensorflow(tensorflow_results):
    expected = tensorflow_results["top_k_and_in_top_k_ties"]
    got = run_webflow(PROGRAMS["top_k_and_in_top_k_ties"])
    assert got == expected


def test_error_types_and_messages_match_tensorflow(tensorflow_results):
    # webflow has no bfloat16, so its allowed-dtype lists leave it out
    expected = [[e[0], e[1].replace("bfloat16, ", "")] for e in tensorflow_results["errors"]]
    got = [[g[0], g[1].replace("bfloat16, ", "")] for g in run_webflow(PROGRAMS["errors"])]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"case {i}: webflow {g} vs TensorFlow {e}"
