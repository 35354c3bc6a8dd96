"""fit / evaluate / predict run their step through wf.function (tf_keras's default, run_eagerly=False): the results
equal the eager ones (compile(run_eagerly=True)) exactly, the step is traced once (unknown batch dimension), a
subclass's own train_step (GradientTape inside, as TF2's guides write it) is traced too, and a learning rate set by
a callback takes effect in the traced step. (tf_keras agreement: test_keras_vs_tf_keras.py, which runs traced.)"""

from __future__ import annotations

import numpy as np

import webflow as wf
from webflow import keras

X = np.random.RandomState(1).rand(200, 6).astype(np.float32)
Y = np.random.RandomState(2).randint(0, 3, 200)


def _model(cls: type = keras.Model) -> keras.Model:
    keras.backend.clear_session()
    inputs = keras.Input((6,))
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    model = cls(inputs, keras.layers.Dense(3)(hidden))
    weights = [np.random.RandomState(i).randn(*w.shape).astype(np.float32) * 0.3 for i, w in
               enumerate(model.get_weights())]
    model.set_weights(weights)
    return model


def _train(run_eagerly: bool, optimizer: str, cls: type = keras.Model, callbacks: list | None = None) -> tuple:
    model = _model(cls)
    model.compile(eval(optimizer), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], run_eagerly=run_eagerly)
    history = model.fit(X, Y, batch_size=64, epochs=3, shuffle=False, verbose=0, validation_data=(X[:50], Y[:50]),
                        callbacks=callbacks)
    return model, history.history, model.evaluate(X, Y, verbose=0), model.predict(X[:7], verbose=0)


def _assert_same(eager: tuple, traced: tuple, rtol: float = 0.0) -> None:
    for key, values in eager[1].items():
        np.testing.assert_allclose(traced[1][key], values, rtol=rtol, atol=1e-7 if rtol else 0, err_msg=key)
    np.testing.assert_allclose(traced[2], eager[2], rtol=rtol, atol=1e-7 if rtol else 0)
    np.testing.assert_allclose(traced[3], eager[3], rtol=rtol, atol=1e-6 if rtol else 0)


def test_traced_fit_equals_eager_fit() -> None:
    for optimizer, rtol in (("keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True)", 0.0),
                            ("keras.optimizers.RMSprop(keras.optimizers.schedules.ExponentialDecay(0.01, 2, 0.5))",
                             0.0),
                            ("keras.optimizers.Adam(0.01)", 1e-6)):   # Adam's bias factor: graph Pow vs NumPy
        eager, traced = _train(True, optimizer), _train(False, optimizer)
        _assert_same(eager, traced, rtol)


def test_step_is_traced_once_for_every_batch_size() -> None:
    model, *_ = _train(False, "keras.optimizers.SGD(0.05)")
    assert model.run_eagerly is False
    # 200 examples in batches of 64: the last batch of 8 runs the same trace (batch dimension None), as tf_keras
    assert model.train_function.experimental_get_tracing_count() == 1
    assert model.predict_function.experimental_get_tracing_count() == 1
    eager, *_ = _train(True, "keras.optimizers.SGD(0.05)")
    assert eager.train_function is None


class _CustomStep(keras.Model):
    traces = 0

    def train_step(self, data: tuple) -> dict:
        type(self).traces += 1   # Python side effect: runs once per trace (and in the eager first step)
        x, y = data
        with wf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = keras.losses.sparse_categorical_crossentropy(y, y_pred, from_logits=True)
            loss = wf.reduce_mean(loss)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        return {"loss": loss}


def test_custom_train_step_is_traced_and_equals_eager() -> None:
    _CustomStep.traces = 0
    traced = _train(False, "keras.optimizers.Adam(0.01)", _CustomStep)
    # traced twice, as in tf_keras: the first trace makes Adam's slots, the second uses them; the partial last
    # batch runs the same trace (batch dimension None), and no step runs the Python function (not 12 calls)
    assert _CustomStep.traces == 2
    eager = _train(True, "keras.optimizers.Adam(0.01)", _CustomStep)
    np.testing.assert_allclose(traced[1]["loss"], eager[1]["loss"], rtol=1e-6)
    np.testing.assert_allclose(traced[3], eager[3], rtol=1e-5, atol=1e-6)


def test_learning_rate_set_by_a_callback_reaches_the_traced_step() -> None:
    def halve(model: keras.Model) -> keras.callbacks.Callback:
        def on_epoch_begin(epoch: int, logs: dict | None = None) -> None:
            if epoch:
                model.optimizer.learning_rate = model.optimizer.learning_rate * 0.5
        return keras.callbacks.LambdaCallback(on_epoch_begin=on_epoch_begin)

    runs = []
    for eager in (True, False):
        model = _model()
        model.compile(keras.optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"], run_eagerly=eager)
        history = model.fit(X, Y, batch_size=64, epochs=3, shuffle=False, verbose=0, callbacks=[halve(model)])
        runs.append((model, history.history, model.evaluate(X, Y, verbose=0), model.predict(X[:7], verbose=0)))
    _assert_same(*runs)
    fixed = _train(False, "keras.optimizers.SGD(0.1)")
    assert fixed[1]["loss"][2] != runs[1][1]["loss"][2]


class _GuideStep(keras.Model):
    """TF2's "Customizing what happens in fit()" guide, as written there."""

    def train_step(self, data: tuple) -> dict:
        x, y = data
        with wf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_the_guides_custom_train_step_gives_the_built_in_results() -> None:
    built_in = _train(True, "keras.optimizers.Adam(0.01)")
    for run_eagerly in (True, False):
        custom = _train(run_eagerly, "keras.optimizers.Adam(0.01)", _GuideStep)
        assert custom[0].metrics_names == ["loss", "accuracy"]
        for key in ("loss", "accuracy"):
            np.testing.assert_allclose(custom[1][key], built_in[1][key], rtol=1e-6, err_msg=key)
        np.testing.assert_allclose(custom[3], built_in[3], rtol=1e-5, atol=1e-6)
