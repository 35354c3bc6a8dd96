"""The model the "Train MNIST in your browser" page trains: classic TF1 code, run by webflow inside Pyodide.

The page's Web Worker fetches this file, runs it, then calls `MnistDemo` methods between its messages:

    demo = MnistDemo()                 # reads the MNIST sample shipped in the webflow wheel, builds the graph
    demo = MnistDemo(model="cnn", train_folder=...)  # TensorFlow.js's MNIST conv net on 20,000 training images
    demo.train_chunk(25)               # 25 Adam steps; returns the chunk's mean loss / accuracy for the chart
    demo.test_accuracy()               # on the sample's 1,000 test images
    demo.predict(pixels)               # 784 numbers in [0, 1] (a drawn digit) -> 10 class probabilities

Nothing here needs NumPy (Pyodide has none here): the images stay bytes (`array.array("B")`), a batch is
fed to a uint8 placeholder as a CArray, and the graph itself casts and scales them to floats in [0, 1].
The same file runs in CPython too (tests, benchmarks): it only needs `webflow`.
"""

from __future__ import annotations

import array
import gzip
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import webflow.compat.v1 as tf
from webflow.backends.arrays.carray import CArray

SIZES = [784, 128, 10]   # input pixels, hidden units, classes: a one-hidden-layer ReLU network
BATCH = 100              # examples per step
LEARNING_RATE = 0.002    # Adam's
EPOCHS = 8               # passes over the 6,000 training images: 480 steps (about 93% test accuracy)
SEED = 1

# The conv net of TensorFlow.js's MNIST example ("Training on images", tfjs-examples/mnist): two 5x5 VALID
# convolutions (8 then 16 filters, ReLU) each followed by a 2x2 max pool of stride 2, then one dense softmax
# layer; varianceScaling initial weights; batches of 64. The tutorial's plain SGD at 0.15 stops at 96-98% on
# the wheel's 6,000 images (TensorFlow too), so the page trains it on MNIST's first 20,000 training images
# (site/build.py ships them in demo/mnist_cnn/, ~3 MB) with Adam from 0.003, cosine-decayed to 0 over the run:
# 10 epochs, 3,125 steps, 98.3-98.6% on the sample's 1,000 test images over seeds 1-5 (98.5-99.1% in TensorFlow
# 2.21 with the same recipe; SGD 0.15 on these 20,000 images gave TensorFlow only 97.2-97.8% in 1,250 steps).
CNN = {"filters": [8, 16], "kernel": 5, "pool": 2, "batch": 64, "learning_rate": 0.003, "epochs": 10,
       "train_examples": 20_000}
MODELS = ("mlp", "cnn")


def sample_folder() -> Path:
    """Where the wheel keeps the MNIST sample (webflow/datasets/sample), found without importing NumPy."""
    import webflow

    return Path(webflow.__file__).parent / "datasets" / "sample"


def read_idx(path: Path) -> tuple[tuple[int, ...], bytes]:
    """(shape, the uint8 payload) of a gzip IDX file: magic 00 00 08 N, N big-endian sizes, then the bytes."""
    data = gzip.decompress(path.read_bytes())
    if data[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path}: not an IDX file of unsigned bytes")
    ndim = data[3]
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    return shape, data[4 + 4 * ndim:]


def load_split(folder: Path, prefix: str, limit: int | None = None) -> tuple[array.array, array.array]:
    """The images (flat bytes, 784 per image) and labels of one split: prefix "train" or "t10k"; the first
    `limit` examples when given (the conv net reads 20,000 from the full MNIST files in CPython)."""
    _, images = read_idx(folder / f"{prefix}-images-idx3-ubyte.gz")
    _, labels = read_idx(folder / f"{prefix}-labels-idx1-ubyte.gz")
    if limit is not None:
        if len(labels) < limit:
            raise ValueError(f"{folder}: {len(labels)} {prefix} examples, {limit} needed")
        images, labels = images[:limit * SIZES[0]], labels[:limit]
    return array.array("B", images), array.array("B", labels)


def cnn_train_folder() -> Path:
    """Where the conv net's training images are outside the browser: $WEBFLOW_DATA/mnist, the full MNIST files
    (the page's worker passes the folder it wrote the site's demo/mnist_cnn/ files to instead)."""
    data = os.environ.get("WEBFLOW_DATA")
    if not data:
        raise FileNotFoundError("the conv net trains on 20,000 MNIST images: set WEBFLOW_DATA (its mnist/ folder)"
                                " or pass train_folder=")
    return Path(data) / "mnist"


