"""`fit(sample_weight=, class_weight=)`, `evaluate(sample_weight=)`, `train_on_batch` / `test_on_batch` with
weights, against tf_keras (oracle venv): the same program, from the same seeded initial weights, gives the same
weighted losses, (unweighted) accuracies, weights after training and evaluations within float32 tolerance; with
the rows in order, shuffled, and shuffled within batches (where tf_keras gives the weights their own permutation,
as x and y: keras/data_order.py), and with a validation split that takes its share of the weights."""

from __future__ import annotations

import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, run_programs_on_both

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# Run by both libraries: `tf` is webflow or tensorflow, `keras` webflow.keras or tf_keras; SHUFFLE and OPTIONS given.
PROGRAM = """
keras.backend.clear_session()
tf.random.set_seed(2)
rs = np.random.RandomState(0)
x, y = rs.rand(22, 4).astype(np.float32), rs.randint(0, 3, 22)
sw = rs.uniform(0.2, 2.0, 22).astype(np.float32)
model = keras.Sequential([keras.layers.Dense(5, activation="relu", input_shape=(4,)), keras.layers.Dense(3)])
model.set_weights([rs.uniform(-0.7, 0.7, w.shape).astype(np.float32) for w in model.get_weights()])
model.compile(keras.optimizers.SGD(0.1, momentum=0.5), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
options = {"sample_weight": sw, "class_weight": {0: 1.0, 1: 3.0, 2: 0.5}}
history = model.fit(x, y, batch_size=6, epochs=3, verbose=0, shuffle=SHUFFLE,
                    **{key: options[key] for key in OPTIONS}, validation_split=SPLIT)
result = {"history": history.history, "weights": model.get_weights(),
          "evaluate": model.evaluate(x, y, sample_weight=sw, batch_size=5, verbose=0),
          "train_on_batch": model.train_on_batch(x[:4], y[:4], sample_weight=sw[:4]),
          "test_on_batch": model.test_on_batch(x[:3], y[:3], sample_weight=sw[:3])}
"""

# (tf_keras 2.21's class-weight map fails when sample_weight is given too: "Cannot convert a partially known
# TensorShape (None,) to a Tensor"; webflow multiplies the two, as that map means to)
CASES = {"sample_weight": (True, ("sample_weight",), 0.0), "class_weight": (True, ("class_weight",), 0.0),
         "sample_weight, batch shuffle, split": ("'batch'", ("sample_weight",), 0.25),
         "class_weight, in order, split": (False, ("class_weight",), 0.25)}


@pytest.fixture(scope="module")
def both() -> dict:
    return run_programs_on_both({name: f"SHUFFLE, OPTIONS, SPLIT = {shuffle}, {options!r}, {split}\n" + PROGRAM
                                 for name, (shuffle, options, split) in CASES.items()})


@needs_tf
@pytest.mark.parametrize("name", list(CASES))
def test_weighted_fit_matches_tf_keras(both: dict, name: str) -> None:
    assert_close(both["ours"][name], both["theirs"][name], name, rtol=1e-5, atol=1e-6)
