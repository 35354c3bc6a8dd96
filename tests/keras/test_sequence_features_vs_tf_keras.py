"""`keras.experimental.SequenceFeatures` and sequence feature columns against tf_keras (oracle venv), and
`keras.layers.DenseFeatures` on SparseTensor features: the same program (PROGRAM) runs in both libraries from the
same weights: sequence inputs and lengths of every sequence column kind, gradients, weight names, an RNN masked by
the lengths, and TensorFlow's errors for misused columns (the message inside tf_keras's wrapping)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Run by both libraries: `tf` is webflow or tensorflow; OUT is a folder for the vocabulary file.
PROGRAM = """result = {}
fc = tf.feature_column
vocab_path = os.path.join(OUT, "words.txt")
with open(vocab_path, "w") as f:
    f.write("a\\nb\\nc\\n")
def features():
    return {
        "ids": tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
                                      tf.constant([1, 3, 2, 0, 0, 1], tf.int64), [3, 3]),
        "w": tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 0], [2, 2]], tf.constant(["a", "b", "c", "a", "zz"]),
                                    [3, 4]),
        "h": tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 0]], tf.constant(["cat", "dog", "emu", "gnu"]),
                                    [3, 2]),
        "n": tf.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [2, 0], [2, 1], [2, 2], [2, 3],
                                     [2, 4]], [1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11.], [3, 6]),
    }
ids = fc.sequence_categorical_column_with_identity("ids", 4)
words = fc.sequence_categorical_column_with_vocabulary_list("w", ["a", "b"], num_oov_buckets=1)
filed = fc.sequence_categorical_column_with_vocabulary_file("w", vocab_path, vocabulary_size=2)
hashed = fc.sequence_categorical_column_with_hash_bucket("h", 5)
def normalize(sp):   # TF hands the SparseTensor to normalizer_fn
    return tf.sparse.SparseTensor(sp.indices, sp.values * 2.0 - 1.0, sp.dense_shape)
numbers = fc.sequence_numeric_column("n", shape=(2,), normalizer_fn=normalize)
groups = {
    "ids": [fc.embedding_column(ids, 2), fc.indicator_column(ids)],
    "words": [fc.embedding_column(words, 3, combiner="sqrtn"), fc.indicator_column(words)],
    "filed": [fc.indicator_column(filed)],
    "hashed": [fc.embedding_column(hashed, 2, combiner="sum")],
    "numbers": [numbers],
}
for name, columns in groups.items():
    tf.keras.backend.clear_session()
    layer = tf.keras.experimental.SequenceFeatures(columns)
    out, length = layer(features())
    rng = np.random.RandomState(1)
    layer.set_weights([rng.uniform(-1, 1, w.shape).astype(np.float32) for w in layer.get_weights()])
    with tf.GradientTape() as tape:
        out, length = layer(features())
        loss = tf.reduce_sum(out * tf.cast(tf.range(tf.size(out)), tf.float32)[None] [0][:1] + out * out)
    grads = tape.gradient(loss, layer.trainable_weights)
    result[name] = {"out": out.numpy().tolist(), "length": length.numpy().tolist(), "dtype": length.dtype.name,
                    "names": [w.name for w in layer.weights],
                    "grads": [tf.convert_to_tensor(g).numpy().tolist() for g in grads]}

# an RNN over the sequence input, masked by the lengths
tf.keras.backend.clear_session()
layer = tf.keras.experimental.SequenceFeatures([fc.embedding_column(ids, 2), numbers])
seq, length = layer(features())
rnn = tf.keras.layers.SimpleRNN(3)
rnn(seq, mask=tf.sequence_mask(length))
rng = np.random.RandomState(2)
for part in (layer, rnn):
    part.set_weights([rng.uniform(-1, 1, w.shape).astype(np.float32) for w in part.get_weights()])
seq, length = layer(features())
result["rnn"] = rnn(seq, mask=tf.sequence_mask(length)).numpy().tolist()

# DenseFeatures on SparseTensor features (eager)
tf.keras.backend.clear_session()
plain = fc.categorical_column_with_vocabulary_list("w", ["a", "b", "c"])
dense = tf.keras.layers.DenseFeatures([fc.embedding_column(plain, 2, combiner="mean"), fc.indicator_column(plain),
                                       fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 4))])
dense(features())
dense.set_weights([np.arange(6, dtype=np.float32).reshape(3, 2)])
with tf.GradientTape() as tape:
    value = dense(features())
    loss = tf.reduce_sum(value * value)