def mlp_logits(pixels: tf.Tensor) -> tf.Tensor:
    """uint8 pixels [n, 784] -> [0, 1] floats -> dense 128 ReLU -> dense 10 logits (Glorot uniform weights)."""
    hidden = tf.cast(pixels, tf.float32) / 255.0
    for layer in range(len(SIZES) - 1):
        fan_in, fan_out = SIZES[layer], SIZES[layer + 1]
        limit = (6.0 / (fan_in + fan_out)) ** 0.5            # Glorot uniform, as tf.layers.dense would use
        weights = tf.Variable(tf.random_uniform([fan_in, fan_out], -limit, limit), name=f"w{layer}")
        biases = tf.Variable(tf.zeros([fan_out]), name=f"b{layer}")
        hidden = tf.matmul(hidden, weights) + biases
        if layer < len(SIZES) - 2:
            hidden = tf.nn.relu(hidden)
    return hidden


def variance_scaling(shape: list[int], fan_in: int, name: str) -> tf.Variable:
    """TensorFlow.js's default varianceScaling weights: truncated normal, stddev sqrt(1 / fan_in)."""
    return tf.Variable(tf.truncated_normal(shape, stddev=(1.0 / fan_in) ** 0.5), name=name)


def cnn_logits(pixels: tf.Tensor) -> tf.Tensor:
    """uint8 pixels [n, 784] -> [n, 28, 28, 1] floats -> (conv 5x5 ReLU, max pool 2x2) twice -> dense 10 logits.

    Shapes: 28x28x1 -> conv 24x24x8 -> pool 12x12x8 -> conv 8x8x16 -> pool 4x4x16 -> flatten 256 -> 10.
    """
    hidden = tf.reshape(tf.cast(pixels, tf.float32) / 255.0, [-1, 28, 28, 1])
    channels, size, k, pool = 1, 28, CNN["kernel"], CNN["pool"]
    for layer, filters in enumerate(CNN["filters"]):
        kernel = variance_scaling([k, k, channels, filters], k * k * channels, f"conv{layer}/kernel")
        bias = tf.Variable(tf.zeros([filters]), name=f"conv{layer}/bias")
        hidden = tf.nn.relu(tf.nn.conv2d(hidden, kernel, [1, 1, 1, 1], "VALID") + bias)
        hidden = tf.nn.max_pool(hidden, [1, pool, pool, 1], [1, pool, pool, 1], "VALID")
        channels, size = filters, (size - k + 1) // pool
    flat = size * size * channels
    hidden = tf.reshape(hidden, [-1, flat])
    weights = variance_scaling([flat, SIZES[-1]], flat, "dense/kernel")
    biases = tf.Variable(tf.zeros([SIZES[-1]]), name="dense/bias")
    return tf.matmul(hidden, weights) + biases


