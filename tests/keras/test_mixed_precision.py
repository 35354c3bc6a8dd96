"""Mixed precision: `Policy` / `set_global_policy`, layers computing in float16 with float32 weights, and
`LossScaleOptimizer`'s loss-scale trajectory compared with tf_keras (oracle venv); float16 gradients underflowing
to zero without loss scaling and recovering with it, against a hand-derived value."""

from __future__ import annotations

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_on_both

import webflow
from webflow import keras

mixed_precision = keras.mixed_precision

# The same program in both libraries: gradients chosen to hit every rule (finite steps, growth after 3 of them,
# inf and nan halving the scale and skipping the step, the floor of 1, a doubling to inf that is not kept).
TRAJECTORY = """
result = {}
grads = [[1.0, 2.0], [0.5, -1.0], [1.0, 1.0], [np.inf, 0.0], [1.0, 0.0], [np.nan, 1.0], [2.0, 2.0], [1.0, 1.0],
         [0.25, 0.5], [-1.0, 1.0], [1.0, -np.inf], [3.0, 1.0]]
for label, kwargs in [("growth3", dict(initial_scale=8.0, dynamic_growth_steps=3)), ("default", {}),
                      ("floor", dict(initial_scale=2.0, dynamic_growth_steps=5)),
                      ("overflow", dict(initial_scale=3e38, dynamic_growth_steps=1)),
                      ("static", dict(dynamic=False, initial_scale=4.0))]:
    optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1, momentum=0.5), **kwargs)
    v = tf.Variable(np.array([1.0, -1.0], np.float32))
    trace = []
    for g in grads:
        optimizer.apply_gradients([(tf.constant(np.array(g, np.float32)), v)])
        trace.append([float(optimizer.loss_scale), int(optimizer.iterations.numpy())] + v.numpy().tolist())
    result[label] = {"trace": trace, "config": optimizer.get_config(), "dynamic": optimizer.dynamic,
                     "initial_scale": optimizer.initial_scale, "growth": optimizer.dynamic_growth_steps}
optimizer = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.Adam(0.01), initial_scale=64.0)
w = tf.Variable(np.array([[0.5, -0.25], [1.0, 2.0]], np.float32))
for step in range(4):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.matmul(tf.cast(w, tf.float16), tf.cast(w, tf.float16)))
        scaled = optimizer.get_scaled_loss(loss)
    grads = optimizer.get_unscaled_gradients(tape.gradient(scaled, [w]))
    optimizer.apply_gradients(zip(grads, [w]))
result["adam_fp16"] = {"w": w.numpy().tolist(), "scaled": float(scaled), "scaled_dtype": scaled.dtype.name,
                       "counter": int(optimizer.dynamic_counter)}
policy = keras.mixed_precision.Policy("mixed_float16")
result["policy"] = [repr(policy), policy.compute_dtype, policy.variable_dtype, policy.get_config()]
keras.mixed_precision.set_global_policy("mixed_float16")
layer = keras.layers.Dense(2, kernel_initializer="ones")
out = layer(np.ones((1, 3), np.float32))
result["layer"] = [out.dtype.name, layer.kernel.dtype.name, layer.dtype, layer.compute_dtype, layer.variable_dtype,
                   out.numpy().tolist()]
keras.mixed_precision.set_global_policy("float32")
result["reset"] = [keras.mixed_precision.global_policy().name, keras.layers.Dense(1).compute_dtype]
"""


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_loss_scale_trajectory_matches_tf_keras() -> None:
    ours, theirs = run_on_both(TRAJECTORY)
    for key in theirs:
        if key.startswith(("growth", "default", "floor", "overflow", "static")):
            np.testing.assert_allclose(ours[key]["trace"], theirs[key]["trace"], rtol=1e-6, err_msg=key)
            for item in ("dynamic", "initial_scale", "growth"):
                assert ours[key][item] == theirs[key][item], (key, item)
            ours_config, their_config = ours[key]["config"], theirs[key]["config"]
            their_config["inner_optimizer"]["config"].pop("jit_compile")
            ours_config["inner_optimizer"]["config"].pop("jit_compile")
            assert ours_config == their_config, key
    np.testing.assert_allclose(ours["adam_fp16"]["w"], theirs["adam_fp16"]["w"], rtol=1e-3)
    assert ours["adam_fp16"]["scaled"] == theirs["adam_fp16"]["scaled"]
    assert ours["adam_fp16"]["scaled_dtype"] == theirs["adam_fp16"]["scaled_dtype"] == "float16"
    assert ours["adam_fp16"]["counter"] == theirs["adam_fp16"]["counter"]
    for key in ("policy", "layer", "reset"):
        assert ours[key] == theirs[key], key


