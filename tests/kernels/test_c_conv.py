"""conv.c against a naive NumPy convolution (loops over the window): forward, both backprops, im2col /
col2im, the pointwise and 1-channel paths, strides 1-3, SAME/VALID, dilations, small workspaces."""

from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import library as c
from webflow.backends.c.conv import conv2d_shape

require_c_library()

RNG = np.random.default_rng(7)
TOL = dict(rtol=1e-4, atol=1e-4)


def padded_input(x: np.ndarray, shape) -> np.ndarray:
    """x zero-padded so that window (oh, ow) starts at (oh * stride, ow * stride): TF's SAME/VALID."""
    s = shape
    need_h = (s.out_height - 1) * s.stride_height + (s.filter_height - 1) * s.dilation_height + 1
    need_w = (s.out_width - 1) * s.stride_width + (s.filter_width - 1) * s.dilation_width + 1
    bottom = max(0, need_h - s.pad_top - x.shape[1])
    right = max(0, need_w - s.pad_left - x.shape[2])
    return np.pad(x, ((0, 0), (s.pad_top, bottom), (s.pad_left, right), (0, 0)))


def window_slice(s, kh: int, kw: int):
    """The input rows/columns tap (kh, kw) reads for every output pixel, as slices of the padded input."""
    h0, w0 = kh * s.dilation_height, kw * s.dilation_width
    return (slice(h0, h0 + (s.out_height - 1) * s.stride_height + 1, s.stride_height),
            slice(w0, w0 + (s.out_width - 1) * s.stride_width + 1, s.stride_width))


def reference_conv(x, f, s):
    """out[n, i, j, o] = sum over kh, kw, c of padded_x[n, i*sh + kh*dh, j*sw + kw*dw, c] * f[kh, kw, c, o]."""
    xp = padded_input(x.astype(np.float64), s)
    out = np.zeros((s.batch, s.out_height, s.out_width, s.out_channels))
    for kh, kw in itertools.product(range(s.filter_height), range(s.filter_width)):
        rows, cols = window_slice(s, kh, kw)
        out += xp[:, rows, cols, :] @ f[kh, kw].astype(np.float64)
    return out


def reference_input_grad(f, dy, s):
    """The adjoint of reference_conv in x: each tap sends dy . f[kh, kw]^T back to the pixels it read."""
    grad = np.zeros(padded_input(np.zeros((s.batch, s.in_height, s.in_width, s.in_channels)), s).shape)
    for kh, kw in itertools.product(range(s.filter_height), range(s.filter_width)):
        rows, cols = window_slice(s, kh, kw)
        grad[:, rows, cols, :] += dy.astype(np.float64) @ f[kh, kw].astype(np.float64).T
    return grad[:, s.pad_top:s.pad_top + s.in_height, s.pad_left:s.pad_left + s.in_width, :]


def reference_filter_grad(x, dy, s):
    """d(sum(out * dy)) / d f[kh, kw, c, o] = sum over n, i, j of the input value tap (kh, kw) read * dy."""
    xp = padded_input(x.astype(np.float64), s)
    grad = np.zeros((s.filter_height, s.filter_width, s.in_channels, s.out_channels))
    for kh, kw in itertools.product(range(s.filter_height), range(s.filter_width)):
        rows, cols = window_slice(s, kh, kw)
        pixels = s.batch * s.out_height * s.out_width
        taps = xp[:, rows, cols, :].reshape(pixels, s.in_channels)
        grad[kh, kw] = taps.T @ dy.reshape(pixels, s.out_channels).astype(np.float64)
    return grad


def workspace(s, floats: int | None = None) -> np.ndarray:
    size = c.function("wf_conv2d_workspace_f32")(ctypes.byref(s)) if floats is None else floats
    return np.empty(max(int(size), 1), np.float32)


def run_all(x, f, s, work_floats=None):
    """Forward and both gradients through the C kernels, checked against the references."""
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, s.out_channels)).astype(np.float32)
    out = np.full(dy.shape, np.nan, np.float32)
    dx = np.full(x.shape, np.nan, np.float32)
    df = np.full(f.shape, np.nan, np.float32)
    work = workspace(s, work_floats)
    shape = ctypes.byref(s)
    assert c.function("wf_conv2d_f32")(shape, c.address(x), c.address(f), c.address(out), c.address(work),
                                       work.size) == 0
    assert c.function("wf_conv2d_backprop_input_f32")(shape, c.address(f), c.address(dy), c.address(dx),
                                                      c.address(work), work.size) == 0
    assert c.function("wf_conv2d_backprop_filter_f32")(shape, c.address(x), c.address(dy), c.address(df),
                                                       c.address(work), work.size) == 0
    np.testing.assert_allclose(out, reference_conv(x, f, s), **TOL)
    np.testing.assert_allclose(dx, reference_input_grad(f, dy, s), **TOL)
    np.testing.assert_allclose(df, reference_filter_grad(x, dy, s), **TOL)


