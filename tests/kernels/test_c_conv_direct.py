"""conv_direct.c against the naive NumPy convolution of test_c_conv.py: forward and filter gradient for every
tile shape (1-4 vectors of output channels), ragged pixel tiles, images smaller than a tile, strides 1-3,
dilations, SAME/VALID (whose windows' rows of padding the kernels skip, and the forward's tiles of same-tap
columns their columns of padding); the input gradient as the stride-1 convolution with the flipped filter;
images and slices shared out over threads; and the threaded adapters (backends/c/conv_direct.py)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_helpers import require_c_library
from test_c_conv import reference_conv, reference_filter_grad, reference_input_grad

from webflow.backends.c import conv_direct as c_conv_direct
from webflow.backends.c import library as c
from webflow.backends.c import parallel
from webflow.backends.c.conv import conv2d_shape

require_c_library()

RNG = np.random.default_rng(11)
TOL = dict(rtol=1e-4, atol=1e-4)


def lanes() -> int:
    return int(c.function("wf_conv2d_direct_lanes")())


# (N, H, W, C), (KH, KW), output channels in vectors, strides, dilations, padding
CASES = [
    ((2, 14, 14, 32), (5, 5), 4, (1, 1), (1, 1), "SAME"),    # the CNN's conv2 (a smaller batch)
    ((2, 28, 28, 1), (5, 5), 2, (1, 1), (1, 1), "SAME"),     # its conv1: one input channel
    ((3, 9, 7, 5), (3, 2), 2, (2, 3), (1, 1), "VALID"),      # rows the VALID windows never reach
    ((2, 5, 6, 3), (3, 3), 1, (1, 2), (1, 1), "SAME"),
    ((1, 11, 10, 6), (3, 3), 3, (1, 1), (2, 2), "SAME"),     # dilated; 3 vectors per tile
    ((2, 12, 13, 4), (4, 3), 6, (3, 3), (1, 1), "VALID"),    # 6 vectors: tiles of 3
    ((1, 3, 3, 2), (3, 3), 5, (1, 1), (1, 1), "SAME"),       # 9 pixels: fewer than a tile's rows
    ((1, 4, 4, 3), (5, 5), 1, (1, 1), (1, 1), "SAME"),       # window larger than the image
    ((2, 7, 9, 9), (1, 1), 8, (1, 1), (1, 1), "VALID"),      # pointwise, 8 vectors: tiles of 4
    ((2, 9, 9, 4), (3, 3), 4, (2, 2), (1, 1), "SAME"),       # strided SAME: padding rows on one side only
    ((2, 6, 14, 64), (3, 5), 2, (1, 1), (1, 1), "SAME"),     # conv2's input gradient: a tile reaches both edges
    ((2, 9, 11, 32), (5, 3), 2, (1, 2), (1, 1), "SAME"),     # strided; filter tiles straddling two taps
    ((1, 3, 5, 40), (3, 5), 1, (1, 1), (1, 1), "SAME"),      # window wider than the image
    ((2, 6, 5, 1), (3, 3), 4, (1, 1), (1, 1), "SAME"),       # a 3-float window row: filter gradient in half tiles
    ((1, 30, 29, 8), (5, 5), 4, (2, 2), (1, 1), "SAME"),     # strided, padding 1 left and 2 right: column groups
]


def direct_forward(x, f, s, threads=1):
    """The C forward on `threads` threads (each with its own workspace)."""
    out = np.full((s.batch, s.out_height, s.out_width, s.out_channels), np.nan, np.float32)
    work_len = int(c.function("wf_conv2d_direct_workspace_f32")(ctypes.byref(s)))
    work = np.empty(threads * work_len, np.float32)
    status = c.function("wf_conv2d_direct_f32")(ctypes.byref(s), c.address(x), c.address(f), c.address(out),
                                                c.address(work), work_len, threads)
    assert status == 0
    return out


def direct_filter_grad(x, dy, s, slices=1, threads=1):
    """The C filter gradient of each of `slices` consecutive slices of the batch: [slices, KH, KW, C, K]."""
    grads = np.full((slices, s.filter_height, s.filter_width, s.in_channels, s.out_channels), np.nan, np.float32)
    work_len = int(c.function("wf_conv2d_direct_filter_workspace_f32")(ctypes.byref(s)))
    work = np.empty(threads * work_len, np.float32)
    status = c.function("wf_conv2d_direct_filter_grad_f32")(ctypes.byref(s), c.address(x), c.address(dy),
                                                            c.address(grads), slices, c.address(work), work_len,
                                                            threads)
    assert status == 0
    return grads if slices > 1 else grads[0]


@pytest.mark.parametrize("input_shape, window, vectors, strides, dilations, padding", CASES)
def test_forward_and_filter_grad_match_the_reference(input_shape, window, vectors, strides, dilations, padding):
    s = conv2d_shape(input_shape, window, vectors * lanes(), strides, dilations, padding)
    x = RNG.standard_normal(input_shape).astype(np.float32)
    f = RNG.standard_normal((*window, input_shape[3], s.out_channels)).astype(np.float32)
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, s.out_channels)).astype(np.float32)
    np.testing.assert_allclose(direct_forward(x, f, s), reference_conv(x, f, s), **TOL)
    np.testing.assert_allclose(direct_filter_grad(x, dy, s), reference_filter_grad(x, dy, s), **TOL)


@pytest.mark.parametrize("input_shape, window, vectors, strides, dilations, padding",
                         [case for case in CASES if case[3] == (1, 1)])
def test_input_grad_is_the_flipped_convolution(input_shape, window, vectors, strides, dilations, padding):
    batch, height, width, _ = input_shape
    channels = lanes() * 2   # the input gradient's output channels are the input's: whole vectors
    s = conv2d_shape((batch, height, width, channels), window, vectors * lanes(), strides, dilations, padding)
    f = RNG.standard_normal((*window, channels, s.out_channels)).astype(np.float32)
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, s.out_channels)).astype(np.float32)
    dx = np.full((batch, height, width, channels), np.nan, np.float32)
    c_conv_direct.input_grad(s, f, dy, dx)
    np.testing.assert_allclose(dx, reference_input_grad(f, dy, s), **TOL)


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_share_the_images_and_slices(threads):
    """Every image once, each slice's gradient from its own images: the same bits as one thread."""
    s = conv2d_shape((5, 6, 6, 3), (3, 3), lanes(), (1, 1), (1, 1), "SAME")
    x = RNG.standard_normal((5, 6, 6, 3)).astype(np.float32)
    f = RNG.standard_normal((3, 3, 3, s.out_channels)).astype(np.float32)
    dy = RNG.standard_normal((5, 6, 6, s.out_channels)).astype(np.float32)
    np.testing.assert_array_equal(direct_forward(x, f, s, threads), direct_forward(x, f, s))
    grads = direct_filter_grad(x, dy, s, slices=3, threads=threads)    # images [0, 2), [2, 4), [4, 5)
    np.testing.assert_array_equal(grads, direct_filter_grad(x, dy, s, slices=3))
    for grad, (start, stop) in zip(grads, [(0, 2), (2, 4), (4, 5)], strict=True):
        part = conv2d_shape((stop - start, 6, 6, 3), (3, 3), lanes(), (1, 1), (1, 1), "SAME")
        np.testing.assert_allclose(grad, reference_filter_grad(x[start:stop], dy[start:stop], part), **TOL)


