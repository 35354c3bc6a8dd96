"""Random ops inside traced functions draw TensorFlow 2.21's numbers, and a traced `fit` draws tf_keras's Dropout masks.

TensorFlow's rules, checked here against the oracle venv (the same source runs under webflow and TensorFlow):
- a `tf.function` (or tf.data function) graph takes the global seed when it is traced; its seedless random ops
  get op seeds 0, 1, 2 ... in creation order (framework/func_graph.py, framework/random_seed.py);
- each trace has its own kernels: a new function, a retrace or a `set_seed` starts again from the seeds, while
  later calls of one trace continue its streams (framework/random_generators.py);
- tf_keras traces its train function once, so the Dropout masks of every batch (the partial last one included)
  come from one stream per Dropout (keras/step_functions.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow
from webflow import keras
from webflow.framework import random_seed

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# `tf` is webflow or TensorFlow; `r` rounds a tensor to a list.
FUNCTIONS = """
def r(t):
    return np.asarray(t).astype(np.float64).round(6).tolist()

def random_seeds(concrete):
    return [[op.type, op.get_attr("seed"), op.get_attr("seed2")] for op in concrete.graph.get_operations()
            if op.type.startswith("Random")]

def body():
    return (tf.random.uniform([3]), tf.random.normal([2]), tf.random.uniform([2], seed=5),
            tf.random.shuffle(tf.range(6)), tf.nn.dropout(tf.ones([8]), 0.5))

result = {}
tf.random.set_seed(1)
f = tf.function(body)
result["seeds"] = random_seeds(f.get_concrete_function())
result["first_calls"] = [[r(t) for t in f()] for _ in range(3)]
result["new_function"] = [r(t) for t in tf.function(body)()]
tf.random.set_seed(1)
result["after_set_seed"] = [r(t) for t in f()]

@tf.function
def sized(x):
    return tf.random.uniform(tf.shape(x))
result["retrace"] = [r(sized(tf.zeros([n]))) for n in (3, 2, 3, 2)]

@tf.function
def inner():
    return tf.random.normal([2])

@tf.function
def outer():
    return tf.random.uniform([2]), inner(), tf.random.uniform([2])
result["nested"] = [[r(t) for t in outer()] for _ in range(2)]

dataset = tf.data.Dataset.range(3).map(lambda i: tf.random.uniform([2]) + tf.cast(i, tf.float32))
result["dataset_passes"] = [[r(e) for e in dataset] for _ in range(2)]
iterator = iter(dataset)   # an iterator's function kernels are its own: set_seed does not restart them
midway = [r(next(iterator))]
tf.random.set_seed(1)
result["dataset_set_seed_midway"] = midway + [r(next(iterator)), r(next(iterator))]

@tf.function
def dropped(x):
    return tf.nn.dropout(x, 0.5)
x = tf.constant(np.arange(1, 9, dtype=np.float32))
grads = []
for _ in range(2):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = dropped(x)
    grads.append([r(y), r(tape.gradient(y, x))])
result["gradient"] = grads

tf.random.set_seed(7)
result["seed7"] = [r(t) for t in tf.function(body)()]
tf.random.set_seed(None)
result["unseeded_seeds"] = random_seeds(tf.function(body).get_concrete_function())
"""

# Each scenario: fit's arguments; the model has two Dropouts (two streams) around a Dense.
FITS = {
    "partial_last_batch": {"epochs": 3, "batch_size": 32, "shuffle": True},
    "no_shuffle": {"epochs": 2, "batch_size": 40, "shuffle": False},
    "validation_split": {"epochs": 3, "batch_size": 16, "shuffle": True, "validation_split": 0.2},
    "lr_schedule": {"epochs": 3, "batch_size": 32, "shuffle": True, "lr": True},
    "fit_twice": {"epochs": 1, "batch_size": 32, "shuffle": True, "twice": True},   # one train function, one stream
    "tf_set_seed": {"epochs": 2, "batch_size": 64, "shuffle": True, "tf_seed": True},
}

FIT = """
N = 150
rows = np.random.RandomState(3)
x = rows.uniform(-1, 1, (N, 6)).astype(np.float32)
y = np.stack([np.sin(3 * x[:, 0]) + x[:, 1], x[:, 2] * x[:, 3]], axis=1).astype(np.float32)
init = np.random.RandomState(0)
weights = [init.uniform(-0.5, 0.5, (6, 16)).astype(np.float32), np.zeros(16, np.float32),
           init.uniform(-0.5, 0.5, (16, 2)).astype(np.float32), np.zeros(2, np.float32)]
