"""The non-recurrent layers beyond Dense/Conv2D, regularizers, constraints and `add_loss`, run unchanged by
webflow (`keras` = webflow.keras, `tf` = webflow) and by tf_keras in the oracle venv (TF_USE_LEGACY_KERAS=1).

For every layer: its name and weight names, the output shape of a call on a symbolic `keras.Input` and its
`compute_output_shape`, and, on the
same weights and inputs, the output and the gradients of sum(output * fixed weights) with respect to the inputs
and every trainable weight. Then `model.losses` of regularized layers, the training loss `fit` reports with them,
the weights after optimizer steps under constraints, and each regularizer / constraint on a fixed matrix.
Results agree to float32 precision.
"""

from __future__ import annotations

import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, run_programs_on_both

from webflow.keras import saving

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# name: (layer constructor source, input shapes with the batch dim)
LAYERS = {
    "permute": ("keras.layers.Permute((2, 1))", [(2, 3, 4)]),
    "repeat_vector": ("keras.layers.RepeatVector(3)", [(2, 4)]),
    "lambda": ("keras.layers.Lambda(lambda x: x * x + 1.0)", [(2, 5)]),
    "conv1d": ("keras.layers.Conv1D(3, 3, activation='tanh')", [(2, 7, 4)]),
    "conv1d_same_strided": ("keras.layers.Conv1D(2, 2, strides=2, padding='same')", [(2, 7, 3)]),
    "conv1d_causal_dilated": ("keras.layers.Conv1D(2, 3, padding='causal', dilation_rate=2)", [(2, 8, 3)]),
    "conv2d_transpose": ("keras.layers.Conv2DTranspose(3, 3)", [(2, 4, 5, 2)]),
    "conv2d_transpose_same_strided": ("keras.layers.Conv2DTranspose(2, (3, 2), strides=2, padding='same')",
                                      [(2, 3, 4, 3)]),
    "conv2d_transpose_output_padding": ("keras.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)",
                                        [(1, 3, 3, 2)]),
    "conv2d_transpose_dilated": ("keras.layers.Conv2DTranspose(2, 2, dilation_rate=2, activation='relu')",
                                 [(1, 4, 4, 2)]),
    "separable_conv2d_dilated": ("keras.layers.SeparableConv2D(2, 2, dilation_rate=2, use_bias=False)",
                                 [(1, 6, 6, 2)]),
    "separable_conv2d": ("keras.layers.SeparableConv2D(4, 3, depth_multiplier=2, activation='relu')",
                         [(2, 6, 5, 3)]),
    "separable_conv2d_same_strided": ("keras.layers.SeparableConv2D(2, 3, strides=2, padding='same')",
                                      [(2, 7, 6, 2)]),
    "depthwise_conv2d": ("keras.layers.DepthwiseConv2D(3, depth_multiplier=2)", [(2, 5, 6, 3)]),
    "depthwise_conv2d_same": ("keras.layers.DepthwiseConv2D((2, 3), strides=(2, 1), padding='same')",
                              [(2, 5, 6, 2)]),
    "max_pooling1d": ("keras.layers.MaxPooling1D()", [(2, 7, 3)]),
    "average_pooling1d": ("keras.layers.AveragePooling1D(3, strides=2, padding='same')", [(2, 7, 3)]),
    "global_max_pooling1d": ("keras.layers.GlobalMaxPooling1D()", [(2, 5, 3)]),
    "global_max_pooling2d": ("keras.layers.GlobalMaxPooling2D(keepdims=True)", [(2, 4, 3, 2)]),
    "global_average_pooling1d": ("keras.layers.GlobalAveragePooling1D()", [(2, 5, 3)]),
    "global_average_pooling1d_keepdims": ("keras.layers.GlobalAveragePooling1D(keepdims=True)", [(2, 5, 3)]),
    "zero_padding2d_int": ("keras.layers.ZeroPadding2D(2)", [(1, 2, 3, 1)]),
    "cropping2d_pair": ("keras.layers.Cropping2D((1, 2))", [(1, 4, 6, 2)]),
    "up_sampling2d": ("keras.layers.UpSampling2D()", [(2, 3, 2, 2)]),
    "up_sampling2d_bilinear": ("keras.layers.UpSampling2D((2, 3), interpolation='bilinear')", [(2, 3, 4, 2)]),
    "zero_padding2d": ("keras.layers.ZeroPadding2D(((1, 2), (0, 3)))", [(2, 3, 2, 2)]),
    "cropping2d": ("keras.layers.Cropping2D(((1, 0), (2, 1)))", [(2, 4, 5, 2)]),
    "layer_normalization": ("keras.layers.LayerNormalization()", [(3, 6)]),
    "layer_normalization_axes": ("keras.layers.LayerNormalization(axis=[1, 2], epsilon=1e-5)", [(2, 3, 4)]),
    "concatenate": ("keras.layers.Concatenate()", [(2, 3), (2, 4)]),
    "concatenate_axis1": ("keras.layers.Concatenate(axis=1)", [(2, 2, 3), (2, 1, 3)]),
    "multiply": ("keras.layers.Multiply()", [(2, 3), (2, 3), (2, 3)]),
    "average": ("keras.layers.Average()", [(2, 3), (2, 3)]),
    "subtract": ("keras.layers.Subtract()", [(2, 3), (2, 3)]),
    "maximum": ("keras.layers.Maximum()", [(2, 3), (2, 3)]),
    "minimum": ("keras.layers.Minimum()", [(2, 3), (2, 3)]),
    "dot": ("keras.layers.Dot(axes=1)", [(2, 4), (2, 4)]),
    "dot_normalized": ("keras.layers.Dot(axes=1, normalize=True)", [(2, 4), (2, 4)]),
    "dot_3d": ("keras.layers.Dot(axes=(2, 2))", [(2, 3, 4), (2, 5, 4)]),
    "dot_3d_mixed": ("keras.layers.Dot(axes=(1, 2))", [(2, 3, 4), (2, 5, 3)]),
    "relu": ("keras.layers.ReLU()", [(2, 5)]),
    "relu_options": ("keras.layers.ReLU(max_value=0.5, negative_slope=0.1, threshold=0.2)", [(2, 5)]),
    "relu6": ("keras.layers.ReLU(6.0)", [(2, 5)]),
    "leaky_relu": ("keras.layers.LeakyReLU()", [(2, 5)]),
    "softmax": ("keras.layers.Softmax()", [(2, 5)]),
    "softmax_axis1": ("keras.layers.Softmax(axis=1)", [(2, 3, 4)]),
}