CASES = [
    # (N, H, W, C), (KH, KW), OC, strides, dilations, padding
    ((2, 7, 9, 3), (3, 3), 5, (1, 1), (1, 1), "SAME"),
    ((2, 7, 9, 3), (3, 3), 5, (1, 1), (1, 1), "VALID"),
    ((1, 10, 11, 4), (3, 2), 6, (2, 2), (1, 1), "SAME"),
    ((3, 11, 10, 2), (5, 5), 7, (3, 2), (1, 1), "SAME"),
    ((2, 12, 13, 3), (4, 3), 4, (3, 3), (1, 1), "VALID"),
    ((2, 9, 9, 3), (3, 3), 8, (1, 1), (2, 2), "SAME"),
    ((1, 12, 10, 5), (2, 3), 3, (1, 1), (3, 2), "VALID"),
    ((2, 8, 8, 16), (1, 1), 9, (1, 1), (1, 1), "VALID"),   # pointwise: no im2col
    ((2, 8, 8, 16), (1, 1), 9, (2, 2), (1, 1), "SAME"),    # 1x1 but strided: im2col path
    ((2, 6, 6, 1), (3, 3), 40, (1, 1), (1, 1), "SAME"),    # 1 input channel: direct kernel
    ((3, 9, 8, 1), (5, 4), 7, (2, 3), (2, 1), "VALID"),    # direct, OC below one vector block
    ((1, 4, 4, 3), (5, 5), 2, (1, 1), (1, 1), "SAME"),     # window larger than the image
    ((1, 1, 1, 1), (1, 1), 1, (1, 1), (1, 1), "VALID"),
    ((1, 3, 3, 2), (3, 3), 1, (2, 2), (1, 1), "SAME"),
]


@pytest.mark.parametrize("input_shape, window, out_channels, strides, dilations, padding", CASES)
def test_conv2d_forward_and_backprops(input_shape, window, out_channels, strides, dilations, padding):
    s = conv2d_shape(input_shape, window, out_channels, strides, dilations, padding)
    x = RNG.standard_normal(input_shape).astype(np.float32)
    f = RNG.standard_normal((*window, input_shape[3], out_channels)).astype(np.float32)
    run_all(x, f, s)


@pytest.mark.parametrize("rows", [1, 3, 50])
def test_small_workspaces_chunk_the_rows(rows):
    """A workspace for only a few rows of col: the GEMMs run chunk by chunk, same results."""
    s = conv2d_shape((2, 9, 7, 3), (3, 3), 4, (1, 2), (1, 1), "SAME")
    x = RNG.standard_normal((2, 9, 7, 3)).astype(np.float32)
    f = RNG.standard_normal((3, 3, 3, 4)).astype(np.float32)
    run_all(x, f, s, work_floats=rows * 27)


def test_workspace_too_small_is_reported():
    s = conv2d_shape((1, 5, 5, 3), (3, 3), 2, padding="SAME")
    x = np.ones((1, 5, 5, 3), np.float32)
    f = np.ones((3, 3, 3, 2), np.float32)
    out = np.empty((1, 5, 5, 2), np.float32)
    work = np.empty(26, np.float32)  # one row of col needs 27
    status = c.function("wf_conv2d_f32")(ctypes.byref(s), c.address(x), c.address(f), c.address(out),
                                         c.address(work), work.size)
    assert status == -2


@pytest.mark.parametrize("input_shape, window, out_channels", [
    ((0, 5, 5, 3), (3, 3), 4), ((2, 5, 5, 0), (3, 3), 4), ((2, 5, 5, 3), (3, 3), 0), ((2, 0, 5, 3), (1, 1), 2),
])
def test_empty_dimensions(input_shape, window, out_channels):
    s = conv2d_shape(input_shape, window, out_channels, padding="SAME")
    x = RNG.standard_normal(input_shape).astype(np.float32)
    f = RNG.standard_normal((*window, input_shape[3], out_channels)).astype(np.float32)
    run_all(x, f, s)


def test_im2col_and_col2im_are_adjoint():
    """<im2col(x), y> == <x, col2im(y)>, and im2col's rows are the windows the reference reads."""
    s = conv2d_shape((2, 6, 7, 3), (3, 2), 1, (2, 1), (1, 2), "SAME")
    m, k = s.batch * s.out_height * s.out_width, 3 * 2 * 3
    x = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    col = np.empty((m, k), np.float32)
    c.function("wf_im2col_f32")(ctypes.byref(s), c.address(x), c.address(col))
    xp = padded_input(x, s)
    for kh, kw in itertools.product(range(3), range(2)):
        rows, cols = window_slice(s, kh, kw)
        tap = (kh * 2 + kw) * 3
        np.testing.assert_array_equal(col[:, tap:tap + 3], xp[:, rows, cols, :].reshape(m, 3))
    y = RNG.standard_normal((m, k)).astype(np.float32)
    back = np.full(x.shape, np.nan, np.float32)
    c.function("wf_col2im_f32")(ctypes.byref(s), c.address(y), c.address(back))
    np.testing.assert_allclose(np.vdot(col, y), np.vdot(x, back), rtol=1e-4)


def test_bad_geometry_is_rejected():
    s = conv2d_shape((1, 5, 5, 2), (3, 3), 2)
    s.stride_height = 0
    buffer = np.zeros(100, np.float32)
    status = c.function("wf_conv2d_f32")(ctypes.byref(s), c.address(buffer), c.address(buffer), c.address(buffer),
                                         c.address(buffer), buffer.size)
    assert status == -1
