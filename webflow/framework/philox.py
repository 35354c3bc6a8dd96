"""Philox4x32-10: the counter-based random generator behind TensorFlow's stateful random ops.

A counter-based generator is a pure function: `philox4x32(key, counter) -> 4 x uint32`. The key
(64 bits, two uint32 words) comes from the op's `seed`, the 128-bit counter (four uint32 words)
starts at `(0, 0, seed2_lo, seed2_hi)`; asking for "the next 128 random bits" just means
"evaluate at counter, then counter + 1". Because any block can be computed without the ones
before it, TensorFlow fills big tensors in parallel, and so can we: NumPy evaluates thousands of
counters at once (each word below is an array).

`philox4x32` is written with `*`, `>>`, `&`, `^` and `+` only, so the same function works on Python
ints (no NumPy needed) and on NumPy uint64 arrays (products of two 32-bit words fit in 64 bits).

Reference: Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3" (SC11), and TensorFlow's
`core/lib/random/philox_random.h` (same constants, same word order).
"""

from __future__ import annotations

import os
import threading
from typing import Any

MASK32 = 0xFFFFFFFF
# Round multipliers (Philox M4x32) and the Weyl key increments (golden ratio, sqrt(3) - 1).
MULTIPLIER_A = 0xD2511F53
MULTIPLIER_B = 0xCD9E8D57
KEY_BUMP_A = 0x9E3779B9
KEY_BUMP_B = 0xBB67AE85
ROUNDS = 10
_RESERVE_LOCK = threading.Lock()


def philox_round(c0: Any, c1: Any, c2: Any, c3: Any, k0: Any, k1: Any) -> tuple:
    """One Philox round: two 32x32->64 multiplies, whose high halves are mixed with the key."""
    product_a = MULTIPLIER_A * c0
    product_b = MULTIPLIER_B * c2
    return ((product_b >> 32) ^ c1 ^ k0, product_b & MASK32,
            (product_a >> 32) ^ c3 ^ k1, product_a & MASK32)


def philox4x32(key: tuple, counter: tuple) -> tuple:
    """(k0, k1), (c0, c1, c2, c3) -> four uint32 words: ten rounds, bumping the key between rounds.

    Works on Python ints or on NumPy uint64 arrays of words (all values < 2**32).
    """
    k0, k1 = key
    c0, c1, c2, c3 = counter
    for round_index in range(ROUNDS):
        if round_index:
            k0 = (k0 + KEY_BUMP_A) & MASK32
            k1 = (k1 + KEY_BUMP_B) & MASK32
        c0, c1, c2, c3 = philox_round(c0, c1, c2, c3, k0, k1)
    return c0, c1, c2, c3


class PhiloxGenerator:
    """TensorFlow's `PhiloxRandom` state: a fixed key and a 128-bit counter that only moves forward.

    `GuardedPhiloxRandom` (one per stateful op kernel) hands each run a copy of the generator and then
    skips its own counter past every block that run may use, so the next run gets fresh numbers.
    """

    def __init__(self, seed: int, seed2: int):
        if seed == 0 and seed2 == 0:
            # TensorFlow's convention: both seeds 0 means "nondeterministic".
            seed = int.from_bytes(os.urandom(8), "little")
            seed2 = int.from_bytes(os.urandom(8), "little")
        seed &= (1 << 64) - 1
        seed2 &= (1 << 64) - 1
        self.key = (seed & MASK32, seed >> 32)
        self.counter = seed2 << 64  # the 128-bit counter as one Python int: words (0, 0, lo, hi)

    def copy(self) -> PhiloxGenerator:
        twin = PhiloxGenerator.__new__(PhiloxGenerator)
        twin.key, twin.counter = self.key, self.counter
        return twin

    def skip(self, blocks: int) -> None:
        """Advance the counter by `blocks` 128-bit blocks (wrapping at 2**128)."""
        self.counter = (self.counter + blocks) % (1 << 128)

    def reserve(self, blocks: int) -> PhiloxGenerator:
        """A generator at the current counter; this one moves `blocks` ahead (ReserveSamples128)."""
        with _RESERVE_LOCK:  # two threads running one op (queue runners) must not draw the same numbers
            local = self.copy()
            self.last_reserved = local.copy()
            self.skip(blocks)
        return local

    def replay_last(self) -> PhiloxGenerator:
        """A generator at the counter the previous reservation started from: the same numbers again."""
        last = getattr(self, "last_reserved", None)
        return (last or self).copy()

    def reserve_outputs(self, output_count: int, multiplier: int = 256) -> PhiloxGenerator:
        """ReserveRandomOutputs: reserves `output_count * multiplier` blocks, generously, as TF does."""
        return self.reserve(output_count * multiplier)

    def reserve_uint32s(self, count: int) -> PhiloxGenerator:
        """ReserveSamples32: enough blocks for `count` single uint32 draws."""
        return self.reserve((count + 3) // 4)

    def blocks(self, start: int, count: int) -> Any:
        """uint32 array (count, 4): the blocks at counters counter+start ... counter+start+count-1."""
        import numpy as np  # only the NumPy kernels call this (framework/ may not import backends/)

        return self.blocks_at(np.arange(start, start + count, dtype=np.uint64))

    def blocks_at(self, offsets: Any) -> Any:
        """uint32 array (len(offsets), 4): the blocks at counters counter + offsets (offsets < 2**63)."""
        import numpy as np

        offsets = np.asarray(offsets, dtype=np.uint64)
        first = self.counter
        # 128-bit add of `offsets` to the counter, one 32-bit word at a time with carries.
        low = offsets & np.uint64(MASK32)
        high = offsets >> np.uint64(32)
        c0 = (first & MASK32) + low
        c1 = ((first >> 32) & MASK32) + high + (c0 >> np.uint64(32))
        c2 = ((first >> 64) & MASK32) + (c1 >> np.uint64(32))
        c3 = (((first >> 96) & MASK32) + (c2 >> np.uint64(32))) & MASK32
        counter = (c0 & MASK32, c1 & MASK32, c2 & MASK32, c3)
        key = (np.uint64(self.key[0]), np.uint64(self.key[1]))
        words = philox4x32(key, counter)
        return np.stack(words, axis=-1).astype(np.uint32).reshape(-1, 4)

    def uint32s(self, count: int, start_block: int = 0) -> Any:
        """The next `count` uint32 words, in order, from block `start_block` on (SingleSampleAdapter)."""
        return self.blocks(start_block, (count + 3) // 4).reshape(-1)[:count]


__all__ = ["philox4x32", "philox_round", "PhiloxGenerator"]