LAYER_PROGRAM = """
keras.backend.clear_session()
rng = np.random.RandomState(0)
result = {}
for key, (spec, shapes) in LAYERS.items():
    layer = eval(spec)
    xs = [tf.constant((rng.uniform(-1, 1, s) * 2).astype(np.float32)) for s in shapes]
    arg = xs if len(xs) > 1 else xs[0]
    layer(arg)
    layer.set_weights([rng.uniform(-1, 1, w.shape).astype(np.float32) for w in layer.get_weights()])
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = layer(arg)
        loss = tf.reduce_sum(y * rng.uniform(0.5, 1.5, tuple(y.shape.as_list())).astype(np.float32))
    grads = tape.gradient(loss, xs + layer.trainable_weights)
    symbolic_inputs = [keras.Input(s[1:]) for s in shapes]
    symbolic = eval(spec)(symbolic_inputs if len(shapes) > 1 else symbolic_inputs[0])
    unknown_batch = [(None, *s[1:]) for s in shapes]
    try:
        computed = eval(spec).compute_output_shape(unknown_batch if len(shapes) > 1 else unknown_batch[0])
        computed = str(tuple(tf.TensorShape(computed).as_list()))
    except Exception as error:
        computed = "raises " + type(error).__name__
    result[key] = {"name": layer.name, "weights": [w.name for w in layer.weights], "output": np.asarray(y),
                   "grads": [np.asarray(g) for g in grads], "symbolic_shape": str(tuple(symbolic.shape.as_list())),
                   "computed_shape": computed}
"""

