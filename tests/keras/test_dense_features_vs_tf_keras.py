"""`keras.layers.DenseFeatures` against tf_keras (oracle venv): TensorFlow's "Classify structured data with feature
columns" tutorial on the shipped iris CSV (read with the csv module; a string feature derived from a number so that
vocabulary, embedding and crossed columns have something to read). The same program runs in both libraries from the
same initial weights: outputs and gradients of the Sequential model, three epochs of `fit` (no shuffling), summary
texts, weight names, the layer's config, a functional model on a dict of `keras.Input`s, and each library loading
the other's `save_weights` checkpoint and `.keras` file."""

from __future__ import annotations

import os

import numpy as np
import pytest
from keras_oracle import SKIP_REASON, TF_PYTHON, run_oracle

import webflow

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
CSV = os.path.join(os.path.dirname(__file__), "..", "data", "iris_training.csv")

# Run by both libraries: `tf` is webflow or tensorflow; CSV, OUT (a folder) and LIB ("wf" / "tf") are given.
PROGRAM = """
import csv
tf.random.set_seed(0)   # the initial weights are set below; TF's deterministic mode wants a seed for initializers
rows = list(csv.reader(open(CSV)))[1:]
names = ["sepal_length", "sepal_width", "petal_length", "petal_width"]
def to_features(rows):
    data = {n: np.array([float(r[i]) for r in rows], np.float32) for i, n in enumerate(names)}
    data["size"] = np.array(["big" if float(r[0]) > 6.2 else "small" if float(r[0]) < 5.2 else "medium"
                             for r in rows])
    return data
features = to_features(rows[:96])
val_features = to_features(rows[96:])
labels = np.array([int(r[4]) == 1 for r in rows[:96]], np.int64)
val_labels = np.array([int(r[4]) == 1 for r in rows[96:]], np.int64)
fc = tf.feature_column
size = fc.categorical_column_with_vocabulary_list("size", ["small", "medium", "big"])
length_buckets = fc.bucketized_column(fc.numeric_column("sepal_length"), boundaries=[5.0, 6.0, 7.0])
feature_columns = [fc.numeric_column(n) for n in names] + [
    length_buckets, fc.indicator_column(size), fc.embedding_column(size, dimension=3),
    fc.indicator_column(fc.crossed_column([length_buckets, "size"], hash_bucket_size=7))]

def df_to_dataset(data, labels, shuffle=True, batch_size=32):
    ds = tf.data.Dataset.from_tensor_slices((dict(data), labels))
    if shuffle:
        ds = ds.shuffle(buffer_size=len(labels))
    return ds.batch(batch_size)

def initial(model):
    rng = np.random.RandomState(7)
    return [rng.uniform(-0.5, 0.5, w.shape).astype(np.float32) for w in model.get_weights()]

def texts(model):
    lines = []
    model.summary(print_fn=lines.append)
    return "\\n".join(lines)

train_ds = df_to_dataset(features, labels, shuffle=False)
val_ds = df_to_dataset(val_features, val_labels, shuffle=False)
tf.keras.backend.clear_session()
feature_layer = tf.keras.layers.DenseFeatures(feature_columns)
model = tf.keras.Sequential([feature_layer, tf.keras.layers.Dense(16, activation="relu"),
                             tf.keras.layers.Dense(1)])
batch, batch_labels = next(iter(train_ds))
model(batch)
model.set_weights(initial(model))
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
with tf.GradientTape() as tape:
    loss = loss_fn(batch_labels, model(batch))
grads = tape.gradient(loss, model.trainable_weights)
result["dense"] = feature_layer(batch).numpy().tolist()
result["outputs"] = model(batch).numpy().tolist()
result["grads"] = [tf.convert_to_tensor(g).numpy().tolist() for g in grads]   # TF: IndexedSlices for the table
model.compile(optimizer="adam", loss=loss_fn, metrics=["accuracy"])
history = model.fit(train_ds, validation_data=val_ds, epochs=3, verbose=0)
result["history"] = history.history
result["summary"] = texts(model)
result["names"] = [w.name for w in model.weights]
result["config"] = feature_layer.get_config()
try:
    feature_layer({k: v for k, v in features.items() if k != "petal_width"})
except ValueError as error:
    result["missing"] = str(error)

tf.keras.backend.clear_session()
def functional():
    inputs = {n: tf.keras.Input(shape=(1,), name=n) for n in names}
    inputs["size"] = tf.keras.Input(shape=(1,), name="size", dtype=tf.string)
    x = tf.keras.layers.DenseFeatures(feature_columns)(inputs)
    x = tf.keras.layers.Dense(8, activation="relu")(x)
    return tf.keras.Model(inputs, tf.keras.layers.Dense(1)(x))
fmodel = functional()
fmodel.set_weights(initial(fmodel))
column_features = {k: v[:, None] for k, v in features.items()}
result["f_summary"] = texts(fmodel)
result["f_names"] = [w.name for w in fmodel.weights]
result["f_shape"] = list(fmodel.layers[-3].compute_output_shape((None, 1)))
fmodel.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss=loss_fn)
fmodel.fit(column_features, labels, batch_size=32, epochs=1, shuffle=False, verbose=0)
result["f_predict"] = fmodel.predict(column_features, verbose=0).tolist()
fmodel.layers[-3].trainable = False
result["f_counts"] = [len(fmodel.trainable_weights), len(fmodel.non_trainable_weights)]
fmodel.layers[-3].trainable = True
fmodel.save_weights(os.path.join(OUT, LIB + "_w", "w"))
fmodel.save(os.path.join(OUT, LIB + ".keras"))
"""