def build_graph(inputs: Callable[[], tuple] | None = None, model: str = "mlp", steps: int = 0) -> dict:
    """The TF1 graph: uint8 pixels -> the model's logits (mlp_logits or cnn_logits); loss, optimizer, accuracy.

    `inputs` (optional) builds, in the new graph, the (pixels, labels) tensors that training reads when nothing
    is fed (mnist_tfdata.py: a tf.data iterator's get_next); without it both are plain placeholders.
    Both train with Adam; the conv net's learning rate decays to 0 along a cosine over its `steps` steps.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}, got {model!r}")
    tf.disable_v2_behavior()
    tf.reset_default_graph()
    tf.set_random_seed(SEED)
    if inputs is None:
        pixels = tf.placeholder(tf.uint8, [None, SIZES[0]], name="pixels")
        labels = tf.placeholder(tf.int32, [None], name="labels")
    else:  # fed when predicting or testing, else the input pipeline's next batch
        next_pixels, next_labels = inputs()
        pixels = tf.placeholder_with_default(next_pixels, [None, SIZES[0]], name="pixels")
        labels = tf.placeholder_with_default(next_labels, [None], name="labels")
    logits = cnn_logits(pixels) if model == "cnn" else mlp_logits(pixels)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    if model == "cnn":
        global_step = tf.train.get_or_create_global_step()
        learning_rate = tf.train.cosine_decay(CNN["learning_rate"], global_step, steps)
        train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss, global_step=global_step)
    else:
        train_op = tf.train.AdamOptimizer(LEARNING_RATE).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1, output_type=tf.int32), labels)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    return {"pixels": pixels, "labels": labels, "loss": loss, "train_op": train_op, "accuracy": accuracy,
            "probabilities": tf.nn.softmax(logits)}


def as_batch(images: array.array, labels: array.array, indices: list[int]) -> tuple[CArray, CArray]:
    """The images and labels at `indices` as a [n, 784] uint8 CArray and a [n] int32 CArray."""
    size = SIZES[0]
    rows = array.array("B")
    for i in indices:
        rows.extend(images[i * size:(i + 1) * size])
    return (CArray(rows, (len(indices), size), tf.uint8),
            CArray(array.array("i", (labels[i] for i in indices)), (len(indices),), tf.int32))


class MnistDemo:
    """The trained-in-chunks state the worker keeps: data, graph, session, and where training stands."""

    inputs: Callable[[], tuple] | None = None   # feed_dict here; mnist_tfdata.py's subclass reads through tf.data

    def __init__(self, folder: Path | None = None, model: str = "mlp", train_folder: Path | None = None) -> None:
        folder = folder or sample_folder()
        if model == "cnn":   # the first 20,000 training images (the wheel's sample has 6,000)
            self.train_images, self.train_labels = load_split(train_folder or cnn_train_folder(), "train",
                                                              CNN["train_examples"])
        else:
            self.train_images, self.train_labels = load_split(folder, "train")
        self.test_images, self.test_labels = load_split(folder, "t10k")
        self.kind = model
        self.batch = CNN["batch"] if model == "cnn" else BATCH
        epochs = CNN["epochs"] if model == "cnn" else EPOCHS
        self.steps = epochs * len(self.train_labels) // self.batch
        self.model = build_graph(self.inputs, model, self.steps)
        self.session = tf.Session()
        self.session.run(tf.global_variables_initializer())
        self.random = random.Random(SEED)
        self.order: list[int] = []
        self.step = 0

    def info(self) -> dict:
        cnn = self.kind == "cnn"
        return {"model": self.kind, "sizes": SIZES, "batch": self.batch, "steps": self.steps,
                "learning_rate": CNN["learning_rate"] if cnn else LEARNING_RATE,
                "optimizer": "Adam", "schedule": "cosine decay" if cnn else "constant",
                "filters": CNN["filters"] if cnn else [],
                "kernel": CNN["kernel"], "pool": CNN["pool"],
                "description": ("conv 5x5x8 → pool → conv 5x5x16 → pool → dense 10" if cnn
                                else "-".join(map(str, SIZES)) + " MLP"),
                "train_examples": len(self.train_labels), "test_examples": len(self.test_labels)}

    def next_indices(self) -> list[int]:
        """The next batch's example indices, reshuffling the training set at the start of every epoch."""
        if len(self.order) < self.batch:
            self.order = list(range(len(self.train_labels)))
            self.random.shuffle(self.order)
        batch, self.order = self.order[:self.batch], self.order[self.batch:]
        return batch

    def next_feed(self) -> dict:
        """The feed_dict of the next training step: the next batch of images and labels."""
        images, labels = as_batch(self.train_images, self.train_labels, self.next_indices())
        return {self.model["pixels"]: images, self.model["labels"]: labels}

    def train_chunk(self, count: int) -> dict:
        """Runs up to `count` training steps; the chunk's mean loss and batch accuracy, and its speed."""
        model, losses, accuracies = self.model, [], []
        started = time.perf_counter()
        for _ in range(min(count, self.steps - self.step)):
            _, loss, accuracy = self.session.run([model["train_op"], model["loss"], model["accuracy"]],
                                                 self.next_feed())
            losses.append(float(loss))
            accuracies.append(float(accuracy))
            self.step += 1
        seconds = time.perf_counter() - started
        done = len(losses)
        return {"step": self.step, "steps": self.steps, "loss": sum(losses) / max(done, 1),
                "accuracy": sum(accuracies) / max(done, 1), "steps_per_second": done / max(seconds, 1e-9)}

    def test_accuracy(self, chunk: int = 500) -> float:
        """The fraction of the test images classified right."""
        correct, total = 0.0, len(self.test_labels)
        for start in range(0, total, chunk):
            indices = list(range(start, min(start + chunk, total)))
            images, labels = as_batch(self.test_images, self.test_labels, indices)
            feed = {self.model["pixels"]: images, self.model["labels"]: labels}
            value = self.session.run(self.model["accuracy"], feed)
            correct += float(value) * len(indices)
        return correct / total

    def predict(self, pixels: list[float]) -> list[float]:
        """The 10 class probabilities of one drawn digit (784 numbers in [0, 1], row-major 28x28)."""
        if len(pixels) != SIZES[0]:
            raise ValueError(f"predict needs {SIZES[0]} pixels (28x28), got {len(pixels)}")
        data = array.array("B", (min(255, max(0, round(float(p) * 255))) for p in pixels))
        image = CArray(data, (1, SIZES[0]), tf.uint8)
        value = self.session.run(self.model["probabilities"], {self.model["pixels"]: image})
        return [float(p) for p in value.tolist()[0]]

    def time_steps(self, count: int) -> float:
        """Milliseconds per training step over `count` steps on one fixed batch (the benchmark's figure)."""
        images, labels = as_batch(self.train_images, self.train_labels, list(range(self.batch)))
        feed = {self.model["pixels"]: images, self.model["labels"]: labels}
        self.session.run(self.model["train_op"], feed)   # warm-up
        started = time.perf_counter()
        for _ in range(count):
            self.session.run([self.model["train_op"], self.model["loss"]], feed)
        return (time.perf_counter() - started) * 1e3 / count
