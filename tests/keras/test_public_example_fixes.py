"""Small TF2 behaviours the public example programs rely on (found while running them, see
test_public_tf2_examples.py), each checked against what TensorFlow 2.21 / tf_keras do (values noted inline)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import webflow as tf
from webflow import keras


def test_isinstance_variable_holds_for_both_kinds() -> None:
    variable = tf.Variable(1.0)
    assert isinstance(variable, tf.Variable)
    assert not isinstance(tf.constant(1.0), tf.Variable) and not isinstance(1.0, tf.Variable)
    import webflow.compat.v1 as v1
    with v1.Graph().as_default():
        assert isinstance(v1.Variable(2.0), tf.Variable)   # a TF1 RefVariable is a tf.Variable too


def test_devices_list_the_one_cpu() -> None:
    assert tf.config.list_physical_devices("GPU") == []
    assert [d.name for d in tf.config.list_physical_devices()] == ["/physical_device:CPU:0"]
    assert tf.config.list_logical_devices("cpu") == []   # TensorFlow's device types are case-sensitive
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU"):
        tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("CPU")[0], True)


def test_eager_tensor_format_spec() -> None:
    value = tf.constant(0.25)
    assert f"{value:.3f}" == "0.250" and f"{value * 100:0.2f}" == "25.00" and f"{value}" == "0.25"


def test_layer_named_empty_string_keeps_the_name_and_opens_the_root_scope() -> None:
    block = keras.Model(name="")
    assert block.name == ""
    with pytest.raises(TypeError, match="Expected `name` argument to be a string"):
        keras.layers.Dense(1, name=3)

    class Block(keras.Model):
        def __init__(self) -> None:
            super().__init__(name="")
            self.norm = keras.layers.BatchNormalization()

        def call(self, x: object) -> object:
            return self.norm(x)

    model = Block()
    model(np.ones((2, 3), np.float32))
    # tf_keras: ['batch_normalization/gamma:0', ...], no leading '/'
    assert all(not v.name.startswith("/") and v.name.endswith(":0") for v in model.variables)
    assert model.variables[0].name.split("/")[0].startswith("batch_normalization")


def test_set_random_seed_makes_unseeded_initializers_repeat() -> None:
    def weights() -> np.ndarray:
        keras.utils.set_random_seed(7)
        layer = keras.layers.Dense(3)
        layer(np.ones((1, 4), np.float32))
        return layer.kernel.numpy()

    first = weights()
    random.random()   # Python's global generator moves on; set_random_seed's own generator decides
    np.testing.assert_array_equal(first, weights())
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        keras.utils.set_random_seed(1.5)


def test_metrics_update_inside_tf_function() -> None:
    accuracy = keras.metrics.SparseCategoricalAccuracy()
    mean = keras.metrics.Mean()

    @tf.function
    def step(labels: object, logits: object) -> None:
        accuracy.update_state(labels, logits)
        mean(tf.reduce_sum(logits))

    logits = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], np.float32)
    step(np.array([1, 1, 1]), logits)
    step(np.array([1, 0, 0]), logits)
    assert float(accuracy.result()) == pytest.approx(4 / 6)   # argmax [1, 0, 1]: 2 + 2 right of 6
    assert float(mean.result()) == pytest.approx(3.0)          # the sum of the logits, twice
    assert [v.name for v in accuracy.variables] == ["total:0", "count:0"]
    accuracy.reset_state()
    assert float(accuracy.result()) == 0.0