# Each library loads the other's files (OTHER = "tf" / "wf").
LOAD_OTHER = """
tf.keras.backend.clear_session()
fresh = functional()
fresh.load_weights(os.path.join(OUT, OTHER + "_w", "w"))
result["load_weights"] = fresh.predict(column_features, verbose=0).tolist()
loaded = tf.keras.models.load_model(os.path.join(OUT, OTHER + ".keras"))
result["load_model"] = loaded.predict(column_features, verbose=0).tolist()
result["loaded_names"] = [w.name for w in loaded.weights]
"""


def _run_webflow(source: str, scope: dict) -> dict:
    scope.setdefault("result", {})
    exec(source, scope)  # noqa: S102 - the test's own program text
    return scope["result"]


def _oracle(source: str, out: str, other: bool) -> dict:
    prologue = (f"import os\nimport numpy as np\nimport tensorflow as tf\nresult = {{}}\nCSV = {CSV!r}\n"
                f"OUT = {out!r}\nLIB = 'tf'\nOTHER = 'wf'\n")
    return run_oracle(prologue + source + (LOAD_OTHER if other else ""), repeatable=True)


def _plain(value: object) -> object:
    """Tuples as lists (JSON's view), so configs compare across the process boundary."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


@needs_tf
def test_the_tutorial_program_matches_tf_keras(tmp_path: object) -> None:
    out = str(tmp_path)
    scope = {"tf": webflow, "np": np, "os": os, "CSV": CSV, "OUT": out, "LIB": "wf", "OTHER": "tf"}
    ours = _run_webflow(PROGRAM, scope)
    theirs = _oracle(PROGRAM, out, other=True)
    np.testing.assert_allclose(ours["dense"], theirs["dense"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours["outputs"], theirs["outputs"], rtol=1e-5, atol=1e-6)
    for mine, reference in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(mine, reference, rtol=1e-4, atol=1e-6)
    for key in ("loss", "accuracy", "val_loss", "val_accuracy"):
        np.testing.assert_allclose(ours["history"][key], theirs["history"][key], rtol=1e-4, atol=1e-6)
    for key in ("summary", "names", "f_summary", "f_names", "f_shape", "f_counts"):
        assert ours[key] == theirs[key], key
    # the message as tf_keras wraps it, up to the `training` argument (the learning phase here, None there)
    assert ours["missing"].split("  \u2022 training=")[0] == theirs["missing"].split("  \u2022 training=")[0]
    assert _plain(ours["config"]) == _plain(theirs["config"])
    np.testing.assert_allclose(ours["f_predict"], theirs["f_predict"], rtol=1e-4, atol=1e-6)
    # tf_keras loaded webflow's checkpoint and .keras file ...
    np.testing.assert_allclose(theirs["load_weights"], ours["f_predict"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(theirs["load_model"], ours["f_predict"], rtol=1e-6, atol=1e-6)
    # ... and webflow loads tf_keras's
    mine = _run_webflow(LOAD_OTHER, {**scope, "result": {}})
    np.testing.assert_allclose(mine["load_weights"], theirs["f_predict"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(mine["load_model"], theirs["f_predict"], rtol=1e-6, atol=1e-6)
    assert mine["loaded_names"] == theirs["loaded_names"]


# The tutorial's model as written (shuffled input, Dropout), with `import webflow as tf`: it runs and learns.
TUTORIAL = PROGRAM.split("train_ds = ")[0] + """
train_ds = df_to_dataset(features, labels, batch_size=32)
val_ds = df_to_dataset(val_features, val_labels, shuffle=False, batch_size=32)
feature_layer = tf.keras.layers.DenseFeatures(feature_columns)
model = tf.keras.Sequential([
  feature_layer,
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dense(128, activation='relu'),
  tf.keras.layers.Dropout(.1),
  tf.keras.layers.Dense(1)
])
model.compile(optimizer='adam',
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
              metrics=['accuracy'])
