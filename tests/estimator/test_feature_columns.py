"""tf.feature_column outputs: against their definitions (hand-derived) and against TensorFlow 2.15."""

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from programs import FEATURE_COLUMNS

import webflow.compat.v1 as tf

fc = tf.feature_column


def _layer(values: dict, columns: list, init: bool = True) -> np.ndarray:
    with tf.Graph().as_default():
        features = {key: tf.constant(value) for key, value in values.items()}
        out = fc.input_layer(features, columns)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            return session.run(out)


def test_numeric_and_bucketized_follow_their_definitions():
    x = np.array([[-1.0], [2.0], [3.5], [10.0]], np.float32)
    out = _layer({"x": x}, [fc.numeric_column("x"), fc.bucketized_column(fc.numeric_column("x"), [0.0, 3.5])])
    # sorted by name: "x" then "x_bucketized"; bucket i holds boundaries[i-1] <= x < boundaries[i]
    expected = np.concatenate([x, np.eye(3, dtype=np.float32)[[0, 1, 2, 2]]], axis=1)
    np.testing.assert_array_equal(out, expected)


def test_rank1_feature_is_one_column_and_int_feature_is_cast():
    out = _layer({"k": np.array([3, 4], np.int64)}, [fc.numeric_column("k")])
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[3.0], [4.0]])


def test_vocabulary_and_identity_indicators():
    values = {"c": np.array([["b"], ["zz"], ["a"]]), "i": np.array([[2], [0], [2]], np.int64)}
    out = _layer(values, [fc.indicator_column(fc.categorical_column_with_vocabulary_list("c", ["a", "b"])),
                          fc.indicator_column(fc.categorical_column_with_identity("i", 3))])
    expected = [[0, 1, 0, 0, 1], [0, 0, 1, 0, 0], [1, 0, 0, 0, 1]]  # out-of-vocabulary -> all zeros
    np.testing.assert_array_equal(out, expected)


def test_identity_default_value_replaces_out_of_range_ids():
    out = _layer({"i": np.array([[5], [1]], np.int64)},
                 [fc.indicator_column(fc.categorical_column_with_identity("i", 3, default_value=0))])
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 1, 0]])


def test_hash_bucket_is_string_to_hash_bucket_fast():
    words = np.array([["cat"], ["dog"], ["emu"]])
    out = _layer({"h": words}, [fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 9))])
    with tf.Graph().as_default(), tf.Session() as session:
        buckets = session.run(tf.strings.to_hash_bucket_fast(words[:, 0], 9))
    np.testing.assert_array_equal(out, np.eye(9)[buckets])


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
def test_embedding_combiners_on_multivalent_ids(combiner):
    table = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    ids = np.array([[0, 3], [1, -1], [-1, -1]], np.int64)  # -1: no id (TF drops it)
    column = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2, combiner=combiner,
                                 initializer=tf.constant_initializer(table))
    out = _layer({"i": ids}, [column])
    sums = np.array([table[0] + table[3], table[1], [0.0, 0.0]])
    counts = np.array([[2.0], [1.0], [1.0]])  # an empty row stays zero whatever the divisor
    divisor = {"mean": counts, "sqrtn": np.sqrt(counts), "sum": np.ones_like(counts)}[combiner]
    np.testing.assert_allclose(out, sums / divisor, rtol=1e-6)


def test_embedding_weights_variable_name_and_default_initializer_scale():
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        column = fc.embedding_column(fc.categorical_column_with_identity("i", 500), 4)
        fc.input_layer({"i": tf.constant([[1]], tf.int64)}, [column])
        (weights,) = tf.global_variables()
        assert weights.name == "input_layer/i_embedding/embedding_weights:0"
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            table = session.run(weights)
    assert np.abs(table).max() <= 2 * 0.5 + 1e-6  # truncated normal, stddev 1/sqrt(4)
    assert 0.35 < table.std() < 0.5


def test_errors_as_tensorflow_raises_them():
    with pytest.raises(ValueError, match="Duplicate feature column name"):
        _layer({"x": np.ones((1, 1), np.float32)}, [fc.numeric_column("x"), fc.numeric_column("x")])
    with pytest.raises(ValueError, match="must be a DenseColumn"):
        _layer({"i": np.ones((1, 1), np.int64)}, [fc.categorical_column_with_identity("i", 3)])
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("x"), [2.0, 1.0])
    with pytest.raises(ValueError, match="Duplicate keys in vocabulary_list"):
        fc.categorical_column_with_vocabulary_list("c", ["a", "a"])


@pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)
def test_every_column_matches_tensorflow_2_15():
    expected = run_tf215(FEATURE_COLUMNS)
    got = run_webflow(FEATURE_COLUMNS)
    assert got.keys() == expected.keys()
    for name in expected:
        assert got[name]["variables"] == expected[name]["variables"], name
        np.testing.assert_allclose(got[name]["value"], expected[name]["value"], rtol=1e-6, err_msg=name)