def _dense_fp16_gradient(optimizer: object | None) -> np.ndarray:
    """d loss / d kernel for loss = sum(Dense(x)) * 2^-14 in float16, x = 2^-14 (float16's smallest normal)."""
    mixed_precision.set_global_policy("mixed_float16")
    try:
        layer = keras.layers.Dense(2, kernel_initializer="ones")
        x = np.full((1, 3), 2.0**-14, np.float32)
        with webflow.GradientTape() as tape:
            loss = webflow.reduce_sum(layer(x)) * webflow.constant(2.0**-14, webflow.float16)
            if optimizer is not None:
                loss = optimizer.get_scaled_loss(loss)
        grads = tape.gradient(loss, [layer.kernel])
        if optimizer is not None:
            grads = optimizer.get_unscaled_gradients(grads)
        return grads[0].numpy()
    finally:
        mixed_precision.set_global_policy(None)


def test_float16_gradients_underflow_and_loss_scaling_recovers_them() -> None:
    # By hand: d loss / d y = 2^-14, d loss / d kernel = x * 2^-14 = 2^-28, below float16's smallest subnormal
    # 2^-24: the float16 MatMul of the gradient gives 0. Scaled by 2^15, d loss / d y = 2, the kernel's gradient
    # 2^-13 is a float16 normal, and dividing by 2^15 in float32 gives back 2^-28 exactly.
    plain = _dense_fp16_gradient(None)
    assert plain.dtype == np.float32 and np.all(plain == 0.0)
    scaled = _dense_fp16_gradient(mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(1.0)))
    np.testing.assert_array_equal(scaled, np.full((3, 2), 2.0**-28, np.float32))


def test_policy_errors_and_names() -> None:
    with pytest.raises(ValueError, match="Cannot convert value foo to a mixed precision Policy"):
        mixed_precision.Policy("foo")
    with pytest.raises(TypeError, match="must be a string"):
        mixed_precision.Policy(webflow.float16)
    assert mixed_precision.Policy("mixed_bfloat16").compute_dtype == "bfloat16"
    assert mixed_precision.Policy("float16").variable_dtype == "float16"
    with pytest.raises(TypeError, match="inner_optimizer"):
        mixed_precision.LossScaleOptimizer("sgd")
    with pytest.raises(ValueError, match="initial_scale"):
        mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(), dynamic=False)
    optimizer = mixed_precision.LossScaleOptimizer(keras.optimizers.SGD())
    assert float(optimizer.loss_scale) == 2.0**15 and optimizer.dynamic_growth_steps == 2000
    assert optimizer.learning_rate.numpy() == pytest.approx(0.01)   # a variable, as in tf_keras


def test_a_float16_layer_keeps_float32_weights_and_trains() -> None:
    mixed_precision.set_global_policy("mixed_float16")
    try:
        model = keras.Sequential([keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                                  keras.layers.Dense(1), keras.layers.Activation("linear", dtype="float32")])
    finally:
        mixed_precision.set_global_policy(None)
    assert [w.dtype.name for w in model.weights] == ["float32"] * 4
    optimizer = mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.05))
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    losses = []
    for _ in range(30):
        with webflow.GradientTape() as tape:
            loss = webflow.reduce_mean(webflow.square(model(x) - y))
        optimizer.minimize(loss, model.trainable_weights, tape=tape)
        losses.append(float(loss))
    assert model(x).dtype == webflow.float32 and losses[-1] < 0.5 * losses[0]


def test_traced_loss_scaling_follows_the_eager_rules() -> None:
    grads = [[1.0, 2.0], [0.5, -1.0], [np.inf, 0.0], [1.0, 1.0], [np.nan, 1.0], [2.0, 2.0], [1.0, 1.0]]

    def run(traced: bool) -> list:
        optimizer = mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.1), initial_scale=8.0,
                                                       dynamic_growth_steps=2)
        v = webflow.Variable(np.array([1.0, -1.0], np.float32))

        def step(g: object) -> None:
            optimizer.apply_gradients([(g, v)])

        step = webflow.function(step) if traced else step
        trace = []
        for g in grads:
            step(webflow.constant(np.array(g, np.float32)))
            trace.append([float(optimizer.loss_scale), int(optimizer.iterations.numpy()),
                          int(optimizer.dynamic_counter), *v.numpy().tolist()])
        return trace

    eager = run(False)
    assert [row[0] for row in eager] == [8.0, 16.0, 8.0, 8.0, 4.0, 4.0, 8.0]   # by the rules in the docstring
    np.testing.assert_allclose(run(True), eager, rtol=1e-6)


