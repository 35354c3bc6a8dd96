"""Op table rows for the stateful random ops, and their independent oracles.

The oracle for values is a scalar, pure-Python re-derivation of each distribution from TensorFlow's
documented recipe (random_distributions.h), on top of `philox4x32` checked against the Random123
known-answer vectors. (tests/test_random_tf_exact.py compares with real TensorFlow.) Each row uses
an op seed only, so the op's seeds are (DEFAULT_GRAPH_SEED, op seed) both eagerly and in a graph.
"""

import math
import struct

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.framework import random_seed
from webflow.framework.philox import philox4x32

GRAPH_SEED = random_seed.DEFAULT_GRAPH_SEED


@pytest.fixture(autouse=True)
def _fresh_random_state():
    random_seed.set_global_seed(None)
    yield
    random_seed.set_global_seed(None)


# --- Philox known answers (Random123's kat_vectors for philox4x32-10) --------------------------------
@pytest.mark.parametrize("key, counter, expected", [
    ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0xA4093822, 0x299F31D0), (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
])
def test_philox_known_answers(key, counter, expected):
    assert tuple(philox4x32(key, counter)) == expected


def test_vectorised_blocks_carry_across_words():
    """blocks_at() == the scalar function at counter + offset, including carries into higher words."""
    from webflow.framework.philox import PhiloxGenerator

    generator = PhiloxGenerator(5, (1 << 32) - 1)
    generator.counter += (1 << 32) - 2  # low word about to wrap
    offsets = [0, 1, 2, 3, 1 << 32, (1 << 33) + 7]
    got = generator.blocks_at(np.array(offsets, dtype=np.uint64))
    for row, offset in zip(got, offsets):
        value = generator.counter + offset
        words = tuple((value >> (32 * i)) & 0xFFFFFFFF for i in range(4))
        assert tuple(int(w) for w in row) == philox4x32(generator.key, words)


# --- scalar reference implementations -----------------------------------------------------------------
def words(seed2, count, start_block=0, seed=GRAPH_SEED):
    """The op's uint32 stream from block `start_block`, one scalar Philox call per block."""
    key = (seed & 0xFFFFFFFF, seed >> 32)
    out = []
    block = start_block
    while len(out) < count:
        counter = (seed2 << 64) + block
        out.extend(philox4x32(key, tuple((counter >> (32 * i)) & 0xFFFFFFFF for i in range(4))))
        block += 1
    return out[:count]


def unit_float(word):
    return np.float32(struct.unpack("<f", struct.pack("<I", (word & 0x7FFFFF) | 0x3F800000))[0]) - np.float32(1)


def box_muller(w0, w1):
    u1 = max(float(unit_float(w0)), 1e-7)
    theta = 2 * math.pi * float(unit_float(w1))
    radius = math.sqrt(-2 * math.log(u1))
    return radius * math.sin(theta), radius * math.cos(theta)


def ref_uniform(seed2, shape):
    return np.array([unit_float(w) for w in words(seed2, int(np.prod(shape)))], np.float32).reshape(shape)