result = {}
for name, kwargs in FITS.items():
    kwargs = dict(kwargs)
    twice = kwargs.pop("twice", False)
    callbacks = [keras.callbacks.LearningRateScheduler(lambda epoch: 0.1 / (1 + epoch))] if kwargs.pop("lr", 0) \\
        else []
    keras.backend.clear_session()
    if kwargs.pop("tf_seed", False):
        tf.random.set_seed(99)
    else:
        keras.utils.set_random_seed(1234)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dropout(0.3), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dropout(0.5), keras.layers.Dense(2)])
    model.set_weights(weights)
    model.compile(keras.optimizers.SGD(0.1), "mse")
    loss = model.fit(x, y, verbose=0, callbacks=callbacks, **kwargs).history["loss"]
    if twice:
        loss += model.fit(x, y, verbose=0, **kwargs).history["loss"]
    result[name] = {"loss": loss, "weights": [np.asarray(w).tolist() for w in model.get_weights()]}
"""


@pytest.fixture(scope="module")
def restore_seed() -> object:
    saved = random_seed.global_seed()
    yield
    random_seed.set_global_seed(saved)


@pytest.fixture(scope="module")
def functions(restore_seed: object) -> dict:
    scope = {"tf": webflow, "np": np}
    exec(FUNCTIONS, scope)
    ours = json.loads(json.dumps(scope["result"]))
    theirs = run_oracle("import numpy as np\nimport tensorflow as tf\n" + FUNCTIONS) if TF_PYTHON else None
    return {"ours": ours, "theirs": theirs}


@needs_tf
@pytest.mark.parametrize("name", ["seeds", "unseeded_seeds"])
def test_traced_op_seeds_are_tensorflows(functions: dict, name: str) -> None:
    assert functions["ours"][name] == functions["theirs"][name]


@needs_tf
@pytest.mark.parametrize("name", ["first_calls", "new_function", "after_set_seed", "retrace", "nested",
                                  "dataset_passes", "dataset_set_seed_midway", "gradient", "seed7"])
def test_traced_random_values_are_tensorflows(functions: dict, name: str) -> None:
    _assert_nested_close(functions["ours"][name], functions["theirs"][name])


def _assert_nested_close(ours: object, theirs: object) -> None:
    if isinstance(theirs, list) and theirs and isinstance(theirs[0], list):
        assert len(ours) == len(theirs)
        for mine, oracle in zip(ours, theirs):
            _assert_nested_close(mine, oracle)
        return
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_calls_continue_and_retraces_restart(restore_seed: object) -> None:
    """Without the oracle: the stream rules themselves (one trace continues, a new trace starts again)."""
    webflow.random.set_seed(3)
    f = webflow.function(lambda: webflow.random.uniform([4]))
    first, second = f().numpy(), f().numpy()
    again = webflow.function(lambda: webflow.random.uniform([4]))().numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(first, again)


@pytest.fixture(scope="module")
def fits(restore_seed: object) -> dict:
    scope = {"keras": keras, "tf": webflow, "np": np, "FITS": FITS}
    exec(FIT, scope)
    ours = json.loads(json.dumps(scope["result"]))
    oracle = f"import numpy as np\nimport tensorflow as tf\nfrom tensorflow import keras\nFITS = {FITS!r}\n"
    theirs = run_oracle(oracle + FIT) if TF_PYTHON else None
    return {"ours": ours, "theirs": theirs}


@needs_tf
@pytest.mark.parametrize("name", FITS)
def test_traced_fit_with_dropout_matches_tf_keras(fits: dict, name: str) -> None:
    ours, theirs = fits["ours"][name], fits["theirs"][name]
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=2e-5, atol=1e-6)
    for mine, oracle in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_allclose(mine, oracle, rtol=2e-5, atol=2e-6)
