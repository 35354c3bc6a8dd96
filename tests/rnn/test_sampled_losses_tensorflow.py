"""Candidate samplers, sampled_softmax_loss, nce_loss and clip_by_global_norm against real TensorFlow 2.21.

The same TF1 source runs in both engines (tests/tf_subprocess.py). The samplers must return TensorFlow's very
ids for the same seeds (op seeds and the graph seed), run after run; the losses and their gradients then agree
to float32 rounding. Expected counts are float32 logs computed by different libm's: rtol 1e-6.
"""

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

SETUP = """
tf.set_random_seed(11)
rng = np.random.RandomState(0)
w = tf.constant(rng.randn(30, 4).astype("float32"))
b = tf.constant(rng.randn(30).astype("float32"))
x = tf.constant(rng.randn(3, 4).astype("float32"))
labels = tf.constant([[1, 2], [0, 5], [7, 3]], tf.int64)
def dense(grads):
    return [tf.convert_to_tensor(g) for g in grads]
"""

PROGRAMS = {
    "samplers_two_runs": """
a = tf.nn.log_uniform_candidate_sampler(labels, 2, 6, True, 20, seed=3)
r = tf.nn.log_uniform_candidate_sampler(labels, 2, 9, False, 20)
u = tf.random.uniform_candidate_sampler(labels, 2, 5, True, 10, seed=5)
hits = tf.nn.compute_accidental_hits(labels, a[0], 2)
with tf.Session() as sess:
    result = [sess.run([a, r, u, hits]) for _ in range(2)]
""",
    "losses_and_gradients": """
nce = tf.nn.nce_loss(w, b, labels, x, 8, 30, num_true=2)
ssm = tf.nn.sampled_softmax_loss(w, b, labels, x, 8, 30, num_true=2, seed=4)
ssm_hits_kept = tf.nn.sampled_softmax_loss(w, b, labels[:, :1], x, 10, 30, seed=5, remove_accidental_hits=False)
nce_hits_removed = tf.nn.nce_loss(w, b, labels, x, 12, 30, num_true=2, remove_accidental_hits=True)
total = tf.reduce_sum(nce) + tf.reduce_sum(ssm * ssm) + tf.reduce_sum(ssm_hits_kept) + tf.reduce_sum(nce_hits_removed)
grads = dense(tf.gradients(total, [w, b, x]))
with tf.Session() as sess:
    result = sess.run([nce, ssm, ssm_hits_kept, nce_hits_removed] + grads)
""",
    "clip_by_global_norm": """
t = [tf.constant([3.0, 4.0]), tf.constant([[12.0]]), None]
clipped, norm = tf.clip_by_global_norm(t, 6.5)
unclipped, big_norm = tf.clip_by_global_norm(t, 100.0)
inf_clipped, inf_norm = tf.clip_by_global_norm([tf.constant([1.0, np.inf])], 1.0)
nan_clipped, nan_norm = tf.clip_by_global_norm([tf.constant([1.0, np.nan]), tf.constant([2.0])], 1.0)
with tf.Session() as sess:
    result = sess.run([clipped[:2], norm, unclipped[:2], big_norm, inf_clipped, inf_norm, nan_clipped, nan_norm])
""",
}


@pytest.fixture(scope="module")
def tensorflow_results():
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({key: SETUP + source for key, source in PROGRAMS.items()})


def _flat(value):
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)) \
            and not _numeric(value):
        return [leaf for part in value for leaf in _flat(part)]
    return [value]


def _numeric(value) -> bool:
    try:
        return np.asarray(value, dtype=np.float64).dtype != object
    except (ValueError, TypeError):
        return False


@pytest.mark.parametrize("key", list(PROGRAMS))
def test_matches_tensorflow(key, tensorflow_results):
    got, expected = _flat(run_webflow(SETUP + PROGRAMS[key])), _flat(tensorflow_results[key])
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g, e = np.asarray(g, np.float64), np.asarray(e, np.float64)
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5, equal_nan=True)


def test_sampled_ids_are_exact(tensorflow_results):
    got = run_webflow(SETUP + PROGRAMS["samplers_two_runs"])
    expected = tensorflow_results["samplers_two_runs"]
    for run_got, run_expected in zip(got, expected):
        for sampler in range(3):
            assert run_got[sampler][0] == run_expected[sampler][0]
        assert run_got[3][:2] == run_expected[3][:2]
