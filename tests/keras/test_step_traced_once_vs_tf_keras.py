"""tf_keras traces its train / test / predict function once per fit, evaluate and predict: its input is an iterator
whose batch dimension is None, so the partial last batch, a later fit or evaluate with another batch size,
`train_on_batch` and `predict_on_batch` all run the same graph. webflow's steps take a batch dimension of None too
(keras/step_inputs.py). The oracle is tf_keras itself (oracle venv): the same program counts the traces with
`experimental_get_tracing_count()` of `model.train_function` / `test_function` / `predict_function` and trains with
Dropout, a momentum SGD and a callback that halves the learning rate each epoch, from seeded initial weights; the
counts agree exactly and the losses and weights within float32 tolerance. A multi-input functional model and a
masking LSTM are traced once too."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, run_programs_on_both

from webflow import keras
from webflow.keras.sparse_batches import take_rows

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Run by both libraries: `tf` is webflow or tensorflow, `keras` webflow.keras or tf_keras.
PROGRAM = """
keras.backend.clear_session()
tf.random.set_seed(1)   # Dropout's masks: TF's seeds for a traced function's random ops
rs = np.random.RandomState(0)
x, y = rs.rand(10, 3).astype(np.float32), rs.rand(10, 1).astype(np.float32)
model = keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,)), keras.layers.Dropout(0.5),
                          keras.layers.Dense(1)])
model.set_weights([rs.uniform(-0.8, 0.8, w.shape).astype(np.float32) for w in model.get_weights()])
model.compile(keras.optimizers.SGD(0.1, momentum=0.9), "mse")
halve = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0, callbacks=[halve])   # 4, 4, 2
counts = {"fit": model.train_function.experimental_get_tracing_count()}
model.fit(x, y, batch_size=3, epochs=1, shuffle=False, verbose=0)
model.train_on_batch(x[:5], y[:5])
counts["fit, fit and train_on_batch"] = model.train_function.experimental_get_tracing_count()
evaluated = [model.evaluate(x, y, batch_size=4, verbose=0), model.evaluate(x, y, batch_size=3, verbose=0),
             model.test_on_batch(x[:2], y[:2])]
counts["evaluate"] = model.test_function.experimental_get_tracing_count()
predicted = [model.predict(x, batch_size=4, verbose=0), model.predict_on_batch(x[:1])]
counts["predict"] = model.predict_function.experimental_get_tracing_count()
result = {"counts": counts, "history": history.history, "weights": model.get_weights(), "evaluated": evaluated,
          "predicted": predicted}
"""


@needs_tf
def test_steps_are_traced_as_often_as_tf_keras() -> None:
    both = run_programs_on_both({"program": PROGRAM})
    ours, theirs = both["ours"]["program"], both["theirs"]["program"]
    # the first fit: traced twice (its first trace makes the momentum slots), then never again
    # predict_on_batch's batch is (x,), predict's x itself (tf_keras's adapters): traced apart
    assert ours["counts"] == theirs["counts"] == {"fit": 2, "fit, fit and train_on_batch": 2, "evaluate": 1,
                                                   "predict": 2}
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


# *_on_batch give tf_keras's function a batch of known shape; reduce_retracing makes a second size's trace general
ON_BATCH = """
rs = np.random.RandomState(1)
x, y = rs.rand(10, 3).astype(np.float32), rs.rand(10, 1).astype(np.float32)
def make():
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,)), keras.layers.Dense(1)])
    model.compile(keras.optimizers.SGD(0.1, momentum=0.9), "mse")
    return model
counts = []
model = make()
model.predict(x, batch_size=4, verbose=0)
counts.append(model.predict_function.experimental_get_tracing_count())
for n in (1, 2, 3, 3):
    model.predict_on_batch(x[:n])
    counts.append(model.predict_function.experimental_get_tracing_count())
model = make()
for n in (3, 5, 2):
    model.train_on_batch(x[:n], y[:n])
    counts.append(model.train_function.experimental_get_tracing_count())
model.fit(x, y, batch_size=4, verbose=0)
counts.append(model.train_function.experimental_get_tracing_count())
for n in (3, 5, 2):
    model.test_on_batch(x[:n], y[:n])
    counts.append(model.test_function.experimental_get_tracing_count())
model.evaluate(x, y, batch_size=4, verbose=0)
counts.append(model.test_function.experimental_get_tracing_count())
model = make()
for n in (1, 2, 3):
    model.predict_on_batch(x[:n])
    counts.append(model.predict_function.experimental_get_tracing_count())
