"""`python -m webflow.demo`: trains a convolutional network on MNIST with classic TF1 code, on webflow.

With no arguments it trains on the MNIST sample shipped inside the package (6,000 training and 1,000
test images: no data folder, no network) for about a minute. `--data DIR` (or the environment variable
WEBFLOW_DATA) points at a folder holding the four MNIST IDX files, or a folder with an `mnist/` subfolder,
and trains on all 60,000 images instead (3 epochs by default: over 99% test accuracy).

The model is built the TF1 way, in graph mode: placeholders, `tf.layers` (conv 5x5x32, max-pool,
conv 5x5x64, max-pool, dense 512, dropout, dense 10), a sparse softmax cross-entropy, Adam, and
Session.run in a loop. The learned weights are saved as a NumPy .npz file (no pickle) keyed by the
variables' TensorFlow names, written to a temp file and renamed into place, and as a TensorFlow checkpoint
(`tf.train.Saver`: every variable, Adam's slots included, in TensorFlow's own V2 format, so real TensorFlow
restores it too). Beside them, a TensorBoard event file holds the training curves (loss and accuracy at each
progress line, the test accuracy at the end): `tensorboard --logdir checkpoints` shows them.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import webflow.compat.v1 as tf
from webflow.datasets import mnist
from webflow.datasets.tutorial_reader import DataSet

BAR_WIDTH = 20


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m webflow.demo", description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("WEBFLOW_DATA") or None,
                        help="folder with the MNIST IDX files, or with an mnist/ subfolder (default: $WEBFLOW_DATA, "
                             "else the sample shipped in the package)")
    parser.add_argument("--epochs", type=float, default=None,
                        help="passes over the training images; default 8 on the sample, 3 on the full data")
    parser.add_argument("--steps", type=int, default=None, help="training steps (mini-batches); overrides --epochs")
    parser.add_argument("--batch-size", type=int, default=50, help="examples per step; default 50")
    parser.add_argument("--learning-rate", type=float, default=0.001, help="Adam's learning rate; default 0.001")
    parser.add_argument("--seed", type=int, default=0, help="seed for the initial weights and the batch order")
    parser.add_argument("--log-every", type=int, default=100, help="print a progress line every N steps")
    parser.add_argument("--checkpoint-dir", default="checkpoints", help="where the weights go; default ./checkpoints")
    args = parser.parse_args(argv)
    if (args.steps is not None and args.steps < 1) or (args.epochs is not None and args.epochs <= 0) \
            or args.batch_size < 1 or args.log_every < 1:
        parser.error("--steps, --epochs, --batch-size and --log-every must be positive")
    return args


def training_steps(args: argparse.Namespace, examples: int) -> int:
    """--steps if given, else enough steps for --epochs (8 over the small sample, 3 over the full data)."""
    if args.steps is not None:
        return args.steps
    epochs = args.epochs if args.epochs is not None else (8 if args.data is None else 3)
    return max(1, round(epochs * examples / args.batch_size))


def load_mnist(data: str | None) -> tuple:
    """((train images, labels), (test images, labels), a description of where they came from)."""
    if data:
        folder = mnist.locate(data)
        return (*mnist.load_folder(folder), f"MNIST from {folder}")
    return (*mnist.load_sample(), "the MNIST sample shipped in webflow/datasets/sample")


def build_model(learning_rate: float, seed: int) -> dict:
    """The TF1 graph: a two-layer convolutional net, its loss, Adam's training op and an accuracy."""
    tf.set_random_seed(seed)
    images = tf.placeholder(tf.float32, [None, 784], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    training = tf.placeholder_with_default(False, [], name="training")   # dropout on while training only

    x = tf.reshape(images, [-1, 28, 28, 1])
    x = tf.layers.conv2d(x, filters=32, kernel_size=5, padding="same", activation=tf.nn.relu)
    x = tf.layers.max_pooling2d(x, pool_size=2, strides=2)                 # 28x28 -> 14x14
    x = tf.layers.conv2d(x, filters=64, kernel_size=5, padding="same", activation=tf.nn.relu)
    x = tf.layers.max_pooling2d(x, pool_size=2, strides=2)                 # 14x14 -> 7x7
    x = tf.layers.dense(tf.layers.flatten(x), 512, activation=tf.nn.relu)
    x = tf.layers.dropout(x, rate=0.4, training=training)
    logits = tf.layers.dense(x, 10)

    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), labels)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    return {"images": images, "labels": labels, "training": training, "loss": loss, "train_op": train_op,
            "accuracy": accuracy, "weights": {v.op.name: v for v in tf.trainable_variables()}}