def ref_normal(seed2, shape):
    n = int(np.prod(shape))
    stream = words(seed2, 2 * ((n + 1) // 2))
    values = [v for i in range(0, len(stream), 2) for v in box_muller(stream[i], stream[i + 1])]
    return np.array(values[:n], np.float32).reshape(shape)


def ref_truncated(seed2, shape):
    """Groups of 4 values; group g reads words from block 256 g, keeping |x| < 2."""
    n = int(np.prod(shape))
    values = []
    for group in range(-(-n // 4)):
        stream = iter(words(seed2, 64, start_block=256 * group))
        kept = []
        while len(kept) < 4:
            for value in box_muller(next(stream), next(stream)):
                if abs(value) < 2 and len(kept) < 4:
                    kept.append(value)
        values.extend(kept)
    return np.array(values[:n], np.float32).reshape(shape)


def ref_uniform_int(seed2, shape, low, high):
    return np.array([low + w % (high - low) for w in words(seed2, int(np.prod(shape)))], np.int32).reshape(shape)


def ref_shuffle(seed2, x):
    order = list(range(len(x)))
    for i, w in enumerate(words(seed2, len(x) - 1)):
        j = i + w % (len(x) - i)
        order[i], order[j] = order[j], order[i]
    return x[order]


def ref_categorical(seed2, logits, num_samples):
    stream = words(seed2, 2 * logits.shape[0] * num_samples)
    out = np.zeros((logits.shape[0], num_samples), np.int64)
    k = 0
    for row in range(logits.shape[0]):
        cdf = np.cumsum(np.exp(logits[row].astype(np.float64) - logits[row].max()))
        for j in range(num_samples):
            high, low = stream[k] & 0xFFFFF, stream[k + 1]
            u = struct.unpack("<d", struct.pack("<Q", (0x3FF << 52) | (high << 32) | low))[0] - 1.0
            out[row, j] = int(np.searchsorted(cdf, u * cdf[-1], side="right"))
            k += 2
    return out


# --- the table ------------------------------------------------------------------------------------
zeros = np.zeros((3, 5), np.float32)
ints = np.zeros((2, 7), np.int32)
logits = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], np.float32))

CASES = [
    OpCase("RandomUniform", lambda x: wf.random.uniform([3, 5], seed=1) + x, [zeros],
           lambda x: ref_uniform(1, (3, 5)) + x, grad=False),
    OpCase("RandomUniform_range", lambda x: wf.random.uniform([3, 5], -2.0, 3.0, seed=2) + x, [zeros],
           lambda x: ref_uniform(2, (3, 5)) * np.float32(5) + np.float32(-2) + x, grad=False),
    OpCase("RandomStandardNormal", lambda x: wf.random.normal([3, 5], seed=3) + x, [zeros],
           lambda x: ref_normal(3, (3, 5)) + x, grad=False),
    OpCase("RandomStandardNormal_mean_std", lambda x: wf.random.normal([3, 5], 1.5, 0.5, seed=4) + x, [zeros],
           lambda x: ref_normal(4, (3, 5)) * np.float32(0.5) + np.float32(1.5) + x, grad=False),
    OpCase("TruncatedNormal", lambda x: wf.random.truncated_normal([3, 5], seed=5) + x, [zeros],
           lambda x: ref_truncated(5, (3, 5)) + x, grad=False),
    OpCase("RandomUniformInt", lambda x: wf.random.uniform([2, 7], 3, 40, dtype=wf.int32, seed=6) + x, [ints],
           lambda x: ref_uniform_int(6, (2, 7), 3, 40) + x, grad=False),
    OpCase("RandomShuffle", lambda x: wf.random.shuffle(x, seed=7), [np.arange(9, dtype=np.float32)],
           lambda x: ref_shuffle(7, x), grad=False),
    OpCase("RandomShuffle_rows", lambda x: wf.random.shuffle(x, seed=8),
           [np.arange(12, dtype=np.float32).reshape(6, 2)], lambda x: ref_shuffle(8, x), grad=False),
    OpCase("Multinomial", lambda x: wf.random.categorical(x, 5, seed=9), [logits],
           lambda x: ref_categorical(9, x, 5), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_op(case):
    check_case(case)


@pytest.mark.parametrize("op_type", ["RandomStandardNormal", "TruncatedNormal", "RandomUniform", "RandomUniformInt",
                                     "RandomShuffle", "Multinomial"])
def test_random_ops_are_not_differentiable(op_type):
    from webflow.ops.registry import gradient_function

    class FakeOp:
        type = op_type
        graph = None

    assert gradient_function(FakeOp()) is None


# --- distributions vs analytic moments (an oracle independent of the bit recipes) ---------------------
N = 200_000


def test_uniform_moments_and_range():
    x = wf.random.uniform([N], -1.0, 3.0, seed=11).numpy()
    assert x.min() >= -1.0 and x.max() < 3.0
    assert abs(x.mean() - 1.0) < 0.02 and abs(x.var() - 16 / 12) < 0.02


def test_normal_moments():
    x = wf.random.normal([N], mean=2.0, stddev=3.0, seed=12).numpy().astype(np.float64)
    assert abs(x.mean() - 2.0) < 0.03 and abs(x.std() - 3.0) < 0.03
    z = (x - 2.0) / 3.0
    assert abs(np.mean(z**3)) < 0.03 and abs(np.mean(z**4) - 3.0) < 0.06  # skewness 0, kurtosis 3


def test_truncated_normal_bounds_and_moments():
    x = wf.random.truncated_normal([N], mean=1.0, stddev=0.5, seed=13).numpy().astype(np.float64)
    z = (x - 1.0) / 0.5
    assert np.abs(z).max() < 2.0 + 1e-6
    # N(0, 1) truncated to (-2, 2): variance 1 - 2 * 2 * phi(2) / (2 * Phi(2) - 1)
    phi2 = math.exp(-2.0) / math.sqrt(2 * math.pi)
    mass = math.erf(2 / math.sqrt(2))
    assert abs(z.mean()) < 0.01 and abs(z.var() - (1 - 4 * phi2 / mass)) < 0.01


def test_uniform_int_is_uniform_over_the_range():
    x = wf.random.uniform([N], 5, 15, dtype=wf.int64, seed=14).numpy()
    assert x.dtype == np.int64 and x.min() == 5 and x.max() == 14
    counts = np.bincount(x - 5, minlength=10)
    assert np.all(np.abs(counts / N - 0.1) < 0.005)


def test_categorical_frequencies_follow_softmax():
    probabilities = np.array([0.1, 0.2, 0.3, 0.4])
    samples = wf.random.categorical(np.log(probabilities)[None].astype(np.float32), N, seed=15).numpy()
    assert samples.shape == (1, N)
    np.testing.assert_allclose(np.bincount(samples[0], minlength=4) / N, probabilities, atol=0.005)


def test_categorical_never_picks_minus_infinity():
    logits = np.array([[0.0, -np.inf, 0.0]], np.float32)
    assert 1 not in wf.random.categorical(logits, 1000, seed=16).numpy()


def test_shuffle_is_a_permutation_of_rows():
    x = np.arange(40).reshape(20, 2)
    y = wf.random.shuffle(x, seed=17).numpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x)) and not np.array_equal(x, y)


# --- state: each eager call and each session run draws new numbers -----------------------------------
def test_eager_calls_continue_one_stream_until_set_seed():
    wf.random.set_seed(3)
    a, b = wf.random.uniform([4], seed=1).numpy(), wf.random.uniform([4], seed=1).numpy()
    assert not np.array_equal(a, b)
    wf.random.set_seed(3)
    np.testing.assert_array_equal(wf.random.uniform([4], seed=1).numpy(), a)


def test_session_runs_advance_and_sessions_restart():
    import webflow.compat.v1 as tf

    graph = wf.Graph()
    with graph.as_default():
        tf.set_random_seed(1)
        x = tf.random_normal([3])
        with tf.Session(graph=graph) as session:
            first, second = session.run(x), session.run(x)
        with tf.Session(graph=graph) as session:
            again = session.run(x)
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, again)


# --- gradients: random ops are constants to autodiff; mean/stddev still get gradients ----------------
def test_gradients_flow_through_mean_and_stddev_only():
    mean, stddev = wf.constant(1.0), wf.constant(2.0)
    with wf.GradientTape() as tape:
        tape.watch([mean, stddev])
        x = wf.random.normal([5], mean=mean, stddev=stddev, seed=18)
        loss = wf.reduce_sum(x)
    d_mean, d_stddev = tape.gradient(loss, [mean, stddev])
    assert float(d_mean.numpy()) == 5.0
    np.testing.assert_allclose(float(d_stddev.numpy()), np.sum((x.numpy() - 1.0) / 2.0), rtol=1e-5)


def test_graph_gradient_of_random_op_output_is_none():
    import webflow.compat.v1 as tf

    graph = wf.Graph()
    with graph.as_default():
        shape = tf.constant([3])
        x = tf.random_uniform(shape, seed=1)
        assert tf.gradients(x * 2.0, shape) == [None]
