"""`fit` on arrays visits the examples in tf_keras's order, draw for draw (webflow/keras/data_order.py).

The same program runs under webflow (`keras` = webflow.keras) and under tf_keras in the oracle venv: a small
Dense model whose `train_step` records which examples each batch holds (column 0 of x and of y is the example's
number / N), trained from the same weights after `keras.utils.set_random_seed`. Per scenario we compare the
examples of every batch (x's and y's separately: tf_keras's shuffle="batch" permutes them independently), the
loss history and the weights after training.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow
from webflow import keras
from webflow.framework import random_seed
from webflow.keras.data_order import DataOrder

# name: fit's keyword arguments (epochs, batch_size, shuffle, validation_split, initial_epoch, steps_per_epoch)
SCENARIOS = {
    "shuffle_true": {"epochs": 3, "batch_size": 32, "shuffle": True},
    "shuffle_false": {"epochs": 2, "batch_size": 32, "shuffle": False},
    "shuffle_batch": {"epochs": 3, "batch_size": 32, "shuffle": "batch"},
    "validation_split": {"epochs": 3, "batch_size": 16, "shuffle": True, "validation_split": 0.2},
    "initial_epoch": {"epochs": 4, "batch_size": 50, "shuffle": True, "initial_epoch": 2},
    "steps_per_epoch": {"epochs": 3, "batch_size": 32, "shuffle": True, "steps_per_epoch": 3},
    "steps_default_batch": {"epochs": 2, "shuffle": True, "steps_per_epoch": 4},
}
TRACED = ["shuffle_true", "shuffle_batch", "validation_split"]

PROGRAM = """
N = 150
ids = np.arange(N, dtype=np.float32) / N
x = np.stack([ids, np.sin(7 * ids), np.cos(3 * ids)], axis=1).astype(np.float32)
y = np.stack([ids, np.sin(5 * ids) * 0.5], axis=1).astype(np.float32)
init = np.random.RandomState(0)
weights = [init.uniform(-0.5, 0.5, (3, 4)).astype(np.float32), np.zeros(4, np.float32),
           init.uniform(-0.5, 0.5, (4, 2)).astype(np.float32), np.zeros(2, np.float32)]
seen = []

class Recording(keras.Sequential):
    def train_step(self, data):
        bx, by = data[0], data[1]
        seen.append([np.rint(np.asarray(bx)[:, 0] * N).astype(int).tolist(),
                     np.rint(np.asarray(by)[:, 0] * N).astype(int).tolist()])
        return super().train_step(data)

result = {}
for name, kwargs in SCENARIOS.items():
    keras.backend.clear_session()
    keras.utils.set_random_seed(1234)
    seen.clear()
    model = Recording([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(2)])
    model.set_weights(weights)
    model.compile(keras.optimizers.SGD(0.1), "mse", run_eagerly=True)
    history = model.fit(x, y, verbose=0, **kwargs)
    result[name] = {"batches": list(seen), "loss": history.history["loss"],
                    "weights": [np.asarray(w).tolist() for w in model.get_weights()]}

for name in TRACED:   # the default traced step (no recording): same order, same weights
    keras.backend.clear_session()
    keras.utils.set_random_seed(1234)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="tanh"), keras.layers.Dense(2)])
    model.set_weights(weights)
    model.compile(keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, verbose=0, **SCENARIOS[name])
    result["traced_" + name] = {"loss": history.history["loss"],
                                "weights": [np.asarray(w).tolist() for w in model.get_weights()]}