history = model.fit(train_ds, validation_data=val_ds, epochs=10, verbose=0)
loss, accuracy = model.evaluate(val_ds, verbose=0)
result["history"], result["accuracy"] = history.history, accuracy
"""


def test_the_tutorial_runs_unchanged_in_webflow() -> None:
    result = _run_webflow(TUTORIAL, {"tf": webflow, "np": np, "CSV": CSV})
    losses = result["history"]["loss"]
    assert len(losses) == 10 and all(np.isfinite(losses))
    assert losses[-1] < losses[0]
    assert 0.0 <= result["accuracy"] <= 1.0


def test_bad_input_is_refused_as_tf_keras_does() -> None:
    fc = webflow.feature_column
    with pytest.raises(ValueError, match="feature_columns must not be empty"):
        webflow.keras.layers.DenseFeatures([])
    with pytest.raises(ValueError, match="Items of feature_columns must be a DenseColumn"):
        webflow.keras.layers.DenseFeatures([fc.categorical_column_with_identity("a", 3)])
    layer = webflow.keras.layers.DenseFeatures([fc.numeric_column("a")])
    with pytest.raises(ValueError, match="We expected a dictionary here"):
        layer(webflow.constant([[1.0]]))
    with pytest.raises(ValueError, match="Feature a is not in features dictionary."):
        layer({"b": webflow.constant([[1.0]])})


# A Sequential built on a dict of features, saved as `.keras` by each library and loaded by the other (tf_keras builds
# such a model from float placeholders when loading: it cannot reload its own string features, so numbers only here).
SEQUENTIAL = """
fc = tf.feature_column
columns = [fc.numeric_column("a"), fc.bucketized_column(fc.numeric_column("b"), [0.0, 1.0])]
feats = {"a": np.array([1.0, -2.0, 0.5], np.float32), "b": np.array([-1.0, 0.5, 3.0], np.float32)}
tf.keras.backend.clear_session()
model = tf.keras.Sequential([tf.keras.layers.DenseFeatures(columns), tf.keras.layers.Dense(2)])
model(feats)
model.set_weights([np.arange(8, dtype=np.float32).reshape(4, 2) / 10, np.array([0.5, -0.5], np.float32)])
result["own"] = model.predict(feats, verbose=0).tolist()
model.save(os.path.join(OUT, LIB + "_seq.keras"))
"""
LOAD_SEQUENTIAL = """
loaded = tf.keras.models.load_model(os.path.join(OUT, OTHER + "_seq.keras"))
result["loaded"] = loaded.predict(feats, verbose=0).tolist()
result["loaded_names"] = [w.name for w in loaded.weights]
"""


@needs_tf
def test_sequential_on_features_saves_and_loads_both_ways(tmp_path: object) -> None:
    out = str(tmp_path)
    scope = {"tf": webflow, "np": np, "os": os, "OUT": out, "LIB": "wf", "OTHER": "tf"}
    ours = _run_webflow(SEQUENTIAL, scope)
    prologue = f"import os\nimport numpy as np\nimport tensorflow as tf\nresult = {{}}\nOUT = {out!r}\nLIB = 'tf'\n"
    theirs = run_oracle(prologue + SEQUENTIAL + "OTHER = 'wf'\n" + LOAD_SEQUENTIAL, repeatable=True)
    np.testing.assert_allclose(ours["own"], theirs["own"], rtol=1e-6)
    np.testing.assert_allclose(theirs["loaded"], ours["own"], rtol=1e-6)
    mine = _run_webflow(LOAD_SEQUENTIAL, {**scope, "result": {}})
    np.testing.assert_allclose(mine["loaded"], theirs["own"], rtol=1e-6)
    assert mine["loaded_names"] == ["sequential/dense/kernel:0", "sequential/dense/bias:0"]


# Every column kind in a DenseFeatures config, as tf_keras writes it; each library rebuilds the other's config.
COLUMNS = """
fc = tf.feature_column
columns = [
    fc.indicator_column(fc.categorical_column_with_identity("i", 5, default_value=0)),
    fc.embedding_column(fc.categorical_column_with_hash_bucket("h", 7), 2, combiner="sqrtn"),
    fc.indicator_column(fc.crossed_column(["a", fc.categorical_column_with_vocabulary_list("s", ["x", "y"])], 11)),
    fc.indicator_column(fc.weighted_categorical_column(fc.categorical_column_with_identity("j", 4), "w")),
    fc.indicator_column(fc.categorical_column_with_vocabulary_list("v", [3, 5, 9], num_oov_buckets=2)),
    fc.numeric_column("n", shape=(2,), default_value=(0.0, 1.0))]
config = tf.keras.layers.DenseFeatures(columns).get_config()
result["config"] = config
result["rebuilt"] = tf.keras.layers.DenseFeatures.from_config(OTHER_CONFIG).get_config() if OTHER_CONFIG else None
"""


@needs_tf
def test_every_column_kind_configs_as_tf_keras() -> None:
    ours = _run_webflow(COLUMNS, {"tf": webflow, "OTHER_CONFIG": None})
    prologue = f"import tensorflow as tf\nresult = {{}}\nOTHER_CONFIG = {_plain(ours['config'])!r}\n"
    theirs = run_oracle(prologue + COLUMNS)
    assert _plain(ours["config"]) == _plain(theirs["config"])
    assert _plain(theirs["rebuilt"]) == _plain(theirs["config"])   # tf_keras reads webflow's config
    mine = _run_webflow(COLUMNS, {"tf": webflow, "OTHER_CONFIG": theirs["config"]})
    assert _plain(mine["rebuilt"]) == _plain(theirs["config"])   # and webflow reads tf_keras's
