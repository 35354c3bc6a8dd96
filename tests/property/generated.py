"""The same generated cases for the engines that run out of process (no-NumPy child, Pyodide, TensorFlow).

hypothesis draws them derandomized, so every run sends the same cases; the in-process tests draw theirs with
@given (and shrink a failure), these are collected once per family and sent in one batch per engine.
"""

from __future__ import annotations

import functools

import strategies
from hypothesis import given
from property_settings import LONG, examples

# cases per family for the no-NumPy child (25x under `make fuzz`); the Pyodide and TensorFlow slices pick from them
POOL = {"unary": 80, "binary": 80, "reduction": 60, "matmul": 30, "conv": 20, "pool": 30, "gather": 40,
        "cast": 50, "softmax": 50}


@functools.cache
def cases(family: str, normal: int) -> tuple:
    """`normal` cases of the family (25x under `make fuzz`), the same ones on every run."""
    found: list = []

    @examples(normal, shrink=False)
    @given(strategies.FAMILIES[family]())
    def collect(case):
        found.append(case)

    collect()
    return tuple(found)


def count(normal: int) -> int:
    return normal * 25 if LONG else normal


def spread(family: str, pool: int, wanted: int) -> tuple:
    """`wanted` cases (10x under `make fuzz`) spread evenly over the family's `pool` cases (hypothesis starts
    with the simplest ones, so the first few would all be scalars and zeros)."""
    every = cases(family, pool)
    wanted = wanted * 10 if LONG else wanted
    step = max(len(every) // max(wanted, 1), 1)
    return every[::step][:wanted]
