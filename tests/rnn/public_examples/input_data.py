"""Stand-in for `tensorflow.examples.tutorials.mnist.input_data` (TF 1.x only; TensorFlow 2.21 lacks it), for both
engines, so webflow and TensorFlow see the very same batches.

`read_data_sets(train_dir, one_hot)` ignores `train_dir` (the programs say "/tmp/data/": the tests never download)
and reads the four IDX files from `$WEBFLOW_DATA/mnist`. As in TF 1.x: the first 5,000 training images are the
validation set, images are float32 in [0, 1] flattened to 784, and `next_batch` shuffles at the start of each
epoch — here with a RandomState seeded by 0 instead of NumPy's global generator, so two processes agree.
Imports NumPy only (it runs under TensorFlow's interpreter too).
"""

from __future__ import annotations

import collections
import gzip
import os

import numpy as np

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read_idx(name: str) -> np.ndarray:
    with gzip.open(os.path.join(os.environ["WEBFLOW_DATA"], "mnist", name), "rb") as handle:
        data = handle.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)


class DataSet:
    def __init__(self, images: np.ndarray, labels: np.ndarray, one_hot: bool) -> None:
        self.images = images.reshape(len(images), -1).astype(np.float32) / np.float32(255.0)
        self.labels = np.eye(10)[labels] if one_hot else labels
        self.num_examples = len(images)
        self._rng = np.random.RandomState(0)
        self._order = np.arange(self.num_examples)
        self._index = 0

    def next_batch(self, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
        if self._index == 0:
            self._order = self._rng.permutation(self.num_examples)
        if self._index + batch_size > self.num_examples:  # a new epoch (the tail of the old one is dropped)
            self._order, self._index = self._rng.permutation(self.num_examples), 0
        picked = self._order[self._index:self._index + batch_size]
        self._index += batch_size
        return self.images[picked], self.labels[picked]


def read_data_sets(train_dir: str, one_hot: bool = False, validation_size: int = 5000) -> Datasets:
    images, labels = _read_idx("train-images-idx3-ubyte.gz"), _read_idx("train-labels-idx1-ubyte.gz")
    test = DataSet(_read_idx("t10k-images-idx3-ubyte.gz"), _read_idx("t10k-labels-idx1-ubyte.gz"), one_hot)
    return Datasets(DataSet(images[validation_size:], labels[validation_size:], one_hot),
                    DataSet(images[:validation_size], labels[:validation_size], one_hot), test)
