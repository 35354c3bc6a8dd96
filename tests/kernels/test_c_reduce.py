"""Reduction C kernels (webflow/wasm/reduce.c) against NumPy: any axis set, strided inputs, empty axes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from c_helpers import blocked_column_sums, require_c_library
from c_views import element_strides, first_element, odd_view

from webflow.backends.c import library as c
from webflow.backends.c.elementwise import size_array
from webflow.backends.c.reduce import axis_mask

require_c_library()

RNG = np.random.default_rng(77)
SUFFIX = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}


def identity_of(name: str, dtype: type) -> object:
    if np.dtype(dtype).kind == "f":
        return {"sum": 0, "prod": 1, "max": -np.inf, "min": np.inf, "mean": np.nan}[name]
    info = np.iinfo(dtype)
    return {"sum": 0, "prod": 1, "max": info.min, "min": info.max, "mean": 0}[name]


def reference(name: str, x: np.ndarray, axes: tuple) -> np.ndarray:
    """NumPy's answer, with TensorFlow's identities for empty reductions (NumPy raises for max/min)."""
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    if any(x.shape[a] == 0 for a in axes):
        return np.full(kept, identity_of(name, x.dtype.type), dtype=x.dtype)
    if name == "mean" and x.dtype.kind == "i":
        count = int(np.prod([x.shape[a] for a in axes]))
        total = np.sum(x, axis=axes, dtype=x.dtype)
        return (np.sign(total) * (np.abs(total.astype(np.int64)) // count)).astype(x.dtype)   # C truncation
    function = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean}[name]
    with np.errstate(over="ignore"):
        return np.asarray(function(x, axis=axes), dtype=x.dtype)


def reduce(name: str, x: np.ndarray, axes: tuple) -> np.ndarray:
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    out = np.full(kept, 123, dtype=x.dtype)
    status = c.function(f"wf_reduce_{name}_{SUFFIX[x.dtype.type]}")(
        first_element(x), c.address(out), x.ndim, size_array(x.shape), element_strides(x), axis_mask(axes, x.ndim))
    assert status == 0
    return out


def random_case(rng: np.random.Generator, dtype: type) -> tuple:
    rank = int(rng.integers(0, 5))
    shape = tuple(int(d) for d in rng.choice([0, 1, 2, 3, 5, 8, 17], size=rank, p=[.05, .15, .2, .2, .15, .15, .1]))
    axes = tuple(a for a in range(rank) if rng.random() < 0.5)
    if np.dtype(dtype).kind == "f":
        x = rng.standard_normal(shape) * 3
    else:
        x = rng.integers(-9, 10, shape)
    return np.asarray(x).astype(dtype), axes


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_every_reduction_over_random_axes_and_layouts(dtype):
    for trial in range(80):
        x, axes = random_case(RNG, dtype)
        if trial % 2:
            x = odd_view(x, RNG)
        for name in ("sum", "mean", "max", "min", "prod"):
            got, expected = reduce(name, x, axes), reference(name, x, axes)
            if np.dtype(dtype).kind == "f" and name in ("sum", "mean", "prod"):
                size = max(int(np.prod([x.shape[a] for a in axes])), 1)
                rounding = 4 * size * np.finfo(dtype).eps          # relative error of a sum/product of `size` terms
                scale = float(np.max(np.abs(x))) if x.size else 1.0
                absolute = 0.0 if name == "prod" else rounding * scale
                np.testing.assert_allclose(got, expected, rtol=rounding, atol=absolute, err_msg=str((name, axes)))
            else:
                assert np.array_equal(got, expected, equal_nan=True), (name, x.shape, axes, got, expected)


def test_large_reductions_both_layouts():
    """Rows reduced (bias gradient) and columns reduced (per-example sums) on a big matrix, accurately."""
    x = RNG.standard_normal((513, 1027)).astype(np.float32)
    for axes in [(0,), (1,), (0, 1)]:
        expected = np.sum(x.astype(np.float64), axis=axes)
        np.testing.assert_allclose(reduce("sum", x, axes), expected, rtol=1e-4, atol=2e-3)
        assert np.array_equal(reduce("max", x, axes), np.max(x, axis=axes))
    np.testing.assert_allclose(reduce("mean", x, (0, 1)), x.astype(np.float64).mean(), atol=1e-6)


def test_nan_propagates_through_max_and_min():
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    assert np.array_equal(reduce("max", x, (1,)), np.max(x, axis=1), equal_nan=True)
    assert np.array_equal(reduce("min", x, (0,)), np.min(x, axis=0), equal_nan=True)


def test_reduce_nothing_and_everything():
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    assert np.array_equal(reduce("sum", x, ()), x)                 # no axes: a copy
    scalar = np.asarray(np.float32(2.5))
    assert reduce("sum", scalar, ()) == np.float32(2.5)
    for axes in itertools.chain.from_iterable(itertools.combinations(range(2), k) for k in range(3)):
        assert np.array_equal(reduce("max", x, axes), np.max(x, axis=axes) if axes else x)


# --- the Sum adapter's column sums (backends/c/reduce.py): leading axes into a short row -----------
@pytest.mark.parametrize("shape, axes, keep_dims", [
    ((50, 28, 28, 32), (0, 1, 2), False),    # conv1's bias gradient: each image, then the images
    ((128, 14, 14, 64), (0, 1, 2), True),
    ((3, 5, 7, 16), (-4, -3), False),        # below the threaded size: one call; negative axes
    ((4096, 16), (0,), True),
])
def test_sum_over_leading_axes_matches_a_float64_sum(shape, axes, keep_dims):
    from webflow.backends.c.reduce import sum_reduce

    x = RNG.standard_normal(shape).astype(np.float32)
    got = sum_reduce(x, np.array(axes), keep_dims=keep_dims)
    exact = x.astype(np.float64).sum(axis=axes, keepdims=keep_dims)
    assert got.shape == exact.shape and got.dtype == np.float32
    # float32 sums of up to 100k rows: at most NumPy's own float32 error, with a little margin
    numpy_error = np.abs(x.sum(axis=axes, keepdims=keep_dims) - exact).max()
    assert np.abs(got - exact).max() <= 1.5 * numpy_error + 1e-6 * np.abs(exact).max()


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("shape, leading", [
    ((50, 28, 28, 32), 3),   # conv1's bias gradient at batch 50: images of 784 rows
    ((7, 5, 3, 37), 3),      # 37 columns: whole vectors and a scalar tail
    ((9, 4, 16), 1),         # a block of one row: the plain row-by-row sum
    ((13, 1, 1, 16), 3),
])
def test_float32_column_sums_add_in_the_promised_order(threads, shape, leading):
    from webflow.backends.c import parallel
    from webflow.backends.c.reduce import sum_reduce

    x = RNG.standard_normal(shape).astype(np.float32)
    previous = parallel.threads()
    parallel.set_threads(threads)
    try:
        got = sum_reduce(x, np.arange(leading), keep_dims=False)
    finally:
        parallel.set_threads(previous)
    expected = blocked_column_sums(x, leading).reshape(x.shape[leading:])
    np.testing.assert_array_equal(got.view(np.uint32), expected.view(np.uint32))


def test_integer_column_sums_are_exact():
    from webflow.backends.c.reduce import sum_reduce

    x = RNG.integers(-1000, 1000, (300, 20, 8)).astype(np.int32)
    np.testing.assert_array_equal(sum_reduce(x, np.array([0, 1]), keep_dims=False), x.sum(axis=(0, 1)))


def test_automatic_policy_leaves_other_sums_to_numpy():
    from webflow.backends import selection
    from webflow.backends.c.adapters import Unsupported
    from webflow.backends.c.reduce import sum_reduce

    previous = selection.get_backend()
    selection.set_backend(None)
    x = RNG.standard_normal((64, 1024)).astype(np.float32)
    for axes in ([0], [1]):   # a long row, a trailing axis: NumPy's loops win (everything: wf_sum_all, threaded)
        with pytest.raises(Unsupported):
            sum_reduce(x, np.array(axes), keep_dims=False)
    selection.set_backend("native")
    try:                               # forced: the generic C reduction runs them all
        got = sum_reduce(x, np.array([1]), keep_dims=False)
        np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=1), atol=1e-4)
    finally:
        selection.set_backend(previous)
