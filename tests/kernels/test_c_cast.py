"""The Cast C kernel (webflow/wasm/cast.c) and the strided copy, against NumPy and TensorFlow's rules.

For in-range values NumPy's astype is the oracle. For NaN, infinities and out-of-range floats, C leaves
the result undefined (and WebAssembly traps), so the kernel implements what TensorFlow 2 returns on
x86-64; the expected values below were produced by real TensorFlow (tf.cast, TF 2.x, CPU).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from c_helpers import require_c_library
from c_views import element_strides, first_element, odd_view

from webflow.backends.c import library as c
from webflow.backends.c.cast import CAST_TYPES
from webflow.backends.c.elementwise import size_array

require_c_library()

RNG = np.random.default_rng(8)
NUMPY_TYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "uint8": np.uint8,
               "int64": np.int64, "bool": np.bool_}


def cast(x: np.ndarray, destination: str) -> np.ndarray:
    x = np.ascontiguousarray(x)
    out = np.zeros(x.shape, NUMPY_TYPES[destination])
    status = c.function("wf_cast")(c.address(x), CAST_TYPES[x.dtype.name], c.address(out), CAST_TYPES[destination],
                                   x.size)
    assert status == 0
    return out


def in_range_values(dtype: type) -> np.ndarray:
    """Values every destination type can hold after truncation (0..255 after C truncation for floats)."""
    if np.dtype(dtype) == np.bool_:
        return RNG.integers(0, 2, 50).astype(bool)
    values = np.concatenate([RNG.integers(0, 256, 40), [0, 1, 255]]).astype(dtype)
    if np.dtype(dtype).kind == "f":
        values = values + RNG.choice([0.0, 0.25, 0.5, 0.99], size=values.size).astype(dtype)
        values = np.minimum(values, dtype(255.9))
    return values


@pytest.mark.parametrize("source,destination", list(itertools.product(NUMPY_TYPES, NUMPY_TYPES)))
def test_in_range_casts_match_numpy(source, destination):
    x = in_range_values(NUMPY_TYPES[source])
    assert np.array_equal(cast(x, destination), x.astype(NUMPY_TYPES[destination]))


def test_negative_and_fractional_floats_truncate_toward_zero():
    x = np.array([-2.7, -0.5, -0.0, 0.5, 2.7, -1e9, 1e9], np.float32)
    assert np.array_equal(cast(x, "int32"), np.trunc(x).astype(np.int32))
    assert np.array_equal(cast(x.astype(np.float64), "int64"), np.trunc(x).astype(np.int64))


def test_nan_inf_and_out_of_range_follow_tensorflow():
    x = np.array([np.nan, 1e10, -1e10, 300.0, -1.0, -2.7, 2.7, 255.9, np.inf, -np.inf, 3e9, -3e9], np.float32)
    low32, low64 = -2**31, -2**63
    tf_int32 = [low32, low32, low32, 300, -1, -2, 2, 255, low32, low32, low32, low32]
    tf_int64 = [low64, 10000000000, -10000000000, 300, -1, -2, 2, 255, low64, low64, 3000000000, -3000000000]
    tf_uint8 = [0, 0, 0, 44, 255, 254, 2, 255, 0, 0, 0, 0]
    for source in (x, x.astype(np.float64)):
        assert cast(source, "int32").tolist() == tf_int32
        assert cast(source, "int64").tolist() == tf_int64
        assert cast(source, "uint8").tolist() == tf_uint8
        assert cast(source, "bool").all()                                    # NaN and inf are "true"


def test_integer_narrowing_wraps_and_int64_to_float_rounds_once():
    x = np.array([300, -1, 2**31 - 1, -2**31, 2**40 + 7], np.int64)
    assert cast(x, "int32").tolist() == [300, -1, 2**31 - 1, -2**31, 7]       # low 32 bits (TF: same)
    assert cast(x, "uint8").tolist() == [44, 255, 255, 0, 7]
    big = np.array([2**53 + 1, 2**24 + 1, -(2**62) - 1], np.int64)
    assert np.array_equal(cast(big, "float32"), big.astype(np.float32))      # one rounding, not via double
    assert cast(big, "float32").tolist()[:2] == [9007199254740992.0, 16777216.0]


def test_unknown_type_is_refused():
    x = np.zeros(3, np.float32)
    assert c.function("wf_cast")(c.address(x), 1, c.address(x), 7, 3) == -1   # DT_STRING
    assert c.function("wf_cast")(c.address(x), 19, c.address(x), 1, 3) == -1  # DT_HALF


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.float32, np.float64])
def test_copy_strided_makes_views_contiguous(dtype):
    for shape in [(), (0, 3), (1,), (5, 7), (3, 1, 4, 2), (2, 3, 5)]:
        x = np.asarray(RNG.integers(0, 100, shape)).astype(dtype)
        view = odd_view(x, RNG)
        for candidate in (view, np.transpose(view)):
            out = np.zeros(candidate.shape, dtype)
            status = c.function("wf_copy_strided")(first_element(candidate), c.address(out), candidate.itemsize,
                                                   candidate.ndim, size_array(candidate.shape),
                                                   element_strides(candidate))
            assert status == 0 and np.array_equal(out, candidate)
