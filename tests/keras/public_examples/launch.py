"""Runs one public TF2 example program, unchanged, under real TensorFlow or under webflow.

    python launch.py ENGINE PROGRAM.py WEIGHTS.npz [REPLACEMENTS.json]

ENGINE is `tensorflow` (this file under TensorFlow's interpreter, TF_USE_LEGACY_KERAS=1: `tf.keras` is tf_keras) or
`webflow` (an import hook makes `import tensorflow`, `from tensorflow.keras import layers` ... give webflow's
modules: the program's text is not touched). Before the program runs, both engines are put in the same state:
- seeds: Python's `random`, NumPy's global generator and `tf.random.set_seed` all get 0, so the same initial
  weights (tf_keras's unseeded initializers take their seed from Python's `random`; webflow does the same) and the
  same shuffle order (tf.data's shuffle draws from the global seed; webflow gives TensorFlow's order);
- data: `tf.keras.datasets.mnist.load_data()` reads $WEBFLOW_DATA/mnist (TensorFlow would download it; webflow
  reads that folder itself);
- REPLACEMENTS.json maps a whole line of the program to its replacement (each must occur exactly once): only the
  step counts, so that each program runs in seconds.
After the program, every global that is a variable or a Keras layer/model is saved to WEIGHTS.npz (arrays named
`<global>/<index>`), so the test compares the trained weights as well as what the program printed.
Imports NumPy and the engine only (it runs under TensorFlow's interpreter too).
"""

from __future__ import annotations

import gzip
import importlib
import importlib.abc
import importlib.util
import json
import os
import random
import sys
import tempfile

import numpy as np


def read_mnist() -> tuple:
    """((x_train, y_train), (x_test, y_test)) as `keras.datasets.mnist.load_data()` returns them (uint8)."""

    def idx(name: str) -> np.ndarray:
        with gzip.open(os.path.join(os.environ["WEBFLOW_DATA"], "mnist", name), "rb") as handle:
            data = handle.read()
        dims = data[3]
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)

    return ((idx("train-images-idx3-ubyte.gz"), idx("train-labels-idx1-ubyte.gz")),
            (idx("t10k-images-idx3-ubyte.gz"), idx("t10k-labels-idx1-ubyte.gz")))


class TensorflowIsWebflow(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`import tensorflow.a.b` -> the module (or attribute) `webflow.a.b`, registered under the tensorflow name."""

    def find_spec(self, fullname: str, path, target=None):
        if fullname != "tensorflow" and not fullname.startswith("tensorflow."):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        webflow_name = "webflow" + spec.name[len("tensorflow"):]
        try:
            return importlib.import_module(webflow_name)
        except ImportError:   # a namespace object, not a module file: webflow.keras.datasets.mnist ...
            parent, _, attribute = spec.name.rpartition(".")
            return getattr(importlib.import_module(parent), attribute)

    def exec_module(self, module) -> None:
        pass


def prepare(engine: str):
    """The engine's `tf` module, seeded, with MNIST read from $WEBFLOW_DATA."""
    if engine == "webflow":
        sys.meta_path.insert(0, TensorflowIsWebflow())
    import tensorflow as tf

    if engine == "tensorflow":
        importlib.import_module("tensorflow.keras.datasets.mnist").load_data = lambda *args, **kwargs: read_mnist()
    random.seed(0)
    np.random.seed(0)
    tf.random.set_seed(0)
    return tf


def program_code(path: str, replacements: dict) -> object:
    with open(path) as handle:
        lines = handle.read().split("\n")
    for old, new in replacements.items():
        assert lines.count(old) == 1, f"{path}: the line {old!r} must occur exactly once"
        lines[lines.index(old)] = new
    return compile("\n".join(lines), path, "exec")


def trained_weights(tf, scope: dict) -> dict:
    """{"<global>/<i>": array} for each global variable and each global Keras layer's weights (not metrics')."""
    arrays = {}
    metric_class = getattr(tf.keras.metrics, "Metric", ())   # tf_keras's metrics are layers too: their state is
    for name, value in scope.items():                        # compared through what the program prints
        if hasattr(value, "assign") and hasattr(value, "numpy"):   # a variable (webflow's tf.Variable is a factory)
            arrays[f"{name}/0"] = np.asarray(value.numpy())
        elif isinstance(value, tf.keras.layers.Layer) and not isinstance(value, metric_class):
            for index, weight in enumerate(value.weights):
                arrays[f"{name}/{index}"] = np.asarray(weight.numpy())
    return arrays


def save_atomically(path: str, arrays: dict) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(suffix=".npz", dir=folder)
    with os.fdopen(handle, "wb") as out:
        np.savez(out, **arrays)
    os.replace(temporary, path)


def main() -> None:
    engine, program, weights_path = sys.argv[1:4]
    replacements = json.loads(sys.argv[4]) if len(sys.argv) > 4 else {}
    tf = prepare(engine)
    scope = {"__name__": "__main__", "__file__": program}
    exec(program_code(program, replacements), scope)
    sys.stdout.flush()
    save_atomically(weights_path, trained_weights(tf, scope))


if __name__ == "__main__":
    main()
