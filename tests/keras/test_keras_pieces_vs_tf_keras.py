"""Small Keras programs run unchanged by webflow (`keras` = webflow.keras, `tf` = webflow) and by tf_keras in the
oracle venv (`tf` = TensorFlow 2.21): optimizer updates over 10 steps, losses and metrics, BatchNormalization in
training and inference, weight names of every kind of model, `summary()` of a model with two inputs and a shared
layer, `fit` over a tf.data Dataset, EarlyStopping's decision, `train_on_batch`. Results agree to float32
precision (relative 1e-5)."""

from __future__ import annotations

import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, assert_close, optimizer_trajectories, run_programs_on_both

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

PROGRAMS = {
    "optimizers": optimizer_trajectories([
        "SGD(0.1)", "SGD(0.1, momentum=0.9)", "SGD(0.1, momentum=0.9, nesterov=True)", "Adam(0.1)",
        "Adam(0.1, amsgrad=True)", "RMSprop(0.1)", "RMSprop(0.1, rho=0.8, momentum=0.5, centered=True)",
        "Adagrad(0.1)", "SGD(keras.optimizers.schedules.ExponentialDecay(0.5, 3, 0.5))",
        "SGD(keras.optimizers.schedules.ExponentialDecay(0.5, 3, 0.5, staircase=True))"]),
    "losses_metrics": """
probs = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3], [1.0, 0.0, 0.0]], np.float32)
logits = np.array([[2.0, -1.0, 0.5], [0.1, 0.2, 3.0], [-1.0, 1.0, 0.0], [4.0, -4.0, 0.0]], np.float32)
labels = np.array([0, 2, 2, 1])
onehot = np.eye(3, dtype=np.float32)[labels]
binary = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]], np.float32)
bprobs = np.array([[0.9, 0.2], [0.3, 0.6], [1.0, 0.5], [0.0, 0.4]], np.float32)
L, M = keras.losses, keras.metrics
result = {
    "scce": float(L.SparseCategoricalCrossentropy()(labels, probs)),
    "scce_logits": float(L.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)),
    "cce": float(L.CategoricalCrossentropy()(onehot, probs)),
    "cce_logits": float(L.CategoricalCrossentropy(from_logits=True)(onehot, logits)),
    "bce": float(L.BinaryCrossentropy()(binary, bprobs)),
    "bce_logits": float(L.BinaryCrossentropy(from_logits=True)(binary, logits[:, :2])),
    "mse": float(L.MeanSquaredError()(binary, bprobs)),
    "mse_fn": np.asarray(L.mean_squared_error(binary, bprobs)).tolist(),
}
m = M.SparseCategoricalAccuracy(); m.update_state(labels, probs); m.update_state(labels[:2], probs[:2])
a = M.Accuracy(); a.update_state([1, 2, 3, 4], [1, 2, 0, 4])
mean = M.Mean(); mean.update_state([1.0, 2.0]); mean.update_state(6.0)
result["metrics"] = [float(m.result()), float(a.result()), float(mean.result())]
result["metric_names"] = [m.name, a.name, mean.name]
result["activations"] = [np.asarray(keras.activations.get(n)(tf.constant(logits))).tolist() for n in
                         ["relu", "sigmoid", "tanh", "softmax", "elu", "selu", "softplus", "swish", "linear"]]
""",
    "batch_norm": """
keras.backend.clear_session()
x = np.arange(2 * 3 * 2 * 4, dtype=np.float32).reshape(2, 3, 2, 4) / 7.0
layer = keras.layers.BatchNormalization()
first = layer(x, training=True)
second = layer(x * 2.0, training=True)
inference = layer(x)
flat = keras.layers.BatchNormalization(momentum=0.5)
flat(x.reshape(6, 8), training=True)
result = {"train": np.asarray(first).tolist(), "train2": np.asarray(second).tolist(),
          "inference": np.asarray(inference).tolist(), "names": [w.name for w in layer.weights],
          "trainable": [w.name for w in layer.trainable_weights],
          "moving": [w.numpy().tolist() for w in layer.weights[2:]], "flat": [w.numpy().tolist() for w in flat.weights]}
""",
    "names": """
keras.backend.clear_session()
deferred = keras.Sequential()
deferred.add(keras.layers.Dense(3, activation="relu"))
deferred.add(keras.layers.Dense(2))
out = deferred(np.ones((4, 5), np.float32))

class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.embed = keras.layers.Embedding(10, 4)
        self.pool = keras.layers.GlobalAveragePooling2D()
        self.head = keras.layers.Dense(2)

    def call(self, inputs, training=None):
        return self.head(tf.reduce_mean(self.embed(inputs), axis=1))

net = Net()
y = net(np.array([[1, 2, 3], [4, 5, 6]]))
conv = keras.Sequential([keras.layers.Conv2D(2, 3, padding="same", strides=2, input_shape=(8, 8, 1)),
                         keras.layers.AveragePooling2D(), keras.layers.Reshape((-1,)), keras.layers.Activation("relu")])
a = keras.Input((3,), name="a")
b = keras.Input((3,), name="b")
shared = keras.layers.Dense(2)
two = keras.Model([a, b], [keras.layers.Add()([shared(a), shared(b)]), shared(a)])
lines = []
two.summary(print_fn=lines.append)
conv_lines = []
conv.summary(print_fn=conv_lines.append)
result = {"deferred": [w.name for w in deferred.weights], "shape": list(out.shape), "net": net.name,
          "net_weights": [w.name for w in net.weights], "net_layers": [l.name for l in net.layers],
          "y": list(y.shape), "conv": [w.name for w in conv.weights], "conv_summary": "\\n".join(conv_lines),
          "two": "\\n".join(lines), "two_layers": [l.name for l in two.layers],
          "two_out": [list(t.shape) for t in two([np.ones((2, 3), np.float32)] * 2)]}
""",
    "fit_dataset": """
keras.backend.clear_session()
x = np.linspace(-1, 1, 40, dtype=np.float32).reshape(20, 2)
y = (x[:, :1] * 3.0 - x[:, 1:] + 0.5).astype(np.float32)
model = keras.Sequential([keras.layers.Dense(4, activation="tanh", input_shape=(2,)), keras.layers.Dense(1)])
model.set_weights([np.full((2, 4), 0.3, np.float32) * np.array([1, -1, 2, 0.5], np.float32),
                   np.zeros(4, np.float32), np.full((4, 1), 0.2, np.float32), np.zeros(1, np.float32)])
model.compile(keras.optimizers.SGD(0.1), "mse")
data = tf.data.Dataset.from_tensor_slices((x, y)).batch(6)
history = model.fit(data, epochs=3, verbose=0)
step = model.train_on_batch(x[:5], y[:5])
evaluated = model.evaluate(x, y, batch_size=7, verbose=0)
stopper = keras.callbacks.EarlyStopping(monitor="loss", patience=1)
model.compile(keras.optimizers.SGD(3.0), "mse")
stopped = model.fit(x, y, epochs=10, batch_size=20, shuffle=False, callbacks=[stopper], verbose=0)
result = {"history": history.history, "step": float(step), "evaluate": float(evaluated),
          "stopped": stopped.epoch, "stopped_at": stopper.stopped_epoch}
""",
}

PROLOGUE = {"webflow": "", "tf": "import numpy as np, tensorflow as tf\nkeras = tf.keras\n"}


@pytest.fixture(scope="module")
def results() -> dict:
    return run_programs_on_both(PROGRAMS, PROLOGUE["tf"])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_tf_keras(results: dict, name: str) -> None:
    assert_close(results["ours"][name], results["theirs"][name], name)