model.predict(x, batch_size=4, verbose=0)
counts.append(model.predict_function.experimental_get_tracing_count())
result = {"counts": counts}
"""


@needs_tf
def test_on_batch_calls_are_traced_as_often_as_tf_keras() -> None:
    both = run_programs_on_both({"program": ON_BATCH})
    ours, theirs = both["ours"]["program"], both["theirs"]["program"]
    assert ours["counts"] == theirs["counts"] == [1, 2, 3, 3, 3, 2, 3, 3, 3, 1, 2, 2, 2, 1, 2, 2, 3]


# A dataset's batches: traced for its element_spec, None where padded_batch's lengths differ
DATASET = """
keras.backend.clear_session()
rs = np.random.RandomState(0)
sequences = [rs.randint(1, 9, rs.randint(2, 9)).astype(np.int64) for _ in range(40)]
labels = rs.randint(0, 2, 40).astype(np.float32)
dataset = tf.data.Dataset.from_generator(lambda: zip(sequences, labels), output_signature=(
    tf.TensorSpec([None], tf.int64), tf.TensorSpec([], tf.float32))).padded_batch(6)
model = keras.Sequential([keras.layers.Embedding(10, 4, mask_zero=True), keras.layers.GlobalAveragePooling1D(),
                          keras.layers.Dense(1)])
model.compile(keras.optimizers.Adam(0.01), keras.losses.BinaryCrossentropy(from_logits=True))
model.fit(dataset, epochs=2, verbose=0)
model.evaluate(dataset, verbose=0)
model.predict(dataset, verbose=0)
result = {"counts": [f.experimental_get_tracing_count()
                     for f in (model.train_function, model.test_function, model.predict_function)]}
"""


@needs_tf
def test_padded_batches_of_a_dataset_are_traced_once() -> None:
    both = run_programs_on_both({"program": DATASET})
    ours, theirs = both["ours"]["program"], both["theirs"]["program"]
    assert ours["counts"] == theirs["counts"] == [2, 1, 1]   # the first fit's two: Adam's slots (and the weights)


def test_multi_input_model_is_traced_once() -> None:
    keras.backend.clear_session()
    left, right = keras.Input((3,), name="left"), keras.Input((2,), name="right")
    joined = keras.layers.Concatenate()([left, right])
    model = keras.Model([left, right], keras.layers.Dense(2)(joined))
    model.compile("sgd", "mse")
    rs = np.random.RandomState(3)
    x = [rs.rand(7, 3).astype(np.float32), rs.rand(7, 2).astype(np.float32)]
    model.fit(x, rs.rand(7, 2).astype(np.float32), batch_size=3, epochs=2, verbose=0)
    predicted = model.predict(x, batch_size=2, verbose=0)
    assert model.train_function.experimental_get_tracing_count() == 1   # plain SGD: no slots to make
    assert model.predict_function.experimental_get_tracing_count() == 1
    # predictions made batch by batch with the one trace equal a single eager call on all the rows
    np.testing.assert_allclose(predicted, model(x).numpy(), rtol=1e-6, atol=1e-7)


def test_masking_lstm_is_traced_once() -> None:
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Embedding(5, 3, mask_zero=True, input_length=4), keras.layers.LSTM(2),
                              keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    ids = np.array([[1, 2, 0, 0], [3, 0, 0, 0], [4, 4, 4, 1], [2, 3, 0, 0], [1, 0, 0, 0]], np.int64)
    model.fit(ids, np.ones((5, 1), np.float32), batch_size=2, epochs=2, verbose=0)
    assert model.train_function.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(model.predict(ids, batch_size=2, verbose=0), model(ids).numpy(), rtol=1e-6, atol=1e-7)
    assert model.predict_function.experimental_get_tracing_count() == 1


def test_rows_of_a_sparse_tensor_are_renumbered_in_order() -> None:
    import webflow as wf
    sparse = wf.sparse.SparseTensor(indices=[[0, 0], [0, 1], [2, 0]], values=np.array([10, 11, 12], np.int64),
                                    dense_shape=[3, 2])
    rows = take_rows(sparse, np.array([2, 0]))   # the example of keras/sparse_batches.py, worked by hand
    assert rows.indices.numpy().tolist() == [[0, 0], [1, 0], [1, 1]]
    assert rows.values.numpy().tolist() == [12, 10, 11]
    assert rows.dense_shape.numpy().tolist() == [2, 2]
    empty = take_rows(sparse, slice(1, 2))   # row 1 holds nothing
    assert empty.indices.numpy().shape == (0, 2) and empty.dense_shape.numpy().tolist() == [1, 2]
