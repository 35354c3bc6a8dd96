"""SparseTensor features, shared embeddings and the vocabulary-file column: against hand-derived values and against
TensorFlow 2.15 (sparse_programs.py run by both: outputs, variable names, gradients, trained Estimators)."""

import numpy as np
import pytest
from estimator_oracle import SKIP_REASON, TF215_PYTHON, run_tf215, run_webflow
from sparse_programs import ESTIMATORS, SHARED, SPARSE_LAYER

import webflow
import webflow.compat.v1 as tf

fc = tf.feature_column
needs_tf215 = pytest.mark.skipif(not TF215_PYTHON, reason=SKIP_REASON)


def _run(features: dict, columns: list) -> np.ndarray:
    with tf.Graph().as_default():
        out = fc.input_layer(features(), columns)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            return session.run(out)


def _ids() -> dict:
    # row 0: ids 0 and 3; row 1: id 1; row 2: nothing
    return {"i": tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([0, 3, 1], tf.int64), [3, 2])}


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
def test_sparse_ids_embed_as_their_definition(combiner):
    table = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    column = fc.embedding_column(fc.categorical_column_with_identity("i", 4), 2, combiner=combiner,
                                 initializer=tf.constant_initializer(table))
    sums = np.array([table[0] + table[3], table[1], [0.0, 0.0]])
    divisor = {"mean": [[2.0], [1.0], [1.0]], "sqrtn": [[2 ** 0.5], [1.0], [1.0]], "sum": [[1.0]] * 3}[combiner]
    np.testing.assert_allclose(_run(_ids, [column]), sums / np.array(divisor), rtol=1e-6)


def test_sparse_ids_indicator_and_numeric_refusal():
    out = _run(_ids, [fc.indicator_column(fc.categorical_column_with_identity("i", 4))])
    np.testing.assert_array_equal(out, [[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0]])
    with pytest.raises(ValueError, match="numerical column must be a Tensor. SparseTensor is not supported. key: i"):
        _run(_ids, [fc.numeric_column("i")])


def test_vocabulary_file_column_reads_its_lines(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("x\ny\nz\n")
    features = {"w": np.array([["y"], ["q"], ["z"]])}
    column = fc.categorical_column_with_vocabulary_file("w", str(path), vocabulary_size=2, num_oov_buckets=1)
    assert column.num_buckets == 3
    out = _run(lambda: {k: tf.constant(v) for k, v in features.items()}, [fc.indicator_column(column)])
    listed = fc.categorical_column_with_vocabulary_list("w", ["x", "y"], num_oov_buckets=1)
    expected = _run(lambda: {k: tf.constant(v) for k, v in features.items()}, [fc.indicator_column(listed)])
    np.testing.assert_array_equal(out, expected)   # "z" is past vocabulary_size: out of vocabulary
    with pytest.raises(ValueError, match="Missing vocabulary_file in w."):
        fc.categorical_column_with_vocabulary_file("w", "")


def test_shared_embeddings_refuse_eager_execution_and_mismatched_columns():
    a, b = fc.categorical_column_with_identity("a", 4), fc.categorical_column_with_identity("b", 5)
    for make in (fc.shared_embedding_columns, webflow.feature_column.shared_embeddings):
        with pytest.raises(RuntimeError, match="shared_embedding_columns are not supported when eager execution"):
            make([a, b], 2)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="all categorical_columns must have the same number of buckets"):
            webflow.feature_column.shared_embeddings([a, b], 2)
        with pytest.raises(ValueError, match="Invalid dimension 0."):
            fc.shared_embedding_columns([a, b], 0)


def test_shared_table_gets_gradients_from_every_user():
    a, b = fc.categorical_column_with_identity("a", 3), fc.categorical_column_with_identity("b", 3)
    with tf.Graph().as_default():
        shared = fc.shared_embedding_columns([a, b], 2, combiner="sum", initializer=tf.ones_initializer())
        features = {"a": tf.constant([[0], [2]], tf.int64), "b": tf.constant([[2], [2]], tf.int64)}
        out = fc.input_layer(features, shared)
        (table,) = tf.global_variables()
        (grad,) = tf.gradients(tf.reduce_sum(out), [table])
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            grad = session.run(tf.convert_to_tensor(grad))
    assert table.name == "input_layer/a_b_shared_embedding/embedding_weights:0"
    # id 0 once (a), id 2 once from a and twice from b; each use adds a row of ones
    np.testing.assert_array_equal(grad, [[1, 1], [0, 0], [3, 3]])


def _compare(got, expected, where):
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            _compare(got[key], expected[key], f"{where}/{key}")
    elif isinstance(expected, str) or (isinstance(expected, list) and expected and isinstance(expected[0], str)):
        assert got == expected, where
    elif isinstance(expected, list) and expected and isinstance(expected[0], (dict, list)) and not np.asarray(
            expected, dtype=object).dtype.kind == "f":
        assert len(got) == len(expected), where
        for index, (g, e) in enumerate(zip(got, expected)):
            _compare(g, e, f"{where}[{index}]")
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expected, np.float64), rtol=2e-5,
                                   atol=1e-6, err_msg=where)


@needs_tf215
@pytest.mark.parametrize("program", ["SPARSE_LAYER", "SHARED"])
def test_layers_match_tensorflow_2_15(program):
    source = {"SPARSE_LAYER": SPARSE_LAYER, "SHARED": SHARED}[program]
    expected = run_tf215(source)
    got = run_webflow(source.replace("import tensorflow as tf2", "import webflow as tf2"))
    _compare(got, expected, program)


@needs_tf215
@pytest.mark.parametrize("v1", [False, True])
def test_estimators_on_sparse_features_match_tensorflow_2_15(v1):
    source = f"V1 = {v1}\n" + ESTIMATORS
    expected = run_tf215(source, v1=v1)
    got = run_webflow(source.replace("import tensorflow as tf2", "import webflow as tf2"), v1=v1)
    _compare(got, expected, "estimators")


def test_contrib_sequence_input_layer_in_a_graph():
    contrib = tf.contrib.feature_column
    ids = contrib.sequence_categorical_column_with_identity("ids", 3)
    table = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default():
        features = {"ids": tf.SparseTensor([[0, 0], [0, 1], [1, 2]], tf.constant([2, 0, 1], tf.int64), [2, 3]),
                    "n": tf.SparseTensor([[0, 0], [0, 1], [1, 2]], [1.0, 2.0, 3.0], [2, 3])}
        out, length = contrib.sequence_input_layer(features, [
            fc.embedding_column(ids, 2, initializer=tf.constant_initializer(table)),
            contrib.sequence_numeric_column("n")])
        assert [v.name for v in tf.global_variables()] == ["sequence_input_layer/ids_embedding/embedding_weights:0"]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            out, length = session.run([out, length])
    # columns by name: ids_embedding (2 wide), then n (1 wide); a step without an entry is zeros
    expected = [[[4, 5, 1], [0, 1, 2], [0, 0, 0]], [[0, 0, 0], [0, 0, 0], [2, 3, 3]]]
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(length, [2, 3])
