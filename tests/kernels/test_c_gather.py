"""Gather and scatter-add C kernels (webflow/wasm/gather.c) against np.take and np.add.at."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

# noqa: F401  (declares the signatures)
from webflow.backends.c import gather as c_gather  # noqa: F401  (declares the signatures)
from webflow.backends.c import library as c

require_c_library()

RNG = np.random.default_rng(11)
INDEX = {np.int32: "i32", np.int64: "i64"}
SUFFIX = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}


def gather(params: np.ndarray, indices: np.ndarray, axis: int) -> tuple:
    """(status, out) with out = np.take(params, indices, axis) computed by the kernel."""
    outer = int(np.prod(params.shape[:axis]))
    inner = int(np.prod(params.shape[axis + 1:]))
    out_shape = params.shape[:axis] + indices.shape + params.shape[axis + 1:]
    out = np.zeros(out_shape, params.dtype)
    status = c.function(f"wf_gather_{INDEX[indices.dtype.type]}")(
        c.address(params), c.address(indices), c.address(out), outer, params.shape[axis],
        inner * params.itemsize, indices.size)
    return status, out


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.bool_])
def test_gather_matches_take_on_every_axis(dtype, index_dtype):
    for _trial in range(25):
        rank = int(RNG.integers(1, 5))
        shape = tuple(int(d) for d in RNG.choice([0, 1, 2, 3, 7], size=rank, p=[.05, .2, .3, .3, .15]))
        params = (RNG.standard_normal(shape) * 50).astype(dtype)
        axis = int(RNG.integers(rank))
        index_shape = tuple(int(d) for d in RNG.integers(0, 4, size=int(RNG.integers(0, 3))))
        if shape[axis] == 0:
            indices = np.zeros((0,), index_dtype)
        else:
            indices = RNG.integers(0, shape[axis], index_shape).astype(index_dtype)
        status, out = gather(params, indices, axis)
        assert status == 0
        assert np.array_equal(out, np.take(params, indices, axis=axis)), (shape, axis, index_shape)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gather_out_of_range_is_an_error_code_not_a_crash(index_dtype):
    params = RNG.standard_normal((4, 5)).astype(np.float32)
    for bad in (5, -1, 1 << 30):
        indices = np.array([0, 4, bad, 1], index_dtype)
        status, out = gather(params, indices, axis=1)
        assert status == 3                                    # 1 + position of the bad index
        assert (out == 0).all()                               # nothing was written


def scatter_add(updates: np.ndarray, indices: np.ndarray, num_segments: int) -> tuple:
    inner = int(np.prod(updates.shape[indices.ndim:]))
    out = np.zeros((num_segments,) + updates.shape[indices.ndim:], updates.dtype)
    status = c.function(f"wf_scatter_add_{SUFFIX[updates.dtype.type]}_{INDEX[indices.dtype.type]}")(
        c.address(updates), c.address(indices), c.address(out), indices.size, inner, num_segments)
    return status, out


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_scatter_add_is_unsorted_segment_sum(dtype, index_dtype):
    for count, inner, segments in [(0, 3, 4), (1, 1, 1), (10, 3, 4), (50, 16, 7), (9, 0, 3)]:
        indices = RNG.integers(-2, segments, count).astype(index_dtype)   # negatives are dropped, as in TF
        updates = (RNG.standard_normal((count, inner)) * 10).astype(dtype)
        status, out = scatter_add(updates, indices, segments)
        expected = np.zeros((segments, inner), dtype)
        keep = indices >= 0
        np.add.at(expected, indices[keep], updates[keep])
        assert status == 0
        if np.dtype(dtype).kind == "f":
            np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)
        else:
            assert np.array_equal(out, expected)


def test_scatter_add_embedding_gradient_and_bad_segment():
    """The gradient of an embedding lookup: rows of the upstream gradient summed into the looked-up rows."""
    ids = np.array([[3, 1], [3, 0]], np.int64)
    upstream = RNG.standard_normal((2, 2, 5)).astype(np.float32)
    status, grad = scatter_add(upstream, ids, num_segments=6)
    assert status == 0
    np.testing.assert_allclose(grad[3], upstream[0, 0] + upstream[1, 0], rtol=1e-6)
    assert np.array_equal(grad[2], np.zeros(5, np.float32)) and np.array_equal(grad[1], upstream[0, 1])
    status, grad = scatter_add(upstream, np.array([[3, 1], [6, 0]], np.int64), num_segments=6)
    assert status == 3 and not grad.any()
