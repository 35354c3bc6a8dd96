"""TF1 initializers: exact deterministic values, sample statistics against the analytic distributions,
and (with WEBFLOW_TF_PYTHON) TensorFlow's exact op names and seeded numbers."""

import math

import numpy as np
import pytest
from test_variable_scope import assert_same_as_tensorflow

import webflow.compat.v1 as tf
from webflow.ops import init_ops


def values(initializer, shape, dtype=tf.float32):
    """Calls the initializer eagerly and returns a NumPy array."""
    return np.asarray(initializer(shape, dtype=dtype).numpy())


# --- deterministic initializers -----------------------------------------------------------------------------
def test_zeros_ones_and_their_dtypes():
    assert values(tf.zeros_initializer(), [2, 3]).tolist() == [[0.0] * 3] * 2
    ones = values(tf.ones_initializer(), [2], dtype=tf.int32)
    assert ones.dtype == np.int32 and ones.tolist() == [1, 1]
    assert tf.zeros_initializer(dtype=tf.float64)([1]).dtype == tf.float64  # constructor dtype when call has none


def test_constant_reshapes_and_pads_with_the_last_value_like_tf1():
    assert values(tf.constant_initializer(7.0), [2, 2]).tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert values(tf.constant_initializer([1, 2, 3, 4]), [2, 2]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert values(tf.constant_initializer([1, 2]), [3]).tolist() == [1.0, 2.0, 2.0]
    assert values(tf.constant_initializer(np.arange(6).reshape(3, 2)), [2, 3]).tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(ValueError, match=r"^Too many elements provided. Takes at most 3, but got 4.$"):
        tf.constant_initializer([1, 2, 3, 4])([3])
    with pytest.raises(TypeError, match=r"^Expected Tensor's shape: \(3,\), but got \(2,\).$"):
        tf.constant_initializer([1, 2])([3], verify_shape=True)
    with pytest.raises(TypeError, match=r"^Invalid type for initial value=\{1: 2\} of type: dict. Expected Python "
                       r"scalar, list or tuple of values, or numpy.ndarray.$"):
        tf.constant_initializer({1: 2})


def test_configs_round_trip():
    cases = [
        (tf.zeros_initializer(), {"dtype": "float32"}),
        (tf.constant_initializer([1, 2]), {"value": [1, 2], "dtype": "float32"}),
        (tf.glorot_uniform_initializer(seed=3), {"seed": 3, "dtype": "float32"}),
        (tf.variance_scaling_initializer(), {"scale": 1.0, "mode": "fan_in", "distribution": "truncated_normal",
                                             "seed": None, "dtype": "float32"}),
        (tf.random_uniform_initializer(-1, 1, seed=2), {"minval": -1, "maxval": 1, "seed": 2, "dtype": "float32"}),
        (tf.truncated_normal_initializer(0.5, 2.0), {"mean": 0.5, "stddev": 2.0, "seed": None, "dtype": "float32"}),
    ]
    for initializer, config in cases:
        assert initializer.get_config() == config
        assert type(initializer).from_config(config).get_config() == config


def test_argument_errors():
    with pytest.raises(ValueError, match=r"^Argument `scale` must be a positive float. Received: 0$"):
        tf.variance_scaling_initializer(scale=0)
    with pytest.raises(ValueError, match=r"^Argument `mode` should be one of \('fan_in', 'fan_out', 'fan_avg'\). "
                       r"Received: x$"):
        tf.variance_scaling_initializer(mode="x")
    with pytest.raises(ValueError, match=r"^Argument `distribution` should be one of \('normal', uniform', "
                       r"'truncated_normal', 'untruncated_normal'\). Received: x$"):
        tf.variance_scaling_initializer(distribution="x")
    with pytest.raises(ValueError, match=r"^Argument `dtype` is expected to be floating point. "
                       r"Received: <dtype: 'int32'>.$"):
        tf.random_normal_initializer(dtype=tf.int32)
    with pytest.raises(ValueError, match=r"shape` must be at least two-dimensional. Received shape=\[3\]$"):
        tf.orthogonal_initializer()([3])


@pytest.mark.parametrize("shape, fans", [
    ([], (1, 1)), ([5], (5, 5)), ([3, 4], (3, 4)), ([3, 3, 2, 8], (3 * 3 * 2, 3 * 3 * 8)), ([5, 2, 7], (10, 35)),
])
def test_fans(shape, fans):
    assert init_ops.compute_fans(shape) == fans


def test_truncation_constant_is_the_std_of_a_unit_normal_cut_at_two():
    density, mass = math.exp(-2.0) / math.sqrt(2 * math.pi), math.erf(2 / math.sqrt(2))  # phi(2), P(|Z| < 2)
    assert math.sqrt(1 - 2 * 2 * density / mass) == pytest.approx(init_ops.TRUNCATED_NORMAL_STDDEV, abs=1e-15)


# --- random initializers: statistics vs the analytic distributions ---------------------------------------------
def assert_mean_and_std(sample, mean, std, rel=0.03):
    n = sample.size
    assert abs(sample.mean() - mean) < 5 * std / math.sqrt(n)
    assert sample.std() == pytest.approx(std, rel=rel)


def test_uniform_variance_scaling_family():
    shape = [200, 300]  # fan_in 200, fan_out 300
    cases = [
        (tf.glorot_uniform_initializer(seed=1), math.sqrt(6 / 500)),
        (tf.initializers.he_uniform(seed=1), math.sqrt(6 / 200)),
        (tf.initializers.lecun_uniform(seed=1), math.sqrt(3 / 200)),
        (tf.variance_scaling_initializer(3.0, "fan_out", "uniform", seed=1), math.sqrt(9 / 300)),
        (tf.uniform_unit_scaling_initializer(2.0, seed=1), 2.0 * math.sqrt(3 / 200)),
        (tf.random_uniform_initializer(-0.5, 1.5, seed=1), None),
    ]
    for initializer, limit in cases:
        sample = values(initializer, shape)
        low, high = (-limit, limit) if limit is not None else (-0.5, 1.5)
        assert sample.min() >= low and sample.max() < high
        assert sample.min() < low + 0.01 * (high - low) and sample.max() > high - 0.01 * (high - low)
        assert_mean_and_std(sample, (low + high) / 2, (high - low) / math.sqrt(12))


def test_normal_variance_scaling_family():
    shape = [400, 100]
    cases = [  # (initializer, std the samples must have, cut-off)
        (tf.glorot_normal_initializer(seed=2), math.sqrt(2 / 500), True),
        (tf.initializers.he_normal(seed=2), math.sqrt(2 / 400), True),
        (tf.initializers.lecun_normal(seed=2), math.sqrt(1 / 400), True),
        (tf.variance_scaling_initializer(2.0, "fan_avg", "untruncated_normal", seed=2), math.sqrt(2 / 250), False),
    ]
    for initializer, std, truncated in cases:
        sample = values(initializer, shape)
        assert_mean_and_std(sample, 0.0, std)
        cut = 2 * std / init_ops.TRUNCATED_NORMAL_STDDEV  # truncation at 2 sigma of the untruncated normal
        assert (np.abs(sample).max() <= cut) == truncated


def test_random_normal_and_truncated_normal():
    sample = values(tf.random_normal_initializer(1.0, 2.0, seed=3), [50000])
    assert_mean_and_std(sample, 1.0, 2.0)
    sample = values(tf.truncated_normal_initializer(1.0, 2.0, seed=3), [50000])
    assert np.all(np.abs(sample - 1.0) <= 4.0)
    assert_mean_and_std(sample, 1.0, 2.0 * init_ops.TRUNCATED_NORMAL_STDDEV)


def test_random_uniform_integers():
    sample = values(tf.random_uniform_initializer(0, 10, seed=4), [10000], dtype=tf.int32)
    assert sample.dtype == np.int32 and sample.min() == 0 and sample.max() == 9


def test_get_variable_defaults_to_glorot_uniform_under_initializer_ops(graph_mode_graph):
    with tf.variable_scope("dense"):
        kernel = tf.get_variable("kernel", [30, 20])
    scope = "dense/kernel/Initializer/random_uniform"
    assert [op.name for op in graph_mode_graph.get_operations()][:7] == [
        f"{scope}/{name}" for name in ("shape", "min", "max", "RandomUniform", "sub", "mul")] + [scope]
    with tf.Session() as session:
        session.run(kernel.initializer)
        sample = session.run(kernel)
    limit = math.sqrt(6 / 50)
    assert np.abs(sample).max() <= limit and sample.std() == pytest.approx(limit / math.sqrt(3), rel=0.1)


@pytest.fixture
def graph_mode_graph():
    tf.disable_v2_behavior()
    yield tf.get_default_graph()


def test_orthogonal_has_orthonormal_columns_or_rows():
    tall = values(tf.orthogonal_initializer(gain=2.0, seed=5), [6, 2, 3])  # a 12 x 3 matrix
    np.testing.assert_allclose(tall.reshape(12, 3).T @ tall.reshape(12, 3), 4.0 * np.eye(3), atol=1e-5)
    wide = values(tf.orthogonal_initializer(seed=5), [3, 7])
    np.testing.assert_allclose(wide @ wide.T, np.eye(3), atol=1e-5)


def test_identity():
    assert values(tf.initializers.identity(gain=2.0), [2, 3]).tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]