REGULARIZED_PROGRAM = """
keras.backend.clear_session()
rng = np.random.RandomState(1)
x = rng.uniform(-1, 1, (8, 3)).astype(np.float32)
t = rng.uniform(-1, 1, (8, 2)).astype(np.float32)

class Penalized(keras.layers.Layer):
    def call(self, inputs):
        self.add_loss(0.5 * tf.reduce_mean(inputs * inputs))
        return inputs * 2.0

model = keras.Sequential([
    keras.layers.Dense(4, input_shape=(3,), kernel_regularizer=keras.regularizers.L2(0.1), bias_regularizer="l1",
                       activity_regularizer=keras.regularizers.L1L2(0.01, 0.02),
                       kernel_constraint=keras.constraints.MaxNorm(0.5)),
    Penalized(),
    keras.layers.Dense(
        2, kernel_regularizer=keras.regularizers.l1_l2(), kernel_constraint=keras.constraints.NonNeg(),
        bias_constraint=keras.constraints.UnitNorm(axis=0))])
model.set_weights([rng.uniform(-1, 1, w.shape).astype(np.float32) for w in model.get_weights()])
model(x)
losses_after_call = [float(v) for v in model.losses]
model.compile(keras.optimizers.SGD(0.1), "mse")
history = model.fit(x, t, batch_size=4, epochs=3, shuffle=False, verbose=0)
images = rng.uniform(-1, 1, (6, 4, 4, 1)).astype(np.float32)
targets = rng.uniform(-1, 1, (6, 1)).astype(np.float32)
inputs = keras.Input((4, 4, 1))
conv = keras.layers.Conv2D(2, 2, kernel_constraint=keras.constraints.MaxNorm(0.3, axis=[0, 1, 2]),
                           kernel_regularizer="l1", bias_constraint=keras.constraints.NonNeg())
outputs = keras.layers.Dense(1, activity_regularizer="l2")(keras.layers.Flatten()(conv(inputs)))
functional = keras.Model(inputs, outputs)
functional.add_loss(lambda: 0.1 * tf.reduce_sum(tf.abs(conv.kernel)))
functional.set_weights([rng.uniform(-1, 1, v.shape).astype(np.float32) for v in functional.get_weights()])
functional.compile(keras.optimizers.Adam(0.05), "mse")
functional_history = functional.fit(images, targets, batch_size=3, epochs=2, shuffle=False, verbose=0)
functional(images)   # an eager call: `losses` are then this call's (after fit tf_keras would hold graph tensors)
w = np.array([[0.3, -1.2, 2.0], [-0.5, 0.8, 0.1]], np.float32)
C, R = keras.constraints, keras.regularizers
result = {"losses_after_call": losses_after_call, "history": history.history["loss"],
          "weights": [np.asarray(v) for v in model.get_weights()], "n_losses": len(model.losses),
          "evaluate": model.evaluate(x, t, verbose=0), "functional_history": functional_history.history["loss"],
          "functional_weights": [np.asarray(v) for v in functional.get_weights()],
          "functional_losses": [float(v) for v in functional.losses],
          "constraints": [np.asarray(c(tf.constant(w))) for c in [C.MaxNorm(1.0), C.MaxNorm(1.5, axis=1),
                          C.NonNeg(), C.UnitNorm(), C.UnitNorm(axis=1), C.MinMaxNorm(0.6, 1.0, rate=0.5),
                          C.get("max_norm"), C.get("non_neg")]],
          "regularizers": [float(r(tf.constant(w))) for r in [R.L1(), R.L2(), R.L1L2(), R.L1L2(0.3, 0.2),
                           R.l1_l2(), R.get("l1"), R.get("l2"), R.get("l1_l2")]]}
"""

# A functional model of most of the layers above: summary() must print the same table (shapes, params, links).
SUMMARY_PROGRAM = """
keras.backend.clear_session()
inputs = keras.Input((8, 8, 3))
x = keras.layers.SeparableConv2D(4, 3, padding="same")(inputs)
x = keras.layers.DepthwiseConv2D(3, depth_multiplier=2)(x)
x = keras.layers.Conv2DTranspose(3, 3, strides=2)(x)
x = keras.layers.ZeroPadding2D(1)(x)
x = keras.layers.Cropping2D(2)(x)
x = keras.layers.UpSampling2D()(x)
x = keras.layers.LeakyReLU()(x)
a = keras.layers.GlobalMaxPooling2D()(x)
b = keras.layers.Lambda(lambda t: tf.reduce_mean(t, axis=[1, 2]))(x)
m = keras.layers.Concatenate()([a, b])
m = keras.layers.LayerNormalization()(m)
r = keras.layers.RepeatVector(4)(m)
r = keras.layers.Conv1D(5, 2, padding="causal")(r)
r = keras.layers.MaxPooling1D()(r)
r = keras.layers.Permute((2, 1))(r)
r = keras.layers.GlobalAveragePooling1D()(r)
d = keras.layers.Dot(axes=1)([r, r])
out = keras.layers.Multiply()([keras.layers.Softmax()(r), keras.layers.ReLU()(d)])
model = keras.Model(inputs, out)
lines = []
model.summary(print_fn=lines.append)
result = {"summary": "\\n".join(lines)}
"""

MASKED_PROGRAM = """
keras.backend.clear_session()
ids = np.array([[1, 2, 0, 0], [3, 1, 2, 0]])
embedding = keras.layers.Embedding(4, 3, mask_zero=True)
embedding(ids)
embedding.set_weights([np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0 - 0.4])
vectors = embedding(ids)
scores = np.array([[0.5, -1.0, 2.0, 0.3], [1.5, 0.2, -0.7, 4.0]], np.float32)
result = {"pooled": np.asarray(keras.layers.GlobalAveragePooling1D()(vectors)),
          "softmax": np.asarray(keras.layers.Softmax()(scores, mask=ids > 0))}
"""