@pytest.mark.parametrize("threads", [1, 2])
def test_threaded_slices_sum_to_the_whole_batch(threads):
    before = parallel.threads()
    parallel.set_threads(threads)
    try:
        s = conv2d_shape((13, 8, 8, 5), (3, 3), 2 * lanes(), (1, 1), (1, 1), "SAME")
        x = RNG.standard_normal((13, 8, 8, 5)).astype(np.float32)
        f = RNG.standard_normal((3, 3, 5, s.out_channels)).astype(np.float32)
        dy = RNG.standard_normal((13, 8, 8, s.out_channels)).astype(np.float32)
        out = np.full(dy.shape, np.nan, np.float32)
        np.testing.assert_allclose(c_conv_direct.forward(s, x, f, out), reference_conv(x, f, s), **TOL)
        np.testing.assert_allclose(c_conv_direct.filter_grad(s, x, dy, f.shape), reference_filter_grad(x, dy, s),
                                   **TOL)
    finally:
        parallel.set_threads(before)


def test_when_the_direct_path_applies():
    whole = conv2d_shape((2, 8, 8, 32), (3, 3), 4 * lanes(), (1, 1), (1, 1), "SAME")
    assert c_conv_direct.forward_applies(whole) and c_conv_direct.filter_grad_applies(whole)
    assert c_conv_direct.input_grad_applies(whole) == (32 % lanes() == 0)
    ragged = conv2d_shape((2, 8, 8, 32), (3, 3), 4 * lanes() + 1, (1, 1), (1, 1), "SAME")
    assert not c_conv_direct.forward_applies(ragged) and not c_conv_direct.filter_grad_applies(ragged)
    strided = conv2d_shape((2, 8, 8, 32), (3, 3), lanes(), (2, 2), (1, 1), "SAME")
    assert c_conv_direct.forward_applies(strided) and not c_conv_direct.input_grad_applies(strided)
    one_channel = conv2d_shape((2, 8, 8, 1), (3, 3), lanes(), (1, 1), (1, 1), "SAME")
    rows = c.function("wf_conv2d_direct_filter_rows")(ctypes.byref(one_channel))
    assert rows >= 3   # the window row's 3 taps x 1 channel, rounded up to a whole tile of rows
    assert c_conv_direct.filter_grad_applies(one_channel) == (rows <= 3 * 3)
    conv1 = conv2d_shape((2, 28, 28, 1), (5, 5), 2 * lanes(), (1, 1), (1, 1), "SAME")
    conv1_rows = c.function("wf_conv2d_direct_filter_rows")(ctypes.byref(conv1))
    assert c_conv_direct.filter_grad_applies(conv1) == (conv1_rows <= 3 * 5)


