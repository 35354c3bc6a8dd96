"""The order in which tf_keras's `fit` visits array examples, draw for draw (its TensorLikeDataAdapter).

tf_keras turns arrays into a tf.data pipeline of *indices* and gathers each batch with them:

    Dataset.range(1).repeat(epochs).map(permutation)      one index vector per epoch
        .flat_map(slice it into batches of batch_size)     the partial last batch is kept

- shuffle=True: `permutation` is `tf.random.shuffle(tf.range(n))`, one RandomShuffle kernel serving every epoch
  of one `fit` (one iterator), so its Philox counter continues from epoch to epoch.
- shuffle="batch": the index vector stays in order; the batches come out of `shuffle(1024).repeat(epochs)` (a
  ShuffleDataset drawing new seeds each epoch), then *each array* of a batch goes through its own
  `tf.random.shuffle`: x and y get different permutations of the batch (tf_keras separates the pairs within a
  batch; we do the same, as the point is to train exactly as tf_keras does).
- shuffle=False: 0, 1, 2 ... every epoch.

Data holding a SparseTensor (DenseFeatures' categorical features) takes tf_keras's other path, its
CompositeTensorDataAdapter: `from_tensor_slices(data).shuffle(n).batch(batch_size)`, a new iterator each epoch
(`DataOrder(..., composite=True)`):
- shuffle=True or "batch": a ShuffleDataset whose buffer holds every example, so each epoch is a permutation drawn
  from the epoch's seeds (reshuffle_each_iteration); its seed is an eager op seed drawn when fit starts, and the
  iterator tf_keras's DataHandler makes before its first epoch (and replaces) uses up the first seeds.
- shuffle=False: in order, as for arrays.

Seeds: each of those random ops is a seedless op in a freshly traced tf.data function, so TensorFlow's `get_seed`
gives the k-th of them (global seed, k) (k counts per function graph); with no global seed (0, 0) asks for
random seeds, and the order differs from run to run, as in tf_keras.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webflow.framework import random_seed
from webflow.framework.graph import Graph
from webflow.framework.philox import PhiloxGenerator

SHUFFLE_BUFFER = 1024   # tf_keras's buffer for shuffle="batch"


def function_op_seeds(count: int) -> list:
    """(seed, seed2) of the first `count` seedless random ops of a function traced now: TF's get_seed run in a
    fresh graph that inherits the global seed (a tf.data function's FuncGraph); (0, 0) when no seed is set."""
    graph = Graph()
    graph.seed = random_seed.global_seed()
    with graph.as_default():
        seeds = [random_seed.get_seed(None) for _ in range(count)]
    return [(seed or 0, seed2 or 0) for seed, seed2 in seeds]


class ShuffleKernel:
    """One RandomShuffle kernel's state (ops/random_ops.py): a Philox generator that every call moves on."""

    def __init__(self, seeds: tuple):
        self.generator = PhiloxGenerator(*seeds)

    def permutation(self, size: int) -> list:
        """The permutation RandomShuffle applies to `size` rows (no draw for 0 or 1 row, as the kernel)."""
        from webflow.backends.numpy.random_distributions import shuffle_permutation

        if size <= 1:
            return list(range(size))
        return shuffle_permutation(self.generator.reserve_uint32s(size - 1), size)


class DataOrder:
    """Batches of indices for `arrays` arrays of `size` examples, epoch after epoch, as tf_keras draws them.

    Each batch is a list with one index per array: a slice (in order) or an int64 index vector."""

    def __init__(self, size: int, batch_size: int, shuffle: Any, arrays: int, epochs: int = 1,
                 composite: bool = False):
        self.size, self.batch_size, self.arrays, self.epochs = size, batch_size, arrays, epochs
        self.mode = shuffle.lower() if isinstance(shuffle, str) else bool(shuffle)
        if composite and self.mode:
            self.mode = "composite"
            self.whole_shuffle = _whole_shuffle(size)
        elif self.mode == "batch":
            from webflow.ops.dataset_shuffle import SeedGenerator, ShuffleValue
            from webflow.ops.dataset_values import TensorSliceValue

            numbers = TensorSliceValue([_arange(self.batch_count())])
            self.batch_shuffle = ShuffleValue(numbers, SHUFFLE_BUFFER, SeedGenerator(*function_op_seeds(1)[0], True))
            self.row_kernels = [ShuffleKernel(seeds) for seeds in function_op_seeds(arrays)]
        elif self.mode:
            self.kernel = ShuffleKernel(function_op_seeds(1)[0])

    def batch_count(self) -> int:
        return -(-self.size // self.batch_size)

    def batches(self) -> Iterator[list]:
        """Every epoch's batches in turn (tf_keras's one iterator over `repeat(epochs)`)."""
        for _ in range(self.epochs):
            yield from self._epoch()

    def epoch_batches(self) -> Iterator[list]:
        """One epoch's batches (composite data: tf_keras makes a new iterator each epoch)."""
        return self._epoch()

    def _epoch(self) -> Iterator[list]:
        if self.mode == "composite":
            order = _as_index([int(element[0]) for element in self.whole_shuffle.elements()])
            for number in range(self.batch_count()):
                yield [order[slice(*self._bounds(number))]] * self.arrays
        elif self.mode == "batch":
            for element in self.batch_shuffle.elements():
                yield self._rows_shuffled(self._bounds(int(element[0])))
        elif self.mode:
            order = _as_index(self.kernel.permutation(self.size))
            for number in range(self.batch_count()):
                yield [order[slice(*self._bounds(number))]] * self.arrays
        else:
            for number in range(self.batch_count()):
                yield [slice(*self._bounds(number))] * self.arrays

    def _bounds(self, number: int) -> tuple:
        start = number * self.batch_size
        return start, min(start + self.batch_size, self.size)

    def _rows_shuffled(self, bounds: tuple) -> list:
        """Each array's own RandomShuffle of the batch's rows (one kernel per array, in tf.nest order)."""
        start, stop = bounds
        return [_as_index([start + row for row in kernel.permutation(stop - start)]) for kernel in self.row_kernels]


def _whole_shuffle(size: int) -> Any:
    """`Dataset.shuffle(size)` made eagerly (its seeds: TF's data get_seed of an eager op seed), over the example
    numbers, with the seeds of the one iterator tf_keras makes and drops before the first epoch already drawn."""
    from webflow.ops.dataset_shuffle import SeedGenerator, ShuffleValue
    from webflow.ops.dataset_values import TensorSliceValue

    seed, seed2 = random_seed.get_seed(None)
    shuffle = ShuffleValue(TensorSliceValue([_arange(size)]), size, SeedGenerator(seed or 0, seed2 or 0, True))
    shuffle.seeds.generate()   # DataHandler.enumerate_epochs: iter(dataset), then a new iterator per epoch
    return shuffle


def _arange(count: int) -> Any:
    from webflow.backends.arrays.numpy_arrays import np

    return np.arange(count, dtype=np.int64)


def _as_index(values: list) -> Any:
    from webflow.backends.arrays.numpy_arrays import np

    return np.asarray(values, dtype=np.int64)


__all__ = ["DataOrder", "ShuffleKernel", "function_op_seeds", "SHUFFLE_BUFFER"]