def test_layer_config_holds_the_policy() -> None:
    # tf_keras: a mixed policy is serialized as a dict, a plain one as its dtype name (checked in the oracle venv)
    layer = keras.layers.Dense(2, dtype="mixed_float16")
    assert layer.get_config()["dtype"] == {"module": "keras.mixed_precision", "class_name": "Policy",
                                           "config": {"name": "mixed_float16"}, "registered_name": None}
    again = keras.layers.Dense.from_config(layer.get_config())
    assert again.dtype_policy == mixed_precision.Policy("mixed_float16") and again.dtype == "float32"
    assert keras.layers.Dense(2, dtype="float64").get_config()["dtype"] == "float64"


def test_float16_layers_compute_what_float32_layers_compute_to_half_precision() -> None:
    """Conv2D, pooling, Dense and the elementwise activations in float16 (mixed_float16) = the same model in float32
    with the same weights, to float16's ~3 significant digits; gradients reach the float32 weights as float32."""
    def model(dtype: str) -> object:
        return keras.Sequential([keras.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 2), dtype=dtype),
                                 keras.layers.MaxPooling2D(dtype=dtype), keras.layers.Flatten(dtype=dtype),
                                 keras.layers.Dense(5, activation="tanh", dtype=dtype),
                                 keras.layers.Dense(3, activation="sigmoid", dtype=dtype)])

    half, full = model("mixed_float16"), model("float32")
    half.set_weights(full.get_weights())
    x = np.random.default_rng(1).normal(size=(2, 8, 8, 2)).astype(np.float32)
    out_half, out_full = half(x), full(x)
    assert out_half.dtype == webflow.float16 and out_full.dtype == webflow.float32
    np.testing.assert_allclose(out_half.numpy().astype(np.float32), out_full.numpy(), rtol=1e-2, atol=2e-3)
    with webflow.GradientTape() as tape:
        loss = webflow.reduce_sum(webflow.cast(half(x), webflow.float32))
    grads = tape.gradient(loss, half.trainable_weights)
    assert all(g.dtype == webflow.float32 for g in grads)
    with webflow.GradientTape() as tape:
        loss = webflow.reduce_sum(full(x))
    for got, want in zip(grads, tape.gradient(loss, full.trainable_weights)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-2, atol=5e-3)


def test_normalization_layers_keep_their_statistics_in_float32() -> None:
    # tf_keras computes BatchNormalization / LayerNormalization in float32 for 16-bit inputs, output in float16
    mixed_precision.set_global_policy("mixed_float16")
    try:
        batch_norm, layer_norm = keras.layers.BatchNormalization(), keras.layers.LayerNormalization()
    finally:
        mixed_precision.set_global_policy(None)
    x = np.random.default_rng(2).normal(3.0, 2.0, size=(8, 5)).astype(np.float32)
    for layer in (batch_norm, layer_norm):
        out = layer(x, training=True)
        assert out.dtype == webflow.float16
        axis = 0 if layer is batch_norm else 1
        expected = (x - x.mean(axis, keepdims=True)) / np.sqrt(x.var(axis, keepdims=True) + 1e-3)
        np.testing.assert_allclose(out.numpy().astype(np.float32), expected, atol=5e-3)
    assert batch_norm.moving_mean.dtype == webflow.float32
    np.testing.assert_allclose(batch_norm.moving_mean.numpy(), 0.01 * x.mean(0), rtol=1e-5)


def test_bfloat16_policy_computes_in_bfloat16_with_float32_weights() -> None:
    """(tests/keras/test_mixed_bfloat16.py compares a whole model with tf_keras.)"""
    layer = keras.layers.Dense(2, dtype="mixed_bfloat16", kernel_initializer="ones")
    assert (layer.compute_dtype, layer.variable_dtype) == ("bfloat16", "float32")
    out = layer(np.full((1, 2), 1.00390625, np.float32))   # rounds to 1.0 in bfloat16 (a tie, to even)
    assert out.dtype == webflow.bfloat16 and layer.kernel.dtype == webflow.float32
    np.testing.assert_array_equal(out.numpy(), [[2.0, 2.0]])
