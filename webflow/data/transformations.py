"""The `dataset.apply(...)` transformations of `tf.data.experimental` (and TF1's `tf.contrib.data`), each a
composition of Dataset methods that yields the same elements as TensorFlow's fused op (ShuffleAndRepeatDataset
draws the same numbers as shuffle then repeat; MapAndBatchDataset batches what map gives)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def shuffle_and_repeat(buffer_size: Any, count: Any = None, seed: int | None = None) -> Callable:
    """shuffle(buffer_size, seed) then repeat(count): each epoch reshuffled."""
    return lambda dataset: dataset.shuffle(buffer_size, seed=seed).repeat(count)


def map_and_batch(map_func: Callable, batch_size: Any, num_parallel_batches: Any = None,
                  drop_remainder: bool = False, num_parallel_calls: Any = None) -> Callable:
    """map(map_func) then batch(batch_size, drop_remainder)."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder=drop_remainder)


def parallel_interleave(map_func: Callable, cycle_length: int, block_length: int = 1, sloppy: bool = False,
                        buffer_output_elements: Any = None, prefetch_input_elements: Any = None) -> Callable:
    """interleave(map_func, cycle_length, block_length) in its deterministic order (sloppy=False)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length=cycle_length, block_length=block_length)


def batch_and_drop_remainder(batch_size: Any) -> Callable:
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def unbatch() -> Callable:
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start: int = 0) -> Callable:
    return lambda dataset: dataset.enumerate(start)


def prefetch_to_device(device: str, buffer_size: Any = None) -> Callable:
    """One CPU here: prefetch(buffer_size)."""
    return lambda dataset: dataset.prefetch(1 if buffer_size is None else buffer_size)


def copy_to_device(target_device: str, source_device: str = "/cpu:0") -> Callable:
    return lambda dataset: dataset  # one device: nothing to copy


__all__ = ["shuffle_and_repeat", "map_and_batch", "parallel_interleave", "batch_and_drop_remainder", "unbatch",
           "enumerate_dataset", "prefetch_to_device", "copy_to_device"]
