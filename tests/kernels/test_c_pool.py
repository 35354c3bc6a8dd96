"""pool.c against NumPy references that follow TensorFlow's definitions: max/avg pooling forward and
backward over NHWC, strides 1-3, SAME/VALID, windows larger than the image, ties in max pooling."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_helpers import blocked_column_sums, require_c_library

from webflow.backends.c import library as c
from webflow.backends.c import pool as c_pool  # noqa: F401  (declares the signatures)
from webflow.backends.c.conv import conv2d_shape

require_c_library()

RNG = np.random.default_rng(11)


def windows(s):
    """For each output pixel (i, j): the in-bounds input rows and columns of its window (TF: padding
    is not part of the window, so max never sees it and avg divides by the in-bounds count)."""
    for i in range(s.out_height):
        for j in range(s.out_width):
            top, left = i * s.stride_height - s.pad_top, j * s.stride_width - s.pad_left
            rows = range(max(top, 0), min(top + s.filter_height, s.in_height))
            cols = range(max(left, 0), min(left + s.filter_width, s.in_width))
            yield i, j, rows, cols


def reference(x, dy, s):
    """(max, avg, max grad, avg grad), in float64. Max grad goes to the first max in row-major scan order."""
    n, _, _, channels = x.shape
    max_out = np.zeros((n, s.out_height, s.out_width, channels))
    avg_out = np.zeros_like(max_out)
    max_grad = np.zeros(x.shape)
    avg_grad = np.zeros(x.shape)
    for i, j, rows, cols in windows(s):
        patch = x[:, rows.start:rows.stop, cols.start:cols.stop, :].astype(np.float64)
        flat = patch.reshape(n, len(rows) * len(cols), channels)  # scan order: row by row
        max_out[:, i, j] = flat.max(axis=1)
        avg_out[:, i, j] = flat.mean(axis=1)
        first = flat.argmax(axis=1)  # NumPy's argmax returns the first maximum
        for b in range(n):
            for ch in range(channels):
                r, q = divmod(first[b, ch], len(cols))
                max_grad[b, rows[r], cols[q], ch] += dy[b, i, j, ch]
        avg_grad[:, rows.start:rows.stop, cols.start:cols.stop, :] += dy[:, i, j, None, None, :] / (
            len(rows) * len(cols))
    return max_out, avg_out, max_grad, avg_grad


def run_pool(x, ksize, strides, padding):
    s = conv2d_shape(x.shape, ksize, x.shape[3], strides, (1, 1), padding)
    out_shape = (x.shape[0], s.out_height, s.out_width, x.shape[3])
    dy = RNG.standard_normal(out_shape).astype(np.float32)
    max_out, avg_out = np.full(out_shape, np.nan, np.float32), np.full(out_shape, np.nan, np.float32)
    max_grad, avg_grad = np.full(x.shape, np.nan, np.float32), np.full(x.shape, np.nan, np.float32)
    shape = ctypes.byref(s)
    assert c.function("wf_max_pool_f32")(shape, c.address(x), c.address(max_out)) == 0
    assert c.function("wf_avg_pool_f32")(shape, c.address(x), c.address(avg_out)) == 0
    assert c.function("wf_max_pool_grad_f32")(shape, c.address(x), c.address(dy), c.address(max_grad)) == 0
    assert c.function("wf_avg_pool_grad_f32")(shape, c.address(dy), c.address(avg_grad)) == 0
    expected = reference(x, dy, s)
    np.testing.assert_array_equal(max_out, expected[0].astype(np.float32))
    np.testing.assert_allclose(avg_out, expected[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(max_grad, expected[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(avg_grad, expected[3], rtol=1e-5, atol=1e-6)


CASES = [
    # (N, H, W, C), ksize, strides, padding
    ((2, 6, 6, 3), (2, 2), (2, 2), "VALID"),
    ((2, 7, 7, 3), (2, 2), (2, 2), "SAME"),
    ((1, 9, 8, 5), (3, 3), (1, 1), "SAME"),
    ((2, 10, 11, 17), (3, 2), (2, 3), "SAME"),
    ((1, 11, 10, 9), (3, 3), (3, 3), "VALID"),
    ((3, 5, 4, 70), (2, 3), (1, 2), "SAME"),   # more channels than one grad block (64)
    ((1, 3, 3, 2), (5, 5), (1, 1), "SAME"),    # window larger than the image
    ((1, 1, 1, 1), (1, 1), (1, 1), "VALID"),
    ((2, 4, 4, 8), (1, 1), (2, 2), "VALID"),
    ((2, 9, 12, 5), (3, 4), (3, 4), "VALID"),  # windows tile the image: the tiled paths, 12 taps
    ((2, 8, 6, 19), (2, 2), (2, 2), "VALID"),  # tiled 2x2, 19 channels: whole vectors and a scalar tail
    ((1, 18, 9, 3), (9, 9), (9, 9), "VALID"),  # they tile it, but 81 taps > MAX_TILED_TAPS: the general path
]


@pytest.mark.parametrize("input_shape, ksize, strides, padding", CASES)
def test_pooling_matches_reference(input_shape, ksize, strides, padding):
    run_pool(RNG.standard_normal(input_shape).astype(np.float32), ksize, strides, padding)


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_max_pool_grad_ties_go_to_the_first_maximum(padding):
    """Integers from a tiny range make ties in most windows: the gradient goes to the first one."""
    x = RNG.integers(0, 3, size=(2, 8, 7, 6)).astype(np.float32)
    run_pool(x, (3, 3), (2, 2), padding)
    x = np.zeros((1, 4, 4, 5), np.float32)  # every window is one big tie
    run_pool(x, (2, 2), (1, 1), padding)


def test_max_pool_of_negative_values_never_sees_padding():
    """SAME pads max pooling with -inf, not zeros: an all-negative image keeps its values."""
    x = -1.0 - RNG.random((1, 5, 5, 4)).astype(np.float32)
    s = conv2d_shape(x.shape, (3, 3), 4, (2, 2), (1, 1), "SAME")
    out = np.empty((1, s.out_height, s.out_width, 4), np.float32)
    c.function("wf_max_pool_f32")(ctypes.byref(s), c.address(x), c.address(out))
    assert (out < -1.0).all()
    run_pool(x, (3, 3), (2, 2), "SAME")


@pytest.mark.parametrize("input_shape", [(0, 4, 4, 3), (2, 4, 4, 0), (2, 0, 4, 3)])
def test_empty_dimensions(input_shape):
    run_pool(np.zeros(input_shape, np.float32), (2, 2), (2, 2), "SAME")


def test_bad_window_is_rejected():
    s = conv2d_shape((1, 4, 4, 1), (0, 2), 1)
    buffer = np.zeros(16, np.float32)
    assert c.function("wf_max_pool_f32")(ctypes.byref(s), c.address(buffer), c.address(buffer)) == -1


@pytest.mark.parametrize("input_shape, ksize, strides, padding", CASES)
def test_max_pool_grad_relu_is_the_max_pool_grad_where_the_input_is_positive(input_shape, ksize, strides, padding):
    # ReluGrad(MaxPoolGrad(x, dy), features=x): the tiled 2x2 path and the general one; 0, -0.0 and NaN
    # inputs are not positive, so their cells get 0 even when they are the window's first maximum
    x = RNG.standard_normal(input_shape).astype(np.float32)
    x.reshape(-1)[::7] = 0.0
    x.reshape(-1)[3::11] = -0.0
    x.reshape(-1)[5::13] = np.nan
    s = conv2d_shape(x.shape, ksize, x.shape[3], strides, (1, 1), padding)
    dy = RNG.standard_normal((x.shape[0], s.out_height, s.out_width, x.shape[3])).astype(np.float32)
    fused, pool_grad = np.full(x.shape, np.nan, np.float32), np.full(x.shape, np.nan, np.float32)
    assert c.function("wf_max_pool_grad_relu_f32")(ctypes.byref(s), c.address(x), c.address(dy), c.address(fused)) == 0
    assert c.function("wf_max_pool_grad_f32")(ctypes.byref(s), c.address(x), c.address(dy), c.address(pool_grad)) == 0
    expected = np.where(x > 0, pool_grad, np.float32(0))
    np.testing.assert_array_equal(fused.view(np.uint32), expected.view(np.uint32))


def test_the_fused_2x2_case_is_tiled_and_checked_against_the_reference():
    # the CNN's shape (2x2, stride 2, even sizes): the float64 reference with the Relu mask applied
    x = RNG.standard_normal((3, 8, 6, 40)).astype(np.float32)
    s = conv2d_shape(x.shape, (2, 2), 40, (2, 2), (1, 1), "VALID")
    dy = RNG.standard_normal((3, 4, 3, 40)).astype(np.float32)
    fused = np.full(x.shape, np.nan, np.float32)
    assert c.function("wf_max_pool_grad_relu_f32")(ctypes.byref(s), c.address(x), c.address(dy), c.address(fused)) == 0
    np.testing.assert_allclose(fused, np.where(x > 0, reference(x, dy, s)[2], 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("ksize, strides, padding", [((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME")])
def test_threaded_max_pool_passes_match_the_reference(threads, ksize, strides, padding):
    # 11 images: units of 4 images (wasm/pool.c) with a short last one; the tiled 2x2 path and the general one
    x = RNG.standard_normal((11, 8, 6, 5)).astype(np.float32)
    s = conv2d_shape(x.shape, ksize, 5, strides, (1, 1), padding)
    pooled = (11, s.out_height, s.out_width, 5)
    dy = RNG.standard_normal(pooled).astype(np.float32)
    out, grad, fused = np.full(pooled, np.nan, np.float32), np.full(x.shape, np.nan, np.float32), np.full(
        x.shape, np.nan, np.float32)
    shape = ctypes.byref(s)
    assert c.function("wf_max_pool_parallel_f32")(shape, c.address(x), c.address(out), threads) == 0
    grad_pass = c.function("wf_max_pool_grad_parallel_f32")
    assert grad_pass(shape, c.address(x), c.address(dy), c.address(grad), 0, None, None, threads) == 0
    assert grad_pass(shape, c.address(x), c.address(dy), c.address(fused), 1, None, None, threads) == 0
    # with the channel sums of the fused pass (a bias gradient): the same gradient, its sums in reduce.c's order
    summed_grad, sums, partials = np.full(x.shape, np.nan, np.float32), np.full(5, np.nan, np.float32), np.full(
        (11, 5), np.nan, np.float32)
    assert grad_pass(shape, c.address(x), c.address(dy), c.address(summed_grad), 1, c.address(sums),
                     c.address(partials), threads) == 0
    np.testing.assert_array_equal(summed_grad, fused)
    np.testing.assert_array_equal(sums.view(np.uint32), blocked_column_sums(fused, 3).view(np.uint32))
    max_out, _, max_grad, _ = reference(x, dy, s)
    np.testing.assert_array_equal(out, max_out.astype(np.float32))  # a max is exact
    np.testing.assert_allclose(grad, max_grad, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(fused, np.where(x > 0, grad, np.float32(0)))