result["dense"] = {"value": value.numpy().tolist(), "names": [w.name for w in dense.weights],
                   "grads": [tf.convert_to_tensor(g).numpy().tolist() for g in tape.gradient(loss, dense.weights)]}

config = tf.keras.experimental.SequenceFeatures([fc.embedding_column(ids, 2), fc.indicator_column(filed),
                                                 fc.embedding_column(hashed, 2),
                                                 fc.sequence_numeric_column("n", shape=(2,))]).get_config()
config["feature_columns"] = [dict(c, config={k: v for k, v in c["config"].items() if k != "initializer"})
                             for c in config["feature_columns"]]   # initializers: compared elsewhere
result["config"] = config

def message(call):
    try:
        call()
    except (ValueError, TypeError, tf.errors.InvalidArgumentError) as error:
        return [type(error).__name__, str(error).split("\\n\\nCall arguments")[0].split("\\n\\n")[-1].split("\\n")[0]]
    return None
cat = fc.categorical_column_with_identity("ids", 4)
raw = fc.sequence_numeric_column("n", shape=(2,))
result["errors"] = [
    message(lambda: tf.keras.layers.DenseFeatures([fc.embedding_column(ids, 2)])(features())),
    message(lambda: tf.keras.layers.DenseFeatures([fc.indicator_column(words)])(features())),
    message(lambda: tf.keras.experimental.SequenceFeatures([fc.numeric_column("x")])),
    message(lambda: tf.keras.experimental.SequenceFeatures([fc.indicator_column(cat)])(features())),
    message(lambda: tf.keras.experimental.SequenceFeatures([fc.embedding_column(cat, 2)])(features())),
    message(lambda: tf.keras.experimental.SequenceFeatures([raw])({"n": tf.constant([[1.0, 2.0]])})),
    message(lambda: tf.keras.experimental.SequenceFeatures([fc.embedding_column(ids, 2), raw])(
        {"ids": features()["ids"], "n": tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 2])})),
    message(lambda: tf.keras.experimental.SequenceFeatures([fc.indicator_column(hashed), raw])(features())),
    message(lambda: tf.keras.layers.DenseFeatures([fc.numeric_column("n")])(features())),
]
"""


def _compare(got: object, expected: object, where: str) -> None:
    if isinstance(expected, dict):
        assert sorted(got) == sorted(expected), where
        for key in expected:
            _compare(got[key], expected[key], f"{where}/{key}")
    elif isinstance(expected, str) or (isinstance(expected, list) and expected and not isinstance(
            expected[0], (int, float, list))):
        assert got == expected, where   # names, error messages
    elif where.endswith("errors"):
        assert got == expected, where
    else:
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expected, np.float64), rtol=1e-5,
                                   atol=1e-6, err_msg=where)


@needs_tf
def test_sequence_features_match_tf_keras(tmp_path: object) -> None:
    import os
    scope = {"tf": webflow, "np": np, "os": os, "OUT": str(tmp_path)}
    exec(PROGRAM, scope)  # noqa: S102 - the test's own program text
    ours = json.loads(json.dumps(scope["result"]))   # tuples as lists, as the oracle's JSON has them
    theirs = run_oracle(f"import os\nimport numpy as np\nimport tensorflow as tf\nOUT = {str(tmp_path)!r}\n" + PROGRAM)
    _compare(ours, theirs, "result")


def test_sequence_embedding_is_the_rows_of_the_table() -> None:
    fc = webflow.feature_column
    ids = fc.sequence_categorical_column_with_identity("ids", 3)
    table = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    layer = webflow.keras.experimental.SequenceFeatures(
        [fc.embedding_column(ids, 2, initializer=webflow.keras.initializers.Constant(table))])
    # row 0: ids 2, 0; row 1: nothing at step 0, id 1 at step 2; row 2: empty
    sparse = webflow.sparse.SparseTensor([[0, 0], [0, 1], [1, 2]], webflow.constant([2, 0, 1], webflow.int64), [3, 3])
    out, length = layer({"ids": sparse})
    zero = [0.0, 0.0]
    np.testing.assert_array_equal(out.numpy(), [[table[2], table[0], zero], [zero, zero, table[1]], [zero] * 3])
    np.testing.assert_array_equal(length.numpy(), [2, 3, 0])
    assert length.dtype == webflow.int64