def progress_line(step: int, steps: int, loss: float, accuracy: float, rate: float) -> str:
    filled = int(BAR_WIDTH * step / steps)
    bar = "#" * filled + "." * (BAR_WIDTH - filled)
    return (f"step {step:>{len(str(steps))}}/{steps} [{bar}] {100 * step / steps:3.0f}%  loss {loss:.4f}  "
            f"train acc {100 * accuracy:5.1f}%  {rate:,.0f} examples/s")


def scalars(values: dict) -> tf.summary.Summary:
    """A Summary holding one scalar per tag, as `writer.add_summary` takes it."""
    return tf.summary.Summary(value=[tf.summary.Summary.Value(tag=tag, simple_value=float(value))
                                     for tag, value in values.items()])


def save_weights(path: Path, arrays: dict) -> None:
    """Writes arrays as .npz (plain arrays, no pickle) to a temp file beside `path`, then renames it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, **arrays)
        os.chmod(temp, 0o644)
        os.replace(temp, path)   # atomic: a reader sees the old file or the new one, never half of one
    except BaseException:
        os.unlink(temp)
        raise


def evaluate(session: tf.Session, model: dict, images: np.ndarray, labels: np.ndarray, chunk: int = 500) -> float:
    correct = 0.0
    for start in range(0, len(images), chunk):
        part = slice(start, start + chunk)
        batch_accuracy = session.run(model["accuracy"], {model["images"]: images[part], model["labels"]: labels[part]})
        correct += batch_accuracy * len(images[part])
    return correct / len(images)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    (x_train, y_train), (x_test, y_test), source = load_mnist(args.data)
    train = DataSet(x_train, y_train.astype(np.int64), seed=args.seed)      # float32 in [0, 1], flattened to 784
    test = DataSet(x_test, y_test.astype(np.int64))
    steps = training_steps(args, train.num_examples)
    print(f"webflow demo: {source}: {train.num_examples:,} training / {test.num_examples:,} test images")
    print(f"model: conv 5x5x32 - pool - conv 5x5x64 - pool - dense 512 - dropout 0.4 - dense 10, "
          f"Adam(lr={args.learning_rate}), batch {args.batch_size}, {steps} steps, seed {args.seed}")

    tf.disable_v2_behavior()
    tf.reset_default_graph()
    model = build_model(args.learning_rate, args.seed)
    writer = tf.summary.FileWriter(args.checkpoint_dir)   # TensorBoard's event file: the curves
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        losses, accuracies, window_start = [], [], time.perf_counter()   # averaged over each progress line
        for step in range(1, steps + 1):
            batch_images, batch_labels = train.next_batch(args.batch_size)
            feed = {model["images"]: batch_images, model["labels"]: batch_labels, model["training"]: True}
            _, loss, accuracy = session.run([model["train_op"], model["loss"], model["accuracy"]], feed)
            losses.append(loss)
            accuracies.append(accuracy)
            if step % args.log_every == 0 or step == steps:
                rate = len(losses) * args.batch_size / max(time.perf_counter() - window_start, 1e-9)
                print(progress_line(step, steps, float(np.mean(losses)), float(np.mean(accuracies)), rate),
                      flush=True)
                writer.add_summary(scalars({"loss": np.mean(losses), "train_accuracy": np.mean(accuracies)}), step)
                losses, accuracies, window_start = [], [], time.perf_counter()
        test_accuracy = evaluate(session, model, test.images, test.labels)
        weights = session.run(model["weights"])
        # the .meta holds the graph too (the dropout switch's tf.cond as an If with its branch functions)
        prefix = tf.train.Saver().save(session, os.path.join(args.checkpoint_dir, "mnist_cnn"), global_step=steps)
    writer.add_summary(scalars({"test_accuracy": test_accuracy}), steps)
    writer.close()
    print(f"test accuracy: {100 * test_accuracy:.2f}% on {test.num_examples:,} images "
          f"(after {steps * args.batch_size / train.num_examples:.3g} epochs, {time.perf_counter() - started:.1f} s)")
    path = Path(args.checkpoint_dir) / "mnist_cnn.npz"
    save_weights(path, weights)
    shapes = ", ".join(f"{name} {list(value.shape)}" for name, value in weights.items())
    print(f"saved weights to {path} ({shapes}); load with numpy.load(path)")
    print(f"checkpoint {prefix}: tf.train.Saver().restore(sess, {prefix!r}), or tf.train.load_checkpoint")
    print(f"training curves in {writer.get_logdir()}: tensorboard --logdir {writer.get_logdir()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
