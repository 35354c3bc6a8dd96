"""webflow.keras on its own (no oracle needed): the progress bar's text as tf_keras prints it (timings masked), the
notebook display updated in place, callbacks, a custom layer, the shape error, saving through ModelCheckpoint."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from webflow import keras
from webflow.keras.progbar import Progbar, bar_text


def _mask_times(text: str) -> str:
    return re.sub(r"\d+(ms|us|s)/(step|epoch)", "T/\\2", re.sub(r" - \d+s", " - Ns", text))


def test_progress_bar_text_as_tf_keras() -> None:
    # tf_keras 2.21 printed (stdout captured): "\r1/3 [=========>....................] - ETA: 0s - loss: 8.0295 -
    # accuracy: 0.2500", then 47 backspaces, "\r3/3 [==============================] - 0s 51ms/step - loss: ..."
    stream = io.StringIO()
    bar = Progbar(3, stream=stream)
    bar.update(1, [("loss", 8.0295), ("accuracy", 0.25)])
    bar.update(3, [("loss", 8.0797), ("accuracy", 0.1458333)], finalize=True)
    first, second = stream.getvalue().split("\b" * len("1/3 [=========>....................] - ETA: 0s - loss: 8.0295 "
                                                       "- accuracy: 0.2500"))
    assert first == "\r1/3 [=========>....................] - ETA: 0s - loss: 8.0295 - accuracy: 0.2500"
    assert _mask_times(second) == ("\r3/3 [==============================] - Ns T/step - loss: 8.0797 - "
                                   "accuracy: 0.1458\n")
    assert bar_text(12, 469) == " 12/469 [..............................]"   # int(30 * 12 / 469) = 0 cells
    assert bar_text(100, 469) == "100/469 [=====>........................]"


def test_verbose_2_prints_one_line_per_epoch() -> None:
    stream = io.StringIO()
    Progbar(4, verbose=2, stream=stream).update(4, [("loss", 7.2831), ("accuracy", 0.21875)])
    assert _mask_times(stream.getvalue()) == "4/4 - Ns - loss: 7.2831 - accuracy: 0.2188 - T/epoch - T/step\n"


def test_notebook_progress_is_one_display_updated_in_place() -> None:
    from webflow.lab.display import LiveOutput

    calls = []

    class Handle:
        def update(self, data: dict, raw: bool) -> None:
            calls.append(("update", data["text/plain"]))

    def display(data: dict, raw: bool, display_id: bool) -> Handle:
        calls.append(("display", data["text/plain"]))
        return Handle()

    bar = Progbar(2, live=LiveOutput(display=display))
    bar.update(1, [("loss", 1.5)])
    bar.update(2, [("loss", 1.25)], finalize=True)
    assert [kind for kind, _ in calls] == ["display", "update"]
    assert calls[0][1].startswith("1/2 [==============>...............] - ETA:")
    assert _mask_times(calls[1][1]) == "2/2 [==============================] - Ns T/step - loss: 1.2500"


class Scale(keras.layers.Layer):
    """A custom layer: one trainable and one frozen weight, behaving differently in training."""

    def build(self, input_shape: object) -> None:
        self.scale = self.add_weight("scale", [int(input_shape[-1])], initializer="ones")
        self.count = self.add_weight("count", [], initializer="zeros", trainable=False)

    def call(self, inputs: object, training: object = None) -> object:
        if training:
            self.count.assign_add(1.0)
        return inputs * self.scale


def test_custom_layer_weights_and_training_flag() -> None:
    keras.backend.clear_session()
    layer = Scale()
    inputs = keras.Input((3,))
    model = keras.Model(inputs, keras.layers.Dense(2, name="head")(layer(inputs)))
    assert layer.name == "scale"
    assert [w.name for w in layer.trainable_weights] == ["scale/scale:0"]
    assert [w.name for w in layer.non_trainable_weights] == ["scale/count:0"]
    assert [w.name for w in model.weights] == ["scale/scale:0", "scale/count:0", "head/kernel:0", "head/bias:0"]
    model(np.ones((2, 3), np.float32), training=True)
    model(np.ones((2, 3), np.float32))
    assert float(layer.count.numpy()) == 1.0
    layer.trainable = False
    assert [w.name for w in model.trainable_weights] == ["head/kernel:0", "head/bias:0"]


def test_incompatible_input_names_layer_and_shapes() -> None:
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(10, input_shape=(784,))])
    with pytest.raises(ValueError, match=re.escape('Input 0 of layer "dense" is incompatible with the layer: '
                                                   "expected axis -1 of input shape to have value 784, but "
                                                   "received input with shape (None, 28, 28)")):
        model.layers[0](keras.Input((28, 28)))


def test_callbacks_history_checkpoint_and_lambda(tmp_path: object) -> None:
    keras.backend.clear_session()
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    y = x.sum(axis=1, keepdims=True)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    seen = []
    path = str(tmp_path / "weights-{epoch:02d}")
    history = model.fit(x, y, epochs=3, batch_size=4, verbose=0, validation_split=0.25,
                        callbacks=[keras.callbacks.ModelCheckpoint(path, save_best_only=True),
                                   keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))])
    assert seen == [0, 1, 2] and history.epoch == [0, 1, 2]
    assert sorted(history.history) == ["loss", "val_loss"]
    assert model.history is history
    best = int(np.argmin(history.history["val_loss"])) + 1
    fresh = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    fresh.load_weights(str(tmp_path / f"weights-{best:02d}")).assert_existing_objects_matched()
    if best == 3:
        np.testing.assert_allclose(fresh.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


def test_predict_and_fit_with_two_outputs_shapes() -> None:
    keras.backend.clear_session()
    a = keras.Input((4,))
    hidden = keras.layers.Dense(3, activation="relu")(a)
    model = keras.Model(a, [keras.layers.Dense(2)(hidden), keras.layers.Dense(1)(hidden)])
    first, second = model.predict(np.ones((5, 4), np.float32), batch_size=2, verbose=0)
    assert first.shape == (5, 2) and second.shape == (5, 1)


def test_one_hot_labels_with_a_sparse_loss_say_which_loss_to_use() -> None:
    keras.backend.clear_session()
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(2,))])
    model.compile("sgd", "sparse_categorical_crossentropy")
    one_hot = np.eye(3, dtype=np.float32)[[0, 1, 2, 0]]
    # the traced step sees a batch dimension of None, as tf_keras's train function graph does
    with pytest.raises(ValueError,
                       match=r"labels.shape=\(None, 3\) and logits.shape=\(None, 3\).*CategoricalCrossentropy"):
        model.fit(np.ones((4, 2), np.float32), one_hot, verbose=0)


def test_deferred_sequential_and_tf_optimizers_alias() -> None:
    import webflow as wf

    keras.backend.clear_session()
    model = keras.Sequential()
    model.add(keras.layers.Dense(4))
    assert not model.built and model.weights == []
    model(np.ones((2, 3), np.float32))
    assert [w.name for w in model.weights] == ["dense/kernel:0", "dense/bias:0"]
    assert wf.optimizers is keras.optimizers and wf.keras is keras


def test_to_categorical_and_mnist_load_data() -> None:
    import os

    np.testing.assert_array_equal(keras.utils.to_categorical([2, 0, 1]), np.eye(3, dtype=np.float32)[[2, 0, 1]])
    assert keras.utils.to_categorical(np.array([[1], [3]]), 5).shape == (2, 5)
    if os.environ.get("WEBFLOW_DATA"):
        (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data(os.environ["WEBFLOW_DATA"],
                                                                              download=False)
        assert x_train.shape == (60000, 28, 28) and x_test.dtype == np.uint8
        assert y_train[:10].tolist() == [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]   # the data README's first labels


def test_load_weights_of_another_architecture_names_the_variable(tmp_path: object) -> None:
    keras.backend.clear_session()
    keras.Sequential([keras.layers.Dense(4, input_shape=(3,)), keras.layers.Dense(2)]).save_weights(
        str(tmp_path / "ckpt"))
    other = keras.Sequential([keras.layers.Dense(5, input_shape=(3,)), keras.layers.Dense(2)])
    # tf_keras 2.21: "Received incompatible tensor with shape (4,) when attempting to restore variable with shape
    # (5,) and name dense_2/bias:0." (it meets the bias first; webflow the kernel)
    with pytest.raises(ValueError, match=r"Received incompatible tensor with shape \(3, 4\) when attempting to "
                                         r"restore variable with shape \(3, 5\) and name dense_2/kernel:0"):
        other.load_weights(str(tmp_path / "ckpt"))
