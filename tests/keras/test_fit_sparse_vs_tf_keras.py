"""`fit` / `evaluate` / `predict` on a SparseTensor feature (DenseFeatures over a categorical column) against tf_keras
(oracle venv): the same program, from the same seeded initial weights, gives the same losses, metrics, weights,
evaluation and predictions within float32 tolerance, with the rows in order and shuffled (tf_keras batches sparse
data through `from_tensor_slices(...).shuffle(n).batch(b)`: keras/sparse_batches.py), and traces its steps as
often as tf_keras (once for every batch size, the partial last batch included). `validation_split` on sparse data
is tf_keras's ValueError."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, run_programs_on_both

import webflow as wf
from webflow import keras

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Run by both libraries: `tf` is webflow or tensorflow, `keras` webflow.keras or tf_keras. 23 rows of 1-3 ids.
PROGRAM = """
keras.backend.clear_session()
rs = np.random.RandomState(0)
n = 23
indices = [[row, k] for row in range(n) for k in range(1 + row % 3)]
ids = tf.sparse.SparseTensor(indices=indices, values=rs.randint(0, 6, len(indices)).astype(np.int64),
                             dense_shape=[n, 3])
y = (rs.rand(n, 1) > 0.5).astype(np.float32)
fc = tf.feature_column
category = fc.categorical_column_with_identity("a", 6)
model = keras.Sequential([keras.layers.DenseFeatures([fc.indicator_column(category),
                                                      fc.embedding_column(category, 3)]),
                          keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
model({"a": ids})
rng = np.random.RandomState(7)
model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()])
model.compile(keras.optimizers.Adam(0.01), keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=["binary_accuracy"])
tf.random.set_seed(11)   # the shuffle's seed: the first eager op seed drawn from here
history = model.fit({"a": ids}, y, batch_size=5, epochs=4, shuffle=SHUFFLE, verbose=0)
result = {"history": history.history, "weights": model.get_weights(),
          "evaluate": model.evaluate({"a": ids}, y, batch_size=4, verbose=0),
          "predict": model.predict({"a": ids}, batch_size=6, verbose=0),
          "traces": [f.experimental_get_tracing_count()
                     for f in (model.train_function, model.test_function, model.predict_function)]}
"""


@pytest.fixture(scope="module")
def both() -> dict:
    programs = {name: f"SHUFFLE = {shuffle}\n" + PROGRAM for name, shuffle in (("ordered", False),
                                                                               ("shuffled", True))}
    return run_programs_on_both(programs)


@needs_tf
@pytest.mark.parametrize("name", ["ordered", "shuffled"])
def test_fit_on_a_sparse_feature_matches_tf_keras(both: dict, name: str) -> None:
    ours, theirs = both["ours"][name], both["theirs"][name]
    assert ours["traces"] == theirs["traces"] == [2, 1, 1]   # Adam's slots made by the first trace, then reused
    assert_close(ours, theirs, name, rtol=1e-5, atol=1e-6)


def test_validation_split_of_sparse_data_is_a_value_error() -> None:
    keras.backend.clear_session()
    column = wf.feature_column.indicator_column(wf.feature_column.categorical_column_with_identity("a", 3))
    model = keras.Sequential([keras.layers.DenseFeatures([column]), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    ids = wf.sparse.SparseTensor(indices=[[0, 0], [1, 0]], values=np.array([1, 2], np.int64), dense_shape=[2, 1])
    with pytest.raises(ValueError, match="`validation_split` is only supported for Tensors or NumPy arrays, found "
                                         "following types in the input: .*SparseTensor"):
        model.fit({"a": ids}, np.zeros((2, 1), np.float32), validation_split=0.5, verbose=0)
