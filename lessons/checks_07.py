"""The checkers of lesson 7 (input pipelines). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import Any

from checks import exercise, hint_unless

import webflow.compat.v1 as tf
from webflow.datasets import mnist

FEATURES = {"image": tf.io.FixedLenFeature([], tf.string), "label": tf.io.FixedLenFeature([], tf.int64)}


def _sample(count: int) -> tuple[list, list]:
    """The first `count` training images (as 28 lists of 28 ints) and labels of the shipped MNIST sample."""
    (images, labels), _ = mnist.load_sample()
    pictures = images.reshape(images.shape[0], 784)
    return ([pictures[i].tolist() for i in range(count)], [int(labels[i]) for i in range(count)])


def _example(pixels: list, label: int) -> bytes:
    return tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[bytes(pixels)])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))})).SerializeToString()


def _write_records(directory: str, count: int) -> tuple[str, list]:
    """`count` MNIST Examples in a TFRecord file; returns its path and the serialized records."""
    pixels, labels = _sample(count)
    records = [_example(p, label) for p, label in zip(pixels, labels)]
    path = os.path.join(directory, "check.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    return path, records


def _dtype(array: Any) -> str:
    """The dtype's name ("float32"), for a NumPy array and for webflow's CArray alike."""
    return getattr(array.dtype, "name", str(array.dtype))


def _all_elements(dataset: Any) -> list:
    """Every element of a dataset, run in a graph of its own (a one-shot iterator until OutOfRangeError)."""
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    found = []
    with tf.Session() as sess:
        try:
            while True:
                found.append(sess.run(next_element))
        except tf.errors.OutOfRangeError:
            return found


@exercise("7.1")
def exercise_1(make_example: Callable) -> None:
    """make_example(image, label) -> tf.train.Example: "pixels", 784 floats in [0, 1]; "label", an int64."""
    (images, labels), _ = mnist.load_sample()
    example = make_example(images[7], labels[7])
    hint_unless(not isinstance(example, bytes), "return the Example itself; the writer's cell calls "
                                                "SerializeToString() on it.")
    hint_unless(type(example).__name__ == "Example", f"make_example returned {type(example).__name__}, not a "
                "tf.train.Example: build one from tf.train.Features(feature={name: tf.train.Feature(...)}).")
    feature = example.features.feature
    hint_unless(sorted(feature) == ["label", "pixels"], f"the Example's features are {sorted(feature)}; the "
                "exercise asks for exactly two, named 'pixels' and 'label'.")
    hint_unless(feature["label"].WhichOneof("kind") == "int64_list", "a label is a whole number: which of the "
                "three lists (bytes_list, float_list, int64_list) holds those?")
    hint_unless(feature["pixels"].WhichOneof("kind") == "float_list", "the pixels should be stored as numbers "
                "between 0 and 1, not as bytes: which list holds those?")
    values = list(feature["pixels"].float_list.value)
    hint_unless(len(values) == 784, f"'pixels' holds {len(values)} values, not 28 × 28 = 784: flatten the image "
                "(reshape) and store every pixel.")
    hint_unless(max(values) <= 1.0, f"the largest pixel value is {max(values)}: scale the bytes 0..255 into "
                "[0, 1].")
    expected = [p / 255.0 for p in images[7].reshape(784).tolist()]
    hint_unless(all(abs(v - e) < 1e-6 for v, e in zip(values, expected)), "the pixel values are not the image's "
                "bytes divided by 255, in row order.")
    hint_unless(list(feature["label"].int64_list.value) == [int(labels[7])], "the label value is not the label "
                "you were given.")


@exercise("7.2")
def exercise_2(parse_record: Callable) -> None:
    """parse_record(record) -> (image float32 [28, 28] in [0, 1], label int32), as tensors."""
    with tempfile.TemporaryDirectory() as directory, tf.Graph().as_default():
        path, _ = _write_records(directory, 3)
        dataset = tf.data.TFRecordDataset(path).map(parse_record)
        elements = _all_elements(dataset)
    hint_unless(isinstance(elements[0], (tuple, list)) and len(elements[0]) == 2,
                "parse_record should return a pair: (image, label).")
    pixels, labels = _sample(3)
    image, label = elements[0]
    hint_unless(_dtype(image) == "float32", f"the image is {_dtype(image)}; a model wants float32 (tf.cast).")
    hint_unless(tuple(image.shape) == (28, 28), f"the image has shape {tuple(image.shape)}: reshape it to "
                "[28, 28].")
    hint_unless(max(image.reshape(784).tolist()) <= 1.0, "pixel values go up to 255: scale them into [0, 1].")
    hint_unless(_dtype(label) == "int32", f"the label is {_dtype(label)}; make it int32 (tf.cast).")
    for (image, label), expected_pixels, expected_label in zip(elements, pixels, labels):
        got = image.reshape(784).tolist()
        hint_unless(all(abs(g - e / 255.0) < 1e-6 for g, e in zip(got, expected_pixels)),
                    "the pixels are not the record's pixels divided by 255.")
        hint_unless(int(label) == expected_label, "the label is not the record's label.")


@exercise("7.3")
def exercise_3(make_dataset: Callable) -> None:
    """make_dataset(path) -> two shuffled epochs of the file's records, in batches of 50 (only the last smaller)."""
    with tempfile.TemporaryDirectory() as directory, tf.Graph().as_default():
        path, records = _write_records(directory, 110)
        dataset = make_dataset(path)
        hint_unless(dataset is not None and hasattr(dataset, "batch"), "make_dataset should return a tf.data "
                    "Dataset (start from tf.data.TFRecordDataset(path)).")
        batches = [[bytes(r) for r in batch.tolist()] if hasattr(batch, "tolist") else batch
                   for batch in _all_elements(dataset)]
    hint_unless(batches and isinstance(batches[0], list), "each element should be a batch (a vector of "
                "records): batch(50).")
    seen = [record for batch in batches for record in batch]
    sizes = [len(batch) for batch in batches]
    hint_unless(len(seen) != len(records), "every record came once: two epochs means seeing each one twice.")
    hint_unless(sorted(seen) == sorted(records * 2), f"the dataset yielded {len(seen)} records, not each of the "
                f"{len(records)} twice.")
    hint_unless(max(sizes) == 50, f"the batches hold up to {max(sizes)} records, not 50.")
    hint_unless(all(size == 50 for size in sizes[:-1]), f"batch sizes {sizes}: a short batch in the middle means "
                "each epoch was batched on its own; repeat first, then batch, so batches run across epochs.")
    hint_unless(seen[:len(records)] != records, "the records come in the file's order: shuffle them.")
