"""`shuffle`: TensorFlow's ShuffleDataset, draw for draw, so a seeded shuffle gives TensorFlow's order.

TensorFlow's kernel (core/kernels/data/shuffle_dataset_op.cc) keeps a ring buffer of `buffer_size` elements:
before each output it refills the buffer from its input, then draws `r`, one uint32 from a Philox stream
(`SingleSampleAdapter<PhiloxRandom>`: the four words of each 128-bit block in turn), outputs the element at
`start + r % count`, moves the element at `start` into that slot and advances `start`.

Each pass over the data (each iterator, each epoch of a `repeat`) keys that stream with two new seeds from the
dataset's seed generator: with `reshuffle_each_iteration=True` they are the next two uint32 draws of a Philox
stream keyed by the op's (seed, seed2), otherwise (seed, seed2) themselves. TensorFlow's fusion of
`shuffle().repeat()` into ShuffleAndRepeatDataset draws the same numbers, so the orders agree either way.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from webflow.framework.philox import MASK32, PhiloxGenerator, philox4x32
from webflow.ops.dataset_values import DatasetValue


class Uint32Stream:
    """`SingleSampleAdapter<PhiloxRandom>(seed, seed2)`: uint32 draws, four per Philox block, in word order."""

    def __init__(self, seed: int, seed2: int):
        self.generator = PhiloxGenerator(seed, seed2)
        self.pending: list = []

    def __call__(self) -> int:
        if not self.pending:
            counter = self.generator.counter
            words = tuple((counter >> shift) & MASK32 for shift in (0, 32, 64, 96))
            self.pending = list(philox4x32(self.generator.key, words))[::-1]
            self.generator.skip(1)
        return self.pending.pop()


class SeedGenerator:
    """Where each pass gets its (seed, seed2): RandomSeedGenerator (reshuffle) or FixedSeedGenerator."""

    def __init__(self, seed: int, seed2: int, reshuffle: bool):
        if seed == 0 and seed2 == 0:  # RandomSeeds: (0, 0) asks for nondeterministic seeds
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        self.seeds = (seed, seed2)
        self.stream = Uint32Stream(seed, seed2) if reshuffle else None

    def generate(self) -> tuple:
        if self.stream is None:
            return self.seeds
        return self.stream(), self.stream()


class ShuffleValue(DatasetValue):
    def __init__(self, source: DatasetValue, buffer_size: int, seeds: SeedGenerator):
        if buffer_size < 1:
            from webflow.framework.errors import InvalidArgumentError

            raise InvalidArgumentError(None, None, f"buffer_size must be greater than zero. (got {buffer_size})")
        self.source, self.buffer_size, self.seeds = source, buffer_size, seeds

    def elements(self, context: Any = None) -> Iterator[list]:
        random = Uint32Stream(*self.seeds.generate())
        size = self.buffer_size
        ring: list = [None] * size
        start = end = 0
        source = self.source.elements(context)
        while True:
            while source is not None and end - start < size:  # FillBuffer
                element = next(source, None)
                if element is None:
                    source = None
                    break
                ring[end % size] = element
                end += 1
            if end == start:
                return
            index = (start + random() % (end - start)) % size
            element = ring[index]
            ring[index] = ring[start % size]
            ring[start % size] = None
            start += 1
            yield element

    def cardinality(self) -> int:
        return self.source.cardinality()


__all__ = ["Uint32Stream", "SeedGenerator", "ShuffleValue"]
