"""Elementwise kernels and whole-array sums on the C library's threads (wasm/elementwise_threads.c,
wasm/sum_threads.c): the same results as NumPy, and the same bits whatever the number of threads."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import adapters, parallel
from webflow.backends.c import elementwise as c_elementwise
from webflow.backends.c import reduce as c_reduce

require_c_library()

RNG = np.random.default_rng(30)
# around the slices' edges (16k floats, 8k doubles) and the thread threshold (C_THREADS_ELEMENTS)
SIZES = (adapters.C_THREADS_ELEMENTS - 1, adapters.C_THREADS_ELEMENTS, 3 * 16384 + 5, 200_003)


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    previous = parallel.threads()
    parallel.set_threads(request.param)
    yield request.param
    parallel.set_threads(previous)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_relu_and_relu_grad_on_threads_equal_numpy(threads, size, dtype):
    x = (RNG.standard_normal(size) * 100).astype(dtype)
    g = (RNG.standard_normal(size) * 100).astype(dtype)
    np.testing.assert_array_equal(c_elementwise.relu(x), np.maximum(x, 0))
    np.testing.assert_array_equal(c_elementwise.relu_grad(g, x), np.where(x > 0, g, 0).astype(dtype))


@pytest.mark.parametrize("size", SIZES)
def test_every_element_is_written_once(threads, size):
    """NaN inputs stay NaN (relu keeps NaN) at every position: no slice skipped, none shifted."""
    x = np.arange(size, dtype=np.float32) - size // 2
    x[::7] = np.nan
    y = c_elementwise.relu(x)
    np.testing.assert_array_equal(np.isnan(y), np.isnan(x))
    np.testing.assert_array_equal(y[~np.isnan(x)], np.maximum(x[~np.isnan(x)], 0))


@pytest.mark.parametrize("x_shape, y_shape", [
    ((200_003,), (200_003,)),            # same shapes: one long row, cut anywhere
    ((301, 17, 13), (301, 17, 13)),
    ((5000, 64), (64,)),                  # a bias add
    ((5000, 1), (1, 40)),                 # both broadcast
    ((1, 70_000), (3, 1)),
    ((50_000, 3), (50_000, 1)),
])
@pytest.mark.parametrize("stem", ["add", "mul", "sub", "maximum"])
def test_binary_ops_on_threads_equal_numpy(threads, x_shape, y_shape, stem):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    y = RNG.standard_normal(y_shape).astype(np.float32)
    expected = {"add": np.add, "mul": np.multiply, "sub": np.subtract, "maximum": np.maximum}[stem](x, y)
    got = getattr(c_elementwise, stem)(x, y)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_binary_op_on_a_transposed_view(threads):
    x = RNG.standard_normal((300, 400)).astype(np.float32).T
    y = RNG.standard_normal((400, 300)).astype(np.float32)
    np.testing.assert_array_equal(c_elementwise.add(x, y), x + y)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(c_reduce.SUM_ALL_MIN,), (1_000_003,), (333, 17, 29), (4, 16384 * 5 + 1)])
def test_whole_array_sum_is_close_to_a_float64_sum_and_the_same_on_any_threads(shape, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    axes = np.arange(len(shape))
    previous = parallel.threads()
    try:
        results = []
        for count in (1, 2, 4):
            parallel.set_threads(count)
            results.append(c_reduce.sum_reduce(x, axes, keep_dims=False))
    finally:
        parallel.set_threads(previous)
    exact = x.astype(np.float64).sum()
    tolerance = (2e-6 if dtype == np.float32 else 1e-13) * np.abs(x).astype(np.float64).sum()
    for got in results:
        assert got.shape == () and got.dtype == dtype
        assert got.tobytes() == results[0].tobytes()   # bit for bit, whatever the threads
        assert abs(float(got) - exact) <= tolerance


def test_whole_array_mean_and_keep_dims():
    x = RNG.standard_normal((256, 1024)).astype(np.float32)
    mean = c_reduce.reduce_mean(x, np.array([0, -1]), keep_dims=True)
    assert mean.shape == (1, 1) and mean.dtype == np.float32
    np.testing.assert_allclose(mean, x.astype(np.float64).mean(keepdims=True), rtol=1e-5, atol=1e-7)
    total = c_reduce.sum_reduce(x, np.array([1, 0]), keep_dims=True)
    assert total.shape == (1, 1)
    np.testing.assert_allclose(mean * np.float32(x.size), total, rtol=1e-6)


def test_sums_over_some_axes_do_not_take_the_whole_array_path():
    x = RNG.standard_normal((256, 1024)).astype(np.float32)
    assert c_reduce._sum_all(x, np.array([1]), False) is None
    assert c_reduce._sum_all(x.astype(np.float16), np.array([0, 1]), False) is None
    assert c_reduce._sum_all(x[:10], np.array([0, 1]), False) is None   # small: NumPy's loop