# Each layer's config (webflow: what keras/saving.py writes for it) against tf_keras's get_config().
CONFIG_PROGRAM = """
keras.backend.clear_session()
result = {key: CONFIG(eval(spec)) for key, (spec, shapes) in LAYERS.items() if key != "lambda"}
"""
# Keys tf_keras writes that webflow leaves out: `groups` of layers that do not take it, and SeparableConv2D's
# kernel_* (tf_keras's Conv base class options, unused there: the depthwise_* ones hold them).
UNWRITTEN = {"groups", "kernel_initializer", "kernel_regularizer", "kernel_constraint"}

# The new layers inside a traced `fit` (graph mode, unknown batch dim): losses and weights after 2 epochs.
TRAINING_PROGRAM = """
keras.backend.clear_session()
rng = np.random.RandomState(2)
x = rng.uniform(-1, 1, (12, 6, 6, 2)).astype(np.float32)
y = rng.randint(0, 3, 12)
model = keras.Sequential([
    keras.layers.SeparableConv2D(4, 3, padding="same", activation="relu", input_shape=(6, 6, 2)),
    keras.layers.DepthwiseConv2D(2, strides=2), keras.layers.LayerNormalization(),
    keras.layers.Conv2DTranspose(3, 2, strides=2), keras.layers.UpSampling2D(interpolation="bilinear"),
    keras.layers.ZeroPadding2D(1), keras.layers.Cropping2D(2), keras.layers.Reshape((-1, 3)),
    keras.layers.Conv1D(4, 3, padding="causal"), keras.layers.LeakyReLU(), keras.layers.MaxPooling1D(2),
    keras.layers.AveragePooling1D(2), keras.layers.GlobalMaxPooling1D(), keras.layers.Dense(3)])
model.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()])
model.compile(keras.optimizers.SGD(0.05, momentum=0.9), keras.losses.SparseCategoricalCrossentropy(from_logits=True))
history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
result = {"history": history.history["loss"], "weights": [np.asarray(w) for w in model.get_weights()],
          "predict": model.predict(x[:3], verbose=0)}
"""

SOURCES = {"training": TRAINING_PROGRAM, "config": CONFIG_PROGRAM, "layers": LAYER_PROGRAM,
           "regularized": REGULARIZED_PROGRAM, "summary": SUMMARY_PROGRAM, "masked": MASKED_PROGRAM}
ORACLE_PROLOGUE = ("import json\nimport numpy as np, tensorflow as tf\nkeras = tf.keras\nCONFIG = lambda layer: "
                   "layer.get_config()\nLAYERS = " + repr(LAYERS) + "\n")


@pytest.fixture(scope="module")
def results() -> dict:
    return run_programs_on_both(SOURCES, ORACLE_PROLOGUE, {"LAYERS": LAYERS, "CONFIG": saving.layer_config})


def _close(ours: object, theirs: object, path: str = "") -> None:
    assert_close(ours, theirs, path, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_matches_tf_keras(results: dict, layer: str) -> None:
    _close(results["ours"]["layers"][layer], results["theirs"]["layers"][layer], layer)


def test_regularizers_constraints_and_add_loss_match_tf_keras(results: dict) -> None:
    _close(results["ours"]["regularized"], results["theirs"]["regularized"], "regularized")


def test_summary_of_a_model_of_these_layers_matches_tf_keras(results: dict) -> None:
    assert results["ours"]["summary"]["summary"] == results["theirs"]["summary"]["summary"]


def test_masked_pooling_and_softmax_match_tf_keras(results: dict) -> None:
    _close(results["ours"]["masked"], results["theirs"]["masked"], "masked")


@pytest.mark.parametrize("layer", sorted(set(LAYERS) - {"lambda"}))
def test_layer_config_matches_tf_keras(results: dict, layer: str) -> None:
    ours, theirs = results["ours"]["config"][layer], results["theirs"]["config"][layer]
    assert set(theirs) - set(ours) <= UNWRITTEN and set(ours) <= set(theirs), sorted(set(ours) ^ set(theirs))
    assert ours == {key: value for key, value in theirs.items() if key in ours}


def test_training_through_the_new_layers_matches_tf_keras(results: dict) -> None:
    _close(results["ours"]["training"], results["theirs"]["training"], "training")
