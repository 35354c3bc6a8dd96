"""A Keras MNIST CNN trained with `fit` on the full data: test accuracy and time, one JSON line.

    python benchmarks/keras_mnist_cnn.py [--epochs 8] [--batch-size 128] [--train-examples 60000] [--engine webflow]

The model is the small convnet of Keras's MNIST example (Conv2D 32 -> MaxPool -> Conv2D 64 -> MaxPool -> Flatten ->
Dense 128 -> Dropout 0.5 -> Dense 10), Adam (1e-3, then 1e-4 for the last third of the steps), sparse
cross-entropy from logits, batch 128, a fixed number of epochs (no early stopping on the test set). Data: the
60,000 training and 10,000 test images of $WEBFLOW_DATA/mnist (webflow: `keras.datasets.mnist.load_data()`;
tf_keras would download them, so `read_mnist` reads the same files). `--engine tf_keras` runs the same source
under real TensorFlow (this file under the TensorFlow interpreter, TF_USE_LEGACY_KERAS=1), for a figure to set
beside webflow's. `make keras-mnist` runs it; tests/keras/test_keras_mnist_cnn.py runs it in full and asserts
>= 99.0%. Report timings with the load average (`uptime`); figures in FIGURES.md.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def load_engine(engine: str):
    """(keras module, engine version) for `engine`."""
    if engine == "tf_keras":
        os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
        import tensorflow as tf
        return tf.keras, tf.__version__
    sys.path.insert(0, os.path.dirname(HERE))
    import webflow
    return webflow.keras, getattr(webflow, "__version__", "checkout")


def read_mnist() -> tuple:
    """((x_train, y_train), (x_test, y_test)) as uint8 arrays from the IDX files in $WEBFLOW_DATA/mnist."""
    import numpy as np

    def idx(name: str):
        with gzip.open(os.path.join(os.environ["WEBFLOW_DATA"], "mnist", name)) as handle:
            data = handle.read()
        dims = data[3]
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)

    return ((idx("train-images-idx3-ubyte.gz"), idx("train-labels-idx1-ubyte.gz")),
            (idx("t10k-images-idx3-ubyte.gz"), idx("t10k-labels-idx1-ubyte.gz")))


def build_model(keras):
    layers = keras.layers
    return keras.Sequential([
        layers.Conv2D(32, 3, activation="relu", input_shape=(28, 28, 1)),
        layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(2),
        layers.Flatten(),
        layers.Dense(128, activation="relu"),
        layers.Dropout(0.5),
        layers.Dense(10),
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--train-examples", type=int, default=60000, help="the first N training images")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engine", choices=["webflow", "tf_keras"], default="webflow")
    parser.add_argument("--verbose", type=int, default=2, help="fit's verbose (0 quiet, 1 bar, 2 a line per epoch)")
    args = parser.parse_args()
    if not os.environ.get("WEBFLOW_DATA"):
        parser.error("set WEBFLOW_DATA (the folder holding mnist/)")
    import numpy as np

    keras, version = load_engine(args.engine)
    keras.utils.set_random_seed(args.seed)
    loader = read_mnist if args.engine == "tf_keras" else keras.datasets.mnist.load_data
    (x_train, y_train), (x_test, y_test) = loader()
    x_train = (x_train[:args.train_examples].astype(np.float32) / 255.0)[..., None]
    y_train = y_train[:args.train_examples].astype(np.int64)
    x_test, y_test = (x_test.astype(np.float32) / 255.0)[..., None], y_test.astype(np.int64)

    model = build_model(keras)
    # Adam at 1e-3, then 1e-4 for the last third of the steps (the usual step-down: it settles the last 0.1-0.2%)
    steps = -(-len(x_train) // args.batch_size) * args.epochs
    learning_rate = keras.optimizers.schedules.PiecewiseConstantDecay([steps * 2 // 3], [1e-3, 1e-4])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    start = time.perf_counter()
    history = model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs, verbose=args.verbose)
    train_seconds = time.perf_counter() - start
    test_loss, test_accuracy = model.evaluate(x_test, y_test, batch_size=1000, verbose=0)
    print(json.dumps({
        "benchmark": "keras_mnist_cnn", "engine": args.engine, "version": version, "epochs": args.epochs,
        "batch_size": args.batch_size, "train_examples": len(x_train), "test_examples": len(x_test),
        "test_accuracy": round(float(test_accuracy), 4), "test_loss": round(float(test_loss), 4),
        "train_accuracy_last_epoch": round(float(history.history["accuracy"][-1]), 4),
        "train_seconds": round(train_seconds, 1), "load_average": [round(v, 2) for v in os.getloadavg()],
    }), flush=True)


if __name__ == "__main__":
    main()
