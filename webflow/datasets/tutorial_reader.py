"""The MNIST reader of the TF1 tutorials (`tensorflow.examples.tutorials.mnist.input_data.read_data_sets`).

    from webflow.datasets.tutorial_reader import read_data_sets
    mnist = read_data_sets("MNIST_data", one_hot=True)
    batch_xs, batch_ys = mnist.train.next_batch(100)

`.train`, `.validation` and `.test` each have `.images` (float32 in [0, 1], flattened to 784 when
`reshape=True`), `.labels` (digits, or one-hot rows with `one_hot=True`), `.num_examples`,
`.epochs_completed` and `.next_batch(batch_size, shuffle=True)`. The validation set is the first
`validation_size` training images, as in TensorFlow.
"""

from __future__ import annotations

import collections
import os
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.datasets import mnist

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


class DataSet:
    """Images and labels of one split, handed out in (shuffled) mini-batches epoch after epoch."""

    def __init__(self, images: Any, labels: Any, dtype: Any = np.float32, reshape: bool = True,
                 seed: int | None = None):
        if len(images) != len(labels):
            raise ValueError(f"images.shape: {images.shape} labels.shape: {labels.shape}")
        if reshape and images.ndim == 3:
            images = images.reshape(images.shape[0], -1)   # [n, 28, 28] -> [n, 784]
        if np.dtype(dtype) == np.float32:
            images = images.astype(np.float32) / np.float32(255.0)   # bytes 0..255 -> [0, 1]
        elif np.dtype(dtype) != np.uint8:
            raise TypeError(f"Invalid image dtype {np.dtype(dtype)!r}, expected uint8 or float32")
        self._images, self._labels = images, labels
        self._num_examples = len(images)
        self._epochs_completed = 0
        self._index_in_epoch = 0
        self._order = np.arange(self._num_examples)
        self._rng = np.random.default_rng(seed)

    @property
    def images(self) -> Any:
        return self._images

    @property
    def labels(self) -> Any:
        return self._labels

    @property
    def num_examples(self) -> int:
        return self._num_examples

    @property
    def epochs_completed(self) -> int:
        return self._epochs_completed

    def next_batch(self, batch_size: int, fake_data: bool = False, shuffle: bool = True) -> tuple:
        """The next `batch_size` examples. The order is reshuffled at the start of every epoch (if `shuffle`);
        a batch that crosses the end of an epoch takes the rest of this epoch and the start of the next."""
        if fake_data:
            raise NotImplementedError("fake_data is not supported")
        if batch_size <= 0 or self._num_examples == 0:
            raise ValueError(f"batch_size must be positive and the data set not empty (got {batch_size}, "
                             f"{self._num_examples} examples)")
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            self._order = self._rng.permutation(self._num_examples)
        if start + batch_size <= self._num_examples:
            self._index_in_epoch = start + batch_size
            picked = self._order[start:self._index_in_epoch]
            return self._images[picked], self._labels[picked]
        # The epoch ends inside this batch: finish it, start the next one (reshuffled), take the rest there.
        rest = self._order[start:]
        self._epochs_completed += 1
        if shuffle:
            self._order = self._rng.permutation(self._num_examples)
        needed = batch_size - len(rest)
        taken: list = [rest]
        while needed > self._num_examples:          # a batch larger than the whole set spans several epochs
            taken.append(self._order)
            needed -= self._num_examples
            self._epochs_completed += 1
            if shuffle:
                self._order = self._rng.permutation(self._num_examples)
        taken.append(self._order[:needed])
        self._index_in_epoch = needed
        picked = np.concatenate(taken)
        return self._images[picked], self._labels[picked]


def dense_to_one_hot(labels: Any, num_classes: int = 10) -> Any:
    """Digit labels [n] -> one-hot rows [n, num_classes] of float64 (as the TF tutorial's helper)."""
    one_hot = np.zeros((len(labels), num_classes))
    one_hot[np.arange(len(labels)), labels] = 1.0
    return one_hot


def read_data_sets(train_dir: str | os.PathLike, fake_data: bool = False, one_hot: bool = False,
                   dtype: Any = np.float32, reshape: bool = True, validation_size: int = 5000,
                   seed: int | None = None, source_url: str | None = None) -> Datasets:
    """MNIST from `train_dir` (the four IDX files, gz or raw; downloaded there with sha256 checks if missing)."""
    if fake_data:
        raise NotImplementedError("fake_data is not supported")
    folder = mnist.find_folder(train_dir)
    if folder is None:
        folder = mnist.download_files(train_dir, mirrors=(source_url,) if source_url else None)
    (train_images, train_labels), (test_images, test_labels) = mnist.load_folder(folder)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError(f"Validation size should be between 0 and {len(train_images)}. Received: {validation_size}.")
    if one_hot:
        train_labels, test_labels = dense_to_one_hot(train_labels), dense_to_one_hot(test_labels)
    options = {"dtype": dtype, "reshape": reshape}
    return Datasets(
        train=DataSet(train_images[validation_size:], train_labels[validation_size:], seed=seed, **options),
        validation=DataSet(train_images[:validation_size], train_labels[:validation_size], seed=seed, **options),
        test=DataSet(test_images, test_labels, seed=seed, **options))


__all__ = ["DataSet", "Datasets", "dense_to_one_hot", "read_data_sets"]