# --- the same script under real TensorFlow: op names and seeded values ----------------------------------------
INITIALIZER_SCRIPT = """
    tf.set_random_seed(7)
    initializers = {
        "default": None,
        "zeros": tf.zeros_initializer(), "ones": tf.ones_initializer(), "const": tf.constant_initializer([1, 2]),
        "glorot_u": tf.glorot_uniform_initializer(seed=1), "glorot_n": tf.glorot_normal_initializer(seed=2),
        "scaling_u": tf.variance_scaling_initializer(2.0, "fan_out", "uniform", seed=3),
        "scaling_n": tf.variance_scaling_initializer(0.5, "fan_avg", "untruncated_normal", seed=4),
        "normal": tf.random_normal_initializer(1.0, 2.0, seed=5),
        "truncated": tf.truncated_normal_initializer(-1.0, 0.5, seed=6),
        "uniform": tf.random_uniform_initializer(-3.0, 3.0, seed=7),
        "unit_scaling": tf.uniform_unit_scaling_initializer(1.5, seed=8),
        "he": tf.initializers.he_normal(seed=9), "lecun": tf.initializers.lecun_uniform(seed=10),
    }
    variables = []
    with tf.variable_scope("layer"):
        for name, initializer in initializers.items():
            variables.append(tf.get_variable(name, [3, 4], initializer=initializer))
        variables.append(tf.get_variable("ints", [5], dtype=tf.int32,
                                         initializer=tf.random_uniform_initializer(0, 100, seed=11)))
        variables.append(tf.get_variable("doubles", [2, 2], dtype=tf.float64,
                                         initializer=tf.glorot_uniform_initializer(seed=12)))
    for op in tf.get_default_graph().get_operations():
        print(op.name, op.type)
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        for variable, value in zip(variables, session.run(variables)):
            print(variable.name, value.dtype, value.tolist())
"""


def test_names_and_seeded_values_like_tensorflow(tmp_path):
    assert_same_as_tensorflow(INITIALIZER_SCRIPT, "graph", tmp_path)


def test_orthogonal_and_identity_like_tensorflow(tmp_path):
    script = """
        with tf.variable_scope("m"):
            tall = tf.get_variable("tall", [4, 3], initializer=tf.orthogonal_initializer(gain=2.0, seed=1))
            wide = tf.get_variable("wide", [2, 5], initializer=tf.orthogonal_initializer(seed=2))
            eye = tf.get_variable("eye", [2, 3], initializer=tf.initializers.identity(gain=3.0))
        print([op.name + ":" + op.type for op in tf.get_default_graph().get_operations()])
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            for value in session.run([tall, wide, eye]):
                print(value.round(5).tolist())
    """
    assert_same_as_tensorflow(script, "graph", tmp_path)