"""

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)


@pytest.fixture
def global_seed() -> object:
    """The test may set the global seed; the tests after it get the one they had."""
    saved = random_seed.global_seed()
    yield
    random_seed.set_global_seed(saved)


@pytest.fixture(scope="module")
def runs() -> dict:
    scope = {"keras": keras, "tf": webflow, "np": np, "SCENARIOS": SCENARIOS, "TRACED": TRACED}
    exec(PROGRAM, scope)
    ours = json.loads(json.dumps(scope["result"]))
    oracle = f"import numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\nSCENARIOS = {SCENARIOS!r}\n"
    oracle += f"TRACED = {TRACED!r}\n"
    return {"ours": ours, "theirs": run_oracle(oracle + PROGRAM)}


@needs_tf
@pytest.mark.parametrize("name", SCENARIOS)
def test_batches_hold_tf_keras_examples(runs: dict, name: str) -> None:
    ours, theirs = runs["ours"][name]["batches"], runs["theirs"][name]["batches"]
    assert len(ours) == len(theirs)
    assert ours == theirs


@needs_tf
@pytest.mark.parametrize("name", [*SCENARIOS, *("traced_" + name for name in TRACED)])
def test_trained_weights_agree(runs: dict, name: str) -> None:
    ours, theirs = runs["ours"][name], runs["theirs"][name]
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=2e-5, atol=1e-6)
    for mine, oracle in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_allclose(mine, oracle, rtol=2e-5, atol=2e-6)


@needs_tf
def test_shuffled_epochs_differ_and_cover_every_example(runs: dict) -> None:
    """A sanity check on the oracle itself: each epoch is a permutation, and the epochs differ."""
    batches = runs["theirs"]["shuffle_true"]["batches"]
    epochs = [sum((b[0] for b in batches[i:i + 5]), []) for i in range(0, 15, 5)]
    assert all(sorted(epoch) == list(range(150)) for epoch in epochs)
    assert epochs[0] != epochs[1] != epochs[2]


def test_no_global_seed_gives_a_random_order(global_seed: None) -> None:
    """Without a global seed, RandomShuffle gets (0, 0) and picks random seeds: two fits see different orders."""
    random_seed.set_global_seed(None)
    orders = [next(DataOrder(300, 300, True, 1).batches())[0].tolist() for _ in range(2)]
    assert sorted(orders[0]) == list(range(300)) and orders[0] != orders[1]


def test_a_seeded_fit_restarts_its_order(global_seed: None) -> None:
    """Each fit builds a new pipeline: same global seed, same first permutation (as tf_keras's new iterator)."""
    webflow.random.set_seed(5)
    first = [batch[0].tolist() for batch in DataOrder(20, 8, True, 1, epochs=2).batches()]
    second = [batch[0].tolist() for batch in DataOrder(20, 8, True, 1, epochs=2).batches()]
    assert first == second and first[:3] != first[3:]


# Printed by TensorFlow 2.21 / tf_keras: data_adapter.TensorLikeDataAdapter(x=arange(10), y=arange(10),
# batch_size=4, epochs=3) after tf.random.set_seed(7); "batch" lists x's then y's examples per batch.
TF_ORDERS = {
    True: [[7, 5, 4, 0], [3, 6, 9, 2], [8, 1], [6, 3, 5, 4], [0, 8, 7, 2], [1, 9], [0, 1, 2, 8], [6, 4, 7, 5],
           [3, 9]],
    "batch": [[[9, 8], [8, 9]], [[3, 1, 0, 2], [3, 1, 2, 0]], [[4, 5, 6, 7], [6, 5, 7, 4]], [[8, 9], [9, 8]],
              [[2, 1, 3, 0], [1, 2, 0, 3]], [[4, 5, 7, 6], [4, 6, 7, 5]], [[8, 9], [9, 8]],
              [[0, 1, 3, 2], [3, 1, 2, 0]], [[6, 5, 7, 4], [4, 5, 7, 6]]],
}


@pytest.mark.parametrize("shuffle", [True, "batch"])
def test_order_equals_recorded_tf_keras_order(shuffle: object, global_seed: None) -> None:
    webflow.random.set_seed(7)
    batches = [[index.tolist() for index in batch] for batch in DataOrder(10, 4, shuffle, 2, epochs=3).batches()]
    expected = TF_ORDERS[shuffle]
    assert (batches == expected) if shuffle == "batch" else ([batch[0] for batch in batches] == expected)