def test_bad_shapes_and_small_workspaces_are_rejected():
    s = conv2d_shape((1, 6, 6, 3), (3, 3), lanes() + 1, (1, 1), (1, 1), "SAME")   # not whole vectors
    x = np.zeros((1, 6, 6, 3), np.float32)
    f = np.zeros((3, 3, 3, lanes() + 1), np.float32)
    out, work = np.zeros((1, 6, 6, lanes() + 1), np.float32), np.zeros(4096, np.float32)
    assert c.function("wf_conv2d_direct_f32")(ctypes.byref(s), c.address(x), c.address(f), c.address(out),
                                              c.address(work), work.size, 1) == -1
    s = conv2d_shape((1, 6, 6, 3), (3, 3), lanes(), (1, 1), (1, 1), "SAME")
    assert c.function("wf_conv2d_direct_f32")(ctypes.byref(s), c.address(x), c.address(f), c.address(out),
                                              c.address(work), 10, 1) == -2
    assert c.function("wf_conv2d_direct_f32")(ctypes.byref(s), c.address(x), c.address(f), c.address(out),
                                              c.address(work), work.size, 0) == -1   # no threads
    grad_work = np.zeros(int(c.function("wf_conv2d_direct_filter_workspace_f32")(ctypes.byref(s))), np.float32)
    assert c.function("wf_conv2d_direct_filter_grad_f32")(ctypes.byref(s), c.address(x), c.address(out),
                                                          c.address(f), 0, c.address(grad_work), grad_work.size,
                                                          1) == -1   # no slices
