"""Keras `fit` on an endless dataset (found while interrupting fit, issue 29): `fit(dataset.repeat())` counted
the batches of one pass by iterating the dataset, so it never returned, and `steps_per_epoch` was ignored.
As tf_keras: `steps_per_epoch` draws that many batches per epoch from one iterator kept across epochs; an
endless dataset without it is a ValueError with tf_keras's words; `evaluate` / `predict` take `steps` batches.
Oracle: the losses derived by hand (the same numbers tf_keras 2.21 gives), and its message."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import webflow as wf


def _dataset():
    # 4 batches of 2; every target of batch i is i, and the model predicts 0: batch i's loss is i^2
    y = np.repeat(np.arange(4, dtype=np.float32), 2).reshape(8, 1)
    return wf.data.Dataset.from_tensor_slices((np.ones((8, 2), np.float32), y)).batch(2)


def _frozen_model():
    model = wf.keras.Sequential([wf.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(wf.keras.optimizers.SGD(0.0), "mse")  # rate 0: the predictions stay 0
    return model


def test_steps_per_epoch_continues_the_same_iterator_across_epochs():
    model = _frozen_model()
    history = model.fit(_dataset().repeat(), steps_per_epoch=3, epochs=3, verbose=0)
    # epoch 1: batches 0, 1, 2; epoch 2: 3, 0, 1; epoch 3: 2, 3, 0
    np.testing.assert_allclose(history.history["loss"], [5 / 3, 10 / 3, 13 / 3], rtol=1e-6)
    assert int(model.optimizer.iterations.numpy()) == 9


def test_an_endless_dataset_without_steps_per_epoch_is_refused():
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"When providing an infinite dataset, you must specify the number of "
                                         r"steps to run \(if you did not intend"):
        _frozen_model().fit(_dataset().repeat(), epochs=1, verbose=0)
    assert time.monotonic() - started < 30


def test_a_finished_fit_leaves_no_prefetch_thread():
    before = set(threading.enumerate())
    _frozen_model().fit(_dataset().repeat().prefetch(2), steps_per_epoch=5, epochs=2, verbose=0)
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not set(threading.enumerate()) - before


def test_evaluate_and_predict_take_steps_batches_of_an_endless_dataset():
    model = _frozen_model()
    assert model.evaluate(_dataset().repeat(), steps=2, verbose=0) == pytest.approx(0.5)  # batches 0 and 1
    inputs = _dataset().map(lambda x, y: x).repeat()
    assert model.predict(inputs, steps=3, verbose=0).shape == (6, 1)
