"""The stateless random ops without NumPy (ops/stateless_random_ops.py has the NumPy kernels and the math):
the same numbers, from the same Philox stream, with the Box-Muller and truncation of random_kernels.py.
`key_and_counter` (TensorFlow's GenerateKey) and `generator_at` live here so both kernels share them."""

from __future__ import annotations

import array
import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.carray import CArray
from webflow.backends.portable import random_kernels
from webflow.framework import dtypes
from webflow.framework.philox import MASK32, PhiloxGenerator, philox4x32

_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)


def key_and_counter(seed0: int, seed1: int) -> tuple:
    """(key as one uint64, counter as two uint64) from a seed pair: Philox(fixed key, seed words) = m0..m3;
    key = m0 | m1 << 32, counter = (0, m2 | m3 << 32)."""
    seed0, seed1 = seed0 % (1 << 64), seed1 % (1 << 64)
    mix = [int(w) for w in philox4x32(_SCRAMBLE_KEY, (seed0 & MASK32, seed0 >> 32, seed1 & MASK32, seed1 >> 32))]
    return mix[0] | mix[1] << 32, (0, mix[2] | mix[3] << 32)


def generator_at(key: int, counter: tuple) -> PhiloxGenerator:
    """A Philox stream starting at (key, counter): what the V2 ops draw from."""
    generator = PhiloxGenerator.__new__(PhiloxGenerator)
    generator.key, generator.counter = (key & MASK32, key >> 32), counter[0] | counter[1] << 64
    return generator


def get_key_counter(seed: Any, *, Tseed: Any = None) -> list:  # noqa: N803 - TensorFlow's attr name
    values = [int(v) for v in backend_values.flat_list(seed)]
    key, counter = key_and_counter(values[0], values[1])
    return [CArray(array.array("Q", [key]), (1,), dtypes.uint64),
            CArray(array.array("Q", list(counter)), (2,), dtypes.uint64)]


def _setup(shape: Any, key: Any, counter: Any, dtype: Any, op: str) -> tuple:
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype.name not in ("float32", "float64"):
        raise TypeError(f"{op} of {dtype.name} needs NumPy, which is not installed here")
    dims = backend_values.output_dims(shape, op)
    key = int(backend_values.flat_list(key)[0])
    counter = tuple(int(c) for c in backend_values.flat_list(counter))
    return dtype, dims, int(math.prod(dims)), generator_at(key, counter)


def _result(values: list, dims: list, dtype: Any) -> CArray:
    return CArray(array.array(c_array.TYPECODES[dtype.name], values), tuple(dims), dtype)


def stateless_uniform(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any, Tshape: Any = None) -> CArray:  # noqa: N803
    dtype, dims, count, generator = _setup(shape, key, counter, dtype, "StatelessRandomUniformV2")
    if dtype.name == "float64":
        words = random_kernels._words(generator, 0, 2 * count)
        return _result(random_kernels._unit_f64(words[0::2], words[1::2]), dims, dtype)
    return _result(random_kernels._unit_f32(random_kernels._words(generator, 0, count)), dims, dtype)


def stateless_normal(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any, Tshape: Any = None) -> CArray:  # noqa: N803
    dtype, dims, count, generator = _setup(shape, key, counter, dtype, "StatelessRandomNormalV2")
    double = dtype.name == "float64"
    words = random_kernels._words(generator, 0, (4 if double else 2) * ((count + 1) // 2))
    return _result(random_kernels._pairs(words, double)[:count], dims, dtype)


def stateless_truncated_normal(shape: Any, key: Any, counter: Any, alg: Any, *, dtype: Any,
                               Tshape: Any = None) -> CArray:  # noqa: N803
    """Each group of values reads its own blocks (256 per value of a group apart) until it is full."""
    dtype, dims, count, generator = _setup(shape, key, counter, dtype, "StatelessTruncatedNormalV2")
    double = dtype.name == "float64"
    per_group, words_per_pair = (2, 4) if double else (4, 2)
    stride = per_group * random_kernels.VARIABLE_BLOCKS_PER_GROUP // 4
    values: list = []
    for group in range(-(-count // per_group)):
        kept: list = []
        words_read, batch = 0, (per_group // 2 + 1) * words_per_pair
        while len(kept) < per_group:
            words = random_kernels._words(generator, group * stride, words_read + batch)[words_read:]
            kept += [v for v in random_kernels._pairs(words, double) if abs(v) < random_kernels.TRUNCATE_AT]
            words_read += batch
        values += kept[:per_group]
    return _result(values[:count], dims, dtype)
