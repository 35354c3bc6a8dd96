"""CArray prints exactly as NumPy prints the same values: str, repr and format, NumPy being the oracle.

Each case builds a CArray straight from an ndarray's buffer (no webflow op involved) and compares
str() / repr() / format() with what NumPy gives for that ndarray, under NumPy's default print options.
"""

from __future__ import annotations

import array

import numpy as np
import pytest

from webflow.backends.arrays.carray import TYPECODES, CArray
from webflow.framework import dtypes


def carray(values: np.ndarray) -> CArray:
    return CArray(array.array(TYPECODES[values.dtype.name], values.reshape(-1).tolist()), values.shape,
                  dtypes.as_dtype(values.dtype.name))


def assert_prints_like_numpy(values: np.ndarray) -> None:
    c = carray(values)
    assert str(c) == str(values), f"str of {values.dtype} {values.shape}:\n{values!s}\n{c!s}"
    assert repr(c) == repr(values), f"repr of {values.dtype} {values.shape}:\n{values!r}\n{c!r}"
    assert f"{c}" == f"{values}"


def _random_floats(rng: np.random.Generator, shape: tuple, kind: str) -> np.ndarray:
    size = int(np.prod(shape))
    if kind == "normal":
        flat = rng.standard_normal(size)
    elif kind == "wide":       # 1e-12 .. 1e12 and signs: scientific notation
        flat = rng.choice([-1.0, 1.0], size) * 10.0 ** rng.uniform(-12, 12, size)
    elif kind == "large":      # >= 1e8: scientific
        flat = rng.uniform(1e8, 1e10, size)
    elif kind == "small":      # < 1e-4: scientific
        flat = rng.uniform(0, 1e-5, size)
    elif kind == "whole":      # whole numbers: "1." and alignment
        flat = rng.integers(-500, 500, size).astype(float)
    elif kind == "short":      # few digits: padding of fractions
        flat = np.round(rng.uniform(-50, 50, size), rng.integers(0, 4))
    elif kind == "special":    # nan, +-inf, -0.0 among ordinary values
        flat = rng.standard_normal(size)
        flat[rng.integers(0, size, max(1, size // 3))] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
    else:                      # ratio just around 1000 and values near the 1e-4 / 1e8 limits
        flat = rng.choice([1e-4, 1.0001e-4, 0.1, 99.99, 100.1, 1e8 - 1, 1.0, 1000.0], size)
    return flat.reshape(shape)


SHAPES = [(), (1,), (5,), (3, 4), (2, 3, 4), (30,), (7, 12), (2, 2, 2, 3), (1001,), (40, 30), (11, 11, 11)]
KINDS = ["normal", "wide", "large", "small", "whole", "short", "special", "limits"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_random_float_arrays_print_as_numpy(dtype: type, kind: str) -> None:
    rng = np.random.default_rng(abs(hash((kind, np.dtype(dtype).name))) % 2**32)
    for shape in SHAPES:
        for _ in range(3):
            assert_prints_like_numpy(_random_floats(rng, shape, kind).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32])
def test_integer_arrays_print_as_numpy(dtype: type) -> None:
    rng = np.random.default_rng(1)
    info = np.iinfo(dtype)
    for shape in SHAPES:
        for low, high in ((0, 10), (-5, 5), (info.min, info.max)):
            low = max(low, info.min)
            assert_prints_like_numpy(rng.integers(low, high, shape, dtype=dtype, endpoint=True))


def test_bool_arrays_print_as_numpy() -> None:
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        assert_prints_like_numpy(np.asarray(rng.random(shape) < 0.5))
    assert_prints_like_numpy(np.array(True))
    assert_prints_like_numpy(np.array([False]))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (2, 0, 3)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.bool_])
def test_empty_arrays_print_as_numpy(shape: tuple, dtype: type) -> None:
    assert_prints_like_numpy(np.zeros(shape, dtype))


EDGE_FLOATS = [2.012, 0.1, 1 / 3, 2 / 3, 1e-4, 9.999e-5, 1e8, 99999999.0, 1e16, 1e15, 123456789.0, 1 / 512,
               3 / 512, 5e-324, 1.7976931348623157e308, 3.4028234663852886e38, 1.401298464324817e-45, 16777217.0,
               0.30000000000000004, -0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -2.25, 65504.0, 1e-7, 1e22, 1e23]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_edge_values_print_as_numpy(dtype: type) -> None:
    with np.errstate(over="ignore"):
        values = np.array(EDGE_FLOATS, dtype=dtype)
    for v in values:  # each alone: 0-d (the scalar's str) and a 1-element array
        assert_prints_like_numpy(np.array(v))
        assert_prints_like_numpy(np.array([v]))
        assert_prints_like_numpy(np.array([v, 1.0], dtype=dtype))
    assert_prints_like_numpy(values)
    assert_prints_like_numpy(values.reshape(5, 6))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_shortest_digits_of_random_bit_patterns(dtype: type) -> None:
    """The shortest round-trip decimal at the array's precision, over random bit patterns (all exponents)."""
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**32 if dtype is np.float32 else 2**63, 3000, dtype=np.uint64)
    values = bits.astype(np.uint32).view(np.float32) if dtype is np.float32 else bits.view(np.float64)
    values = values[np.isfinite(values)]
    for v in values[:1500]:
        assert str(carray(np.array(v))) == str(np.array(v))
    for chunk in np.array_split(values, 60):  # arrays: one layout for a mix of magnitudes
        assert_prints_like_numpy(chunk)


def test_long_rows_wrap_and_big_arrays_summarise_as_numpy() -> None:
    rng = np.random.default_rng(4)
    for n in (10, 20, 74, 75, 76, 200, 999, 1000, 1001, 5000):
        assert_prints_like_numpy(rng.standard_normal(n).astype(np.float32))
        assert_prints_like_numpy(np.arange(n, dtype=np.int64))
    assert_prints_like_numpy(rng.standard_normal((3, 400)))
    assert_prints_like_numpy(rng.standard_normal((400, 3)).astype(np.float32))
    assert_prints_like_numpy(rng.random((8, 8, 8, 8)) < 0.3)


def test_format_spec_as_numpy() -> None:
    for values in (np.array(2.012, np.float32), np.array(-1.5), np.array(7, np.int32), np.array(True)):
        c = carray(values)
        for spec in ("", ".4f", "10.2e", ">8", "+.1%", "g"):
            if values.dtype == np.int32 and spec in ("+.1%",):
                spec = "+d"
            assert format(c, spec) == format(values, spec), (values, spec)
        assert f"{c:.3f}" == f"{values:.3f}"
    for values in (np.array([1.5], np.float32), np.array([[1, 2]], np.int32)):
        c = carray(values)
        assert format(c, "") == format(values, "")
        with pytest.raises(TypeError) as theirs:
            format(values, ".2f")
        with pytest.raises(TypeError) as ours:
            format(c, ".2f")
        assert str(ours.value) == str(theirs.value).replace("numpy.ndarray", "CArray")
