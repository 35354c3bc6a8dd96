"""The MNIST demo fed by tf.data instead of feed_dict (the page's `?input=tfdata` mode, mnist.html links to it).

The training images are first written out as `tf.train.Example` records to a TFRecord file in memory (in the
browser /tmp is Pyodide's in-memory file system), then the graph reads its batches from an input pipeline

    TFRecordDataset -> map(parse_single_example + decode_raw) -> cache -> shuffle(all, seed) -> repeat(epochs)
                    -> batch(100)

whose iterator's `get_next()` is the default of the model's `pixels` / `labels` placeholders: a training step is
`session.run(train_op)` with no feed at all, while testing and predicting still feed those placeholders.

Nothing here needs NumPy. `tf.train.Example` is protobuf's message class: the site ships protobuf's pure-Python
wheel beside webflow's (site/build.py), so the browser builds the same records as CPython.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from mnist_model import BATCH, EPOCHS, SEED, SIZES, MnistDemo, tf

FEATURES = {"image_raw": tf.FixedLenFeature([], tf.string), "label": tf.FixedLenFeature([], tf.int64)}


def example_record(image: bytes, label: int) -> bytes:
    """One training example as serialized `tf.train.Example` bytes."""
    example = tf.train.Example(features=tf.train.Features(feature={
        "image_raw": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))
    return example.SerializeToString()


def write_records(path: str, images: bytes, labels: bytes) -> int:
    """Writes one Example per image (784 bytes each) to the TFRecord file `path`; the number written."""
    size = SIZES[0]
    with tf.python_io.TFRecordWriter(path) as writer:
        for i, label in enumerate(labels):
            writer.write(example_record(bytes(images[i * size:(i + 1) * size]), int(label)))
    return len(labels)


def parse(record: tf.Tensor) -> tuple:
    """One serialized Example -> (784 uint8 pixels, int32 label): the dataset's map function."""
    features = tf.parse_single_example(record, FEATURES)
    pixels = tf.reshape(tf.decode_raw(features["image_raw"], tf.uint8), [SIZES[0]])
    return pixels, tf.cast(features["label"], tf.int32)


def make_dataset(path: str, examples: int, epochs: int, batch: int = BATCH) -> tf.data.Dataset:
    """The input pipeline: records -> parsed examples, kept after the first pass -> shuffled (the whole set,
    seeded, anew each epoch) -> epochs -> batches. cache() after map parses each record once instead of once per
    epoch: in the browser parsing is pure Python, and 8 passes of it took 10 of the 14 s of training."""
    return (tf.data.TFRecordDataset(path).map(parse).cache()
            .shuffle(examples, seed=SEED).repeat(epochs).batch(batch))


class MnistTfDataDemo(MnistDemo):
    """MnistDemo whose training batches come from a tf.data pipeline over a TFRecord of tf.train.Examples.
    `examples` keeps only the first so many training images (tests), `epochs` the number of passes."""

    input_pipeline = "tf.data"

    def __init__(self, folder: Path | None = None, examples: int | None = None, epochs: int = EPOCHS) -> None:
        self.examples, self.epochs = examples, epochs
        self.records_path = ""
        self.write_ms = 0.0
        super().__init__(folder)
        self.steps = epochs * self.examples // BATCH

    def inputs(self) -> tuple:
        """Writes the TFRecord file, then builds the pipeline in the new graph: its get_next() tensors."""
        self.examples = min(self.examples or len(self.train_labels), len(self.train_labels))
        started = time.perf_counter()
        handle, self.records_path = tempfile.mkstemp(prefix="mnist-train-", suffix=".tfrecord")
        os.close(handle)
        write_records(self.records_path, self.train_images[:self.examples * SIZES[0]],
                      self.train_labels[:self.examples])
        self.write_ms = (time.perf_counter() - started) * 1e3
        dataset = make_dataset(self.records_path, self.examples, self.epochs)
        return tf.data.make_one_shot_iterator(dataset).get_next()

    def info(self) -> dict:
        return {**super().info(), "input_pipeline": self.input_pipeline, "train_examples": self.examples,
                "records_bytes": os.path.getsize(self.records_path), "write_ms": self.write_ms}

    def next_feed(self) -> dict:
        """Nothing to feed: the placeholders default to the iterator's next batch."""
        return {}

    def train_logged(self, count: int) -> list[dict]:
        """Runs `count` training steps, returning each step's loss and the batch it trained on (for tests)."""
        model, log = self.model, []
        for _ in range(count):
            _, loss, pixels, labels = self.session.run(
                [model["train_op"], model["loss"], model["pixels"], model["labels"]])
            rows = pixels.tolist()
            log.append({"loss": float(loss), "labels": [int(v) for v in labels.tolist()],
                        "pixel_sums": [sum(row) for row in rows], "first_row": [int(v) for v in rows[0]]})
            self.step += 1
        return log
