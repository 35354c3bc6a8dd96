"""What the keras tests share: an MNIST slice, the models built the same way in webflow and tf_keras (source text
run by both: `keras` is webflow.keras here, tf_keras in the oracle venv, where TF_USE_LEGACY_KERAS=1 selects it),
and the oracle runner."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess

import numpy as np
from tf_subprocess import SKIP_REASON, TF_PYTHON  # noqa: F401

DATA = os.environ.get("WEBFLOW_DATA")

# Built identically by both libraries (after clear_session, so the layer names agree).
MODELS = {
    "mlp": """
model = keras.Sequential([keras.layers.Flatten(input_shape=(28, 28)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(10)])
""",
    "cnn": """
inputs = keras.Input((28, 28, 1))
x = keras.layers.Conv2D(4, 3, activation="relu")(inputs)
x = keras.layers.MaxPooling2D()(x)
x = keras.layers.BatchNormalization()(x)
x = keras.layers.Flatten()(x)
outputs = keras.layers.Dense(10)(x)
model = keras.Model(inputs, outputs)
""",
}

OPTIMIZERS = {"sgd": "keras.optimizers.SGD(0.01, momentum=0.9, nesterov=True)", "adam": "keras.optimizers.Adam(0.002)"}


def optimizer_trajectories(specs: list) -> str:
    """A program: each `keras.optimizers.<spec>` takes 10 steps (minimize and apply_gradients in turn) on the same
    two variables and loss; result[spec] = the variables after every step and the optimizer's iteration count."""
    return f"""
result = {{}}
for spec in {specs!r}:
    optimizer = eval("keras.optimizers." + spec)
    v = tf.Variable(np.array([1.0, -2.0, 3.0], np.float32))
    w = tf.Variable(np.array([[0.5, 0.25]], np.float32))
    trace = []
    for step in range(10):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v * np.array([1.0, 0.5, 0.1], np.float32)) + tf.reduce_sum(w * w * w)
        if step % 2:
            optimizer.minimize(loss, [v, w], tape=tape)
        else:
            optimizer.apply_gradients(zip(tape.gradient(loss, [v, w]), [v, w]))
        trace.append(v.numpy().tolist() + w.numpy().ravel().tolist())
    result[spec] = {{"trace": trace, "iterations": int(optimizer.iterations.numpy())}}
"""

# Trains `model` (weights set from `initial`) and records what the tests compare; "batch_losses" (the epoch's running
# mean loss after each training batch, as callbacks see it) shows in a failure message where two runs parted.
TRAIN = """
keras.backend.clear_session()
{model}
lines = []
model.summary(print_fn=lines.append)
model.set_weights(initial)
model.compile({optimizer}, keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
x_train, x_test = (x_train_{kind}, x_test_{kind})
batch_losses = []
each_batch = keras.callbacks.LambdaCallback(
    on_train_batch_end=lambda batch, logs: batch_losses.append(float(logs["loss"])))
history = model.fit(x_train, y_train, batch_size=64, epochs=3, shuffle=False, validation_data=(x_test, y_test),
                    verbose=0, callbacks=[each_batch])
result = {{"history": history.history, "summary": "\\n".join(lines), "names": [w.name for w in model.weights],
          "evaluate": model.evaluate(x_test, y_test, verbose=0), "predict": model.predict(x_test[:8], verbose=0),
          "batch_losses": batch_losses}}
"""


def seeded_weights(model: object, seed: int) -> list:
    """Initial values for `model.weights` from a seeded NumPy generator: each run (and each machine) starts the
    comparison from the same numbers, so a failure can be re-run as it was. Kernels are drawn as Keras's default
    glorot_uniform draws them (U(-limit, limit), limit = sqrt(6 / (fan_in + fan_out)), fans counting the receptive
    field); biases, beta and moving means are 0, gamma and moving variances 1 (Keras's defaults)."""
    rng = np.random.default_rng(seed)
    values = []
    for weight in model.weights:
        shape = tuple(weight.shape.as_list())
        name = weight.name.split(":")[0].rsplit("/", 1)[-1]
        if name == "kernel":
            receptive = int(np.prod(shape[:-2]))
            limit = np.sqrt(6.0 / (receptive * (shape[-2] + shape[-1])))
            values.append(rng.uniform(-limit, limit, shape).astype(np.float32))
        elif name in ("gamma", "moving_variance"):
            values.append(np.ones(shape, np.float32))
        elif name in ("bias", "beta", "moving_mean"):
            values.append(np.zeros(shape, np.float32))
        else:
            raise ValueError(f"seeded_weights does not know how to start weight {weight.name}")
    return values


def _idx(name: str) -> np.ndarray:
    with gzip.open(os.path.join(DATA, "mnist", name)) as file:
        data = file.read()
    dims = data[3]
    shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def mnist_slice(train: int = 512, test: int = 256) -> dict:
    """{x_train_mlp [n,28,28], x_train_cnn [n,28,28,1], y_train, and the same for test} as float32 / int64."""
    images = _idx("train-images-idx3-ubyte.gz")[:train + test].astype(np.float32) / 255.0
    labels = _idx("train-labels-idx1-ubyte.gz")[:train + test].astype(np.int64)
    return {"x_train_mlp": images[:train], "x_test_mlp": images[train:], "x_train_cnn": images[:train, ..., None],
            "x_test_cnn": images[train:, ..., None], "y_train": labels[:train], "y_test": labels[train:]}


_DRIVER = r"""
import json, os, sys
os.environ["TF_USE_LEGACY_KERAS"] = "1"
source = sys.stdin.read()
scope = {}
exec(source, scope)
print("RESULT:" + json.dumps(scope["result"]))
"""


# TensorFlow's run-to-run repeatable mode: Eigen's kernels instead of oneDNN's, one thread, deterministic ops
_REPEATABLE_ENV = {"TF_ENABLE_ONEDNN_OPTS": "0", "TF_DETERMINISTIC_OPS": "1"}
_REPEATABLE_PROLOGUE = ("import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(1)\n"
                        "tf.config.threading.set_inter_op_parallelism_threads(1)\n")


def run_oracle(source: str, timeout: float = 900, repeatable: bool = False) -> object:
    """The JSON value `source` (run by tf_keras under WEBFLOW_TF_PYTHON) leaves in `result`; `repeatable` runs
    TensorFlow so that two runs give the same bits (oneDNN's threaded convolutions otherwise vary between runs)."""
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": "", "TF_USE_LEGACY_KERAS": "1"}
    if repeatable:
        env.update(_REPEATABLE_ENV)
        source = _REPEATABLE_PROLOGUE + source
    done = subprocess.run([TF_PYTHON, "-c", _DRIVER], input=source, capture_output=True, text=True,
                          timeout=timeout, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the oracle failed:\n{done.stderr[-4000:]}")
    return json.loads(lines[-1][len("RESULT:"):])


TF_KERAS_PROLOGUE = "import numpy as np\nimport tensorflow as tf\nimport tf_keras as keras\n"


def run_programs_on_both(programs: dict, oracle_prologue: str = TF_KERAS_PROLOGUE, names: dict | None = None) -> dict:
    """{"ours": {name: webflow's result}, "theirs": {name: tf_keras's result}}, each `result` as plain JSON (arrays
    as lists). Here every program runs in its own scope holding `keras` (webflow.keras), `tf` (webflow), `np` and
    `names`; in the oracle all run in one tf_keras process, one after the other, after `oracle_prologue`."""
    import webflow
    from webflow import keras

    ours = {}
    for name, source in programs.items():
        scope = {"keras": keras, "tf": webflow, "np": np, **(names or {})}
        exec(source, scope)
        ours[name] = json.loads(json.dumps(scope["result"], default=lambda v: np.asarray(v).tolist()))
    oracle = "import json\n" + oracle_prologue + "_all = {}\n" + "".join(
        f"exec({source!r})\n_all[{name!r}] = json.loads(json.dumps(result, default=lambda v: np.asarray(v)"
        ".tolist()))\n" for name, source in programs.items()) + "result = _all\n"
    return {"ours": ours, "theirs": run_oracle(oracle)}


def run_on_both(program: str) -> tuple:
    """(webflow's, tf_keras's) `result` of one program, as run_programs_on_both gives them."""
    both = run_programs_on_both({"program": program})
    return both["ours"]["program"], both["theirs"]["program"]


def assert_close(ours: object, theirs: object, path: str = "", rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """webflow's JSON result `ours` is tf_keras's `theirs`: dicts key by key, texts, flags and lists holding text
    exactly, ragged lists (of differently shaped arrays, or of dicts) item by item, numbers within rtol / atol."""
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), path
        for key in theirs:
            assert_close(ours[key], theirs[key], f"{path}/{key}", rtol, atol)
    elif isinstance(theirs, (str, bool)) or theirs is None or (
            isinstance(theirs, list) and any(isinstance(item, str) for item in theirs)):
        assert ours == theirs, f"{path}:\n{ours!r}\n!=\n{theirs!r}"
    elif isinstance(theirs, list) and theirs and (isinstance(theirs[0], dict) or isinstance(theirs[0], list) and
                                                  len({np.shape(item) for item in theirs}) > 1):
        assert len(ours) == len(theirs), path
        for index, (mine, other) in enumerate(zip(ours, theirs)):
            assert_close(mine, other, f"{path}[{index}]", rtol, atol)
    else:
        np.testing.assert_allclose(np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), rtol=rtol,
                                   atol=atol, err_msg=path)
