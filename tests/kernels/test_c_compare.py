"""The native comparison and select kernels (webflow/wasm/compare.c) against NumPy, through their adapters."""

from __future__ import annotations

import numpy as np
import pytest

import webflow  # noqa: F401  (registers every op)
from tests.kernels.c_helpers import require_c_library
from webflow.backends.c import compare as c_compare
from webflow.backends.c.adapters import Unsupported
from webflow.ops.registry import OPS

require_c_library()

RNG = np.random.default_rng(5)
CASES = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((2, 3, 4), (4,)), ((), (5,)), ((0, 3), (3,))]
NUMPY = {"Equal": np.equal, "NotEqual": np.not_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal,
         "Less": np.less, "LessEqual": np.less_equal}


@pytest.mark.parametrize("op", sorted(NUMPY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("shapes", CASES)
def test_comparisons_broadcast_like_numpy(op: str, dtype: type, shapes: tuple) -> None:
    x = RNG.integers(0, 3, size=shapes[0]).astype(dtype)
    y = RNG.integers(0, 3, size=shapes[1]).astype(dtype)
    if np.issubdtype(dtype, np.floating) and x.size:
        x.reshape(-1)[0] = np.nan  # NaN is unequal to everything and orders with nothing
    got = OPS[op].c_adapter(x, y)  # the C kernel the op's stanza names
    assert got.dtype == np.bool_ and got.shape == np.broadcast_shapes(x.shape, y.shape)
    np.testing.assert_array_equal(got, NUMPY[op](x, y))


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.int64, np.float64])
def test_select_v2_broadcasts_like_numpy_where(dtype: type) -> None:
    cond = RNG.random((3, 1, 4)) < 0.5
    t, e = RNG.normal(size=(2, 4)).astype(dtype), RNG.normal(size=(1, 4)).astype(dtype)
    np.testing.assert_array_equal(c_compare.select_v2(cond, t, e), np.where(cond, t, e))


def test_select_with_a_vector_condition_picks_rows() -> None:
    cond = np.array([True, False, True])
    t, e = RNG.normal(size=(3, 2, 2)).astype(np.float32), RNG.normal(size=(3, 2, 2)).astype(np.float32)
    np.testing.assert_array_equal(c_compare.select(cond, t, e), np.where(cond[:, None, None], t, e))


@pytest.mark.parametrize("dtype", [np.bool_, np.int16, np.float32, np.float64])
@pytest.mark.parametrize("else_shape", [(67, 33), (), (33,), (67, 1)])
def test_select_v2_unit_stride_rows_keep_every_bit(dtype: type, else_shape: tuple) -> None:
    # the branch-free unit-stride rows (an else that is a whole array or a broadcast scalar) and the
    # strided ones; NaN, -0.0 and infinities must come through as the same bits
    cond = RNG.random((67, 33)) < 0.5
    t = RNG.normal(size=(67, 33)).astype(dtype)
    e = RNG.normal(size=else_shape).astype(dtype)
    if np.issubdtype(dtype, np.floating):
        t.reshape(-1)[:4] = [np.nan, -0.0, np.inf, -np.inf]
    got = c_compare.select_v2(cond, t, e)
    expected = np.where(cond, t, e)
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_select_leaves_python_objects_to_numpy() -> None:
    # tf.string values are Python objects: copying their pointers as bits would skip reference counting
    cond, t, e = np.array([True, False] * 5000), np.full(10000, b"a", object), np.full(10000, b"bb", object)
    with pytest.raises(Unsupported):
        c_compare.select_v2(cond, t, e)
