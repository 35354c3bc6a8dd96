"""Metrics of a masked output count its real timesteps only (the mask is their sample weight, as tf_keras's
MetricsContainer gives it), in `fit` (traced and eager), `evaluate` and a custom train_step's
`compiled_metrics.update_state`, compared with tf_keras (oracle venv) on identical weights."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

from webflow import keras
from webflow.keras import metrics

RNG = np.random.RandomState(3)
LENGTHS = RNG.randint(2, 7, 40)
X = np.array([[RNG.randint(1, 10) if t < n else 0 for t in range(6)] for n in LENGTHS], np.int64)
Y = RNG.randint(0, 3, (40, 6)).astype(np.int64)

PROGRAM = """
keras.backend.clear_session()
model = keras.Sequential([keras.layers.Embedding(10, 4, mask_zero=True, input_length=6),
                          keras.layers.SimpleRNN(5, return_sequences=True), keras.layers.Dense(3)])
model.build((None, 6))
model.set_weights([np.random.RandomState(20 + i).randn(*w.shape).astype(np.float32) * 0.5
                   for i, w in enumerate(model.get_weights())])
model.compile(keras.optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"], run_eagerly={eager})
history = model.fit(x_data, y_data, batch_size=16, epochs=2, shuffle=False, verbose=0).history
result = {{"history": history, "evaluate": model.evaluate(x_data, y_data, verbose=0)}}
"""


def _webflow(eager: bool) -> dict:
    scope = {"keras": keras, "np": np, "x_data": X, "y_data": Y}
    exec(PROGRAM.format(eager=eager), scope)
    return scope["result"]


@pytest.fixture(scope="module")
def tf_keras_result(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    folder = tmp_path_factory.mktemp("masked")
    np.save(folder / "x.npy", X)
    np.save(folder / "y.npy", Y)
    return run_oracle("import numpy as np, tensorflow as tf\nkeras = tf.keras\n"
                      f"x_data, y_data = np.load({str(folder / 'x.npy')!r}), np.load({str(folder / 'y.npy')!r})\n"
                      + PROGRAM.format(eager=False))


@pytest.mark.parametrize("eager", [False, True])
def test_masked_accuracy_and_loss_match_tf_keras(eager: bool, tf_keras_result: dict) -> None:
    ours = _webflow(eager)
    for key, values in tf_keras_result["history"].items():
        np.testing.assert_allclose(ours["history"][key], values, rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(ours["evaluate"], tf_keras_result["evaluate"], rtol=1e-5)


def test_the_mask_is_the_sample_weight_of_a_metric() -> None:
    metric = metrics.SparseCategoricalAccuracy()
    y_pred = np.array([[[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]], np.float32)   # predicts 0, 1, 0
    metric.update_state(np.array([[0, 0, 1]]), y_pred, sample_weight=np.array([[1.0, 1.0, 0.0]], np.float32))
    assert float(metric.result()) == pytest.approx(0.5)   # the third (padding) step does not count
    mean = metrics.Mean()
    mean.update_state(np.array([[1.0, 3.0], [5.0, 7.0]], np.float32), sample_weight=np.array([1.0, 0.0]))
    assert float(mean.result()) == pytest.approx(2.0)     # a [batch] weight covers each row
