"""conv_winograd.c against a float64 NumPy direct convolution: F(2x2, 5x5) and F(4x4, 3x3), SAME and VALID,
odd sizes (partial edge tiles), channels that are not multiples of a vector, batch 1, bias + relu, the fused
MaxPool, threads; the input gradient as the convolution with the flipped filter; and the adapters' choice."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import conv_winograd
from webflow.backends.c.conv import conv2d_shape, pool_geometry
from webflow.backends.c.conv_shape import Conv2DShape

require_c_library()

RNG = np.random.default_rng(30)


def oracle_conv(x: np.ndarray, f: np.ndarray, s: Conv2DShape) -> np.ndarray:
    """float64 direct convolution of the geometry `s` (zero padding pad_top/pad_left before)."""
    x64, f64 = x.astype(np.float64), f.astype(np.float64)
    kh, kw = f.shape[:2]
    bottom = max(0, s.out_height + kh - 1 - s.pad_top - s.in_height)
    right = max(0, s.out_width + kw - 1 - s.pad_left - s.in_width)
    padded = np.pad(x64, ((0, 0), (s.pad_top, bottom), (s.pad_left, right), (0, 0)))
    out = np.zeros((s.batch, s.out_height, s.out_width, f.shape[3]))
    for a in range(kh):
        for b in range(kw):
            out += padded[:, a:a + s.out_height, b:b + s.out_width, :] @ f64[a, b]
    return out


def relative_error(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


# (N, H, W, C), filter side, output channels, padding
CASES = [
    ((2, 14, 14, 32), 5, 64, "SAME"),     # the Deep MNIST CNN's conv2: 7 x 7 tiles of 2 x 2
    ((1, 13, 13, 32), 3, 64, "VALID"),    # the Keras CNN's conv2: 11 x 11 outputs, partial 4 x 4 tiles
    ((3, 9, 7, 17), 3, 18, "SAME"),       # channels not a multiple of a vector
    ((1, 11, 10, 19), 5, 21, "VALID"),    # odd sizes, 7 x 6 outputs
    ((2, 5, 6, 17), 5, 20, "SAME"),       # window larger than the tiles' step
    ((1, 3, 3, 16), 3, 16, "SAME"),       # one tile
    ((5, 26, 26, 16), 3, 24, "SAME"),     # several images per group of tiles
]


def run(x, f, s, bias=None, relu=False, pool=None, threads=1):
    out = np.full((s.batch, s.out_height, s.out_width, s.out_channels), np.nan, np.float32)
    pooled = None if pool is None else np.full((s.batch, pool.out_height, pool.out_width, s.out_channels), np.nan,
                                               np.float32)
    original = conv_winograd._threads
    conv_winograd._threads = lambda shape: threads
    try:
        conv_winograd.forward(s, x, f, out, bias, relu, pool, pooled)
    finally:
        conv_winograd._threads = original
    return out if pool is None else (out, pooled)


@pytest.mark.parametrize("x_shape,side,out_channels,padding", CASES)
@pytest.mark.parametrize("threads", [1, 2])
def test_forward_matches_float64_oracle(x_shape, side, out_channels, padding, threads):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    f = (RNG.standard_normal((side, side, x_shape[3], out_channels)) / side).astype(np.float32)
    s = conv2d_shape(x_shape, (side, side), out_channels, padding=padding)
    got = run(x, f, s, threads=threads)
    assert relative_error(got, oracle_conv(x, f, s)) < 2e-6 * side * side


@pytest.mark.parametrize("x_shape,side,out_channels,padding", CASES[:4])
def test_bias_relu_and_max_pool(x_shape, side, out_channels, padding):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    f = (RNG.standard_normal((side, side, x_shape[3], out_channels)) / side).astype(np.float32)
    bias = RNG.standard_normal(out_channels).astype(np.float32)
    s = conv2d_shape(x_shape, (side, side), out_channels, padding=padding)
    want = np.maximum(oracle_conv(x, f, s) + bias, 0)
    pool = pool_geometry((s.batch, s.out_height, s.out_width, out_channels),
                         {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "SAME"})
    out, pooled = run(x, f, s, bias, True, pool, threads=2)
    assert relative_error(out, want) < 2e-6 * side * side
    assert (out >= 0).all()
    h, w = pool.out_height, pool.out_width
    padded = np.pad(out, ((0, 0), (0, 2 * h - s.out_height), (0, 2 * w - s.out_width), (0, 0)),
                    constant_values=-np.inf)
    np.testing.assert_array_equal(pooled, padded.reshape(s.batch, h, 2, w, 2, -1).max(axis=(2, 4)))


@pytest.mark.parametrize("x_shape,side,out_channels,padding", CASES[:5])
def test_input_gradient_is_the_flipped_convolution(x_shape, side, out_channels, padding):
    f = (RNG.standard_normal((side, side, x_shape[3], out_channels)) / side).astype(np.float32)
    s = conv2d_shape(x_shape, (side, side), out_channels, padding=padding)
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, out_channels)).astype(np.float32)
    # dx = sum over output pixels of dy times the filter, placed at the window: the float64 transpose.
    dx = np.zeros((s.batch, s.in_height + 2 * side, s.in_width + 2 * side, x_shape[3]))
    for a in range(side):
        for b in range(side):
            dx[:, a:a + s.out_height, b:b + s.out_width] += dy.astype(np.float64) @ f[a, b].astype(np.float64).T
    want = dx[:, s.pad_top:s.pad_top + s.in_height, s.pad_left:s.pad_left + s.in_width]
    got = np.full(x_shape, np.nan, np.float32)
    conv_winograd.input_grad(s, f, dy, got)
    assert relative_error(got, want) < 2e-6 * side * side


def test_applies_only_to_stride_one_square_3_or_5_with_channels():
    assert conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (5, 5), 64, padding="SAME"))
    assert conv_winograd.applies(conv2d_shape((1, 13, 13, 32), (3, 3), 64))
    assert not conv_winograd.applies(conv2d_shape((1, 28, 28, 1), (5, 5), 32, padding="SAME"))   # 1 channel
    assert not conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (5, 5), 64, (2, 2), padding="SAME"))
    assert not conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (5, 5), 64, dilations=(2, 2)))
    assert not conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (3, 5), 64))
    assert not conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (7, 7), 64))
    assert not conv_winograd.applies(conv2d_shape((1, 2, 2, 32), (3, 3), 64, padding="SAME"))   # 4 of 16 outputs
    assert conv_winograd.applies(conv2d_shape((1, 64, 64, 32), (3, 3), 64, padding="SAME"))     # 256 tiles
    assert not conv_winograd.applies(conv2d_shape((1, 65, 64, 32), (3, 3), 64, padding="SAME"))


def test_bad_geometry_and_small_workspace_are_refused():
    s = conv2d_shape((1, 8, 8, 8), (3, 3), 8, (2, 2))
    x, f = np.zeros((1, 8, 8, 8), np.float32), np.zeros((3, 3, 8, 8), np.float32)
    out, work = np.zeros((1, 4, 4, 8), np.float32), np.zeros(1 << 16, np.float32)
    from webflow.backends.c import library as c
    kernel = c.function("wf_conv2d_winograd_f32")
    assert kernel(ctypes.byref(s), c.address(x), c.address(f), None, 0, None, c.address(out), None,
                  c.address(work), c.address(work), 1 << 16, 1) == -1
    s = conv2d_shape((1, 8, 8, 8), (3, 3), 8)
    assert kernel(ctypes.byref(s), c.address(x), c.address(f), None, 0, None, c.address(out), None,
                  c.address(work), c.address(work), 10, 1) == -2


def test_adapters_take_winograd_and_match_the_oracle(monkeypatch):
    from webflow.backends.c import conv
    calls = []
    original = conv_winograd.forward
    monkeypatch.setattr(conv_winograd, "forward", lambda *a, **k: calls.append(a[0].filter_height) or original(*a, **k))
    x = RNG.standard_normal((4, 14, 14, 32)).astype(np.float32)
    f = (RNG.standard_normal((5, 5, 32, 64)) / 5).astype(np.float32)
    bias = RNG.standard_normal(64).astype(np.float32)
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    s = conv2d_shape(x.shape, (5, 5), 64, padding="SAME")
    want = oracle_conv(x, f, s)
    assert relative_error(conv.conv2d(x, f, **attrs), want) < 5e-5
    assert relative_error(conv.conv2d_bias_relu(x, f, bias, relu=True, **attrs), np.maximum(want + bias, 0)) < 5e-5
    out, pooled = conv.conv2d_bias_relu_max_pool(x, f, bias, relu=True, pool_attrs={
        "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME"}, **attrs)
    np.testing.assert_array_equal(pooled, out.reshape(4, 7, 2, 7, 2, 64).max(axis=(2, 4)))
    dy = RNG.standard_normal(want.shape).astype(np.float32)
    dx = conv.conv2d_backprop_input(np.array(x.shape, np.int32), f, dy, **attrs)
    want_dx = np.zeros((4, 18, 18, 32))
    for a in range(5):
        for b in range(5):
            want_dx[:, a:a + 14, b:b + 14] += dy.astype(np.float64) @ f[a, b].astype(np.float64).T
    assert relative_error(dx, want_dx[:, 2:16, 2:16]) < 5e-5
    assert calls == [5, 5, 5, 5]


def test_disabled_by_environment(monkeypatch):
    monkeypatch.setattr(conv_winograd, "ENABLED", False)
    assert not conv_winograd.applies(conv2d_shape((1, 14, 14, 32), (5, 5), 64, padding="SAME"))


def oracle_filter_grad(x: np.ndarray, dy: np.ndarray, s: Conv2DShape, side: int) -> np.ndarray:
    """float64 dW[a, b, c, k] = sum over images and output pixels of the window's input times dy."""
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    bottom = max(0, s.out_height + side - 1 - s.pad_top - s.in_height)
    right = max(0, s.out_width + side - 1 - s.pad_left - s.in_width)
    padded = np.pad(x64, ((0, 0), (s.pad_top, bottom), (s.pad_left, right), (0, 0)))
    grad = np.zeros((side, side, x.shape[3], dy.shape[3]))
    for a in range(side):
        for b in range(side):
            window = padded[:, a:a + s.out_height, b:b + s.out_width, :]
            grad[a, b] = np.einsum("nijc,nijk->ck", window, dy64)
    return grad


@pytest.mark.parametrize("x_shape,side,out_channels,padding", CASES)
@pytest.mark.parametrize("threads", [1, 2])
def test_filter_gradient_matches_float64_oracle(x_shape, side, out_channels, padding, threads, monkeypatch):
    monkeypatch.setattr(conv_winograd, "_threads", lambda shape: threads)
    x = RNG.standard_normal(x_shape).astype(np.float32)
    s = conv2d_shape(x_shape, (side, side), out_channels, padding=padding)
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, out_channels)).astype(np.float32)
    got = conv_winograd.filter_grad(s, x, dy, (side, side, x_shape[3], out_channels))
    assert relative_error(got, oracle_filter_grad(x, dy, s, side)) < 2e-6 * side * side


def test_filter_gradient_with_the_pooling_gradient_made_per_image():
    x = RNG.standard_normal((3, 14, 14, 32)).astype(np.float32)
    s = conv2d_shape(x.shape, (5, 5), 64, padding="SAME")
    relu_out = np.maximum(RNG.standard_normal((3, 14, 14, 64)), 0).astype(np.float32)
    pool = pool_geometry(relu_out.shape, {"ksize": (1, 2, 2, 1), "strides": (1, 2, 2, 1), "padding": "SAME"})
    pooled_grad = RNG.standard_normal((3, 7, 7, 64)).astype(np.float32)
    # MaxPoolGrad (the first maximum of each 2x2 window takes the gradient) then ReluGrad
    dy = np.zeros_like(relu_out)
    windows = relu_out.reshape(3, 7, 2, 7, 2, 64).transpose(0, 1, 3, 5, 2, 4).reshape(3, 7, 7, 64, 4)
    first = windows.argmax(axis=-1)
    for q in range(4):
        dy.reshape(3, 7, 2, 7, 2, 64)[:, :, q // 2, :, q % 2, :] += np.where(first == q, pooled_grad, 0)
    dy = np.where(relu_out > 0, dy, 0).astype(np.float32)
    got, sums = conv_winograd.filter_grad(s, x, None, (5, 5, 32, 64), (pool, relu_out, pooled_grad))
    assert relative_error(got, oracle_filter_grad(x, dy, s, 5)) < 5e-5
    np.testing.assert_allclose(sums, dy.sum(axis=(0, 1, 2)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x_shape,side,out_channels,padding", CASES[:4])
def test_fused_bias_relu_gives_the_bits_of_the_separate_ops(x_shape, side, out_channels, padding):
    from webflow.backends.c import conv
    x = RNG.standard_normal(x_shape).astype(np.float32)
    f = RNG.standard_normal((side, side, x_shape[3], out_channels)).astype(np.float32)
    bias = RNG.standard_normal(out_channels).astype(np.float32)
    attrs = {"strides": [1, 1, 1, 1], "padding": padding}
    separate = np.maximum(conv.conv2d(x, f, **attrs) + bias, np.float32(0))
    np.testing.assert_array_equal(conv.conv2d_bias_relu(x, f, bias, relu=True, **attrs), separate)


@pytest.mark.parametrize("side", [3, 5])
@pytest.mark.parametrize("bad", [np.inf, np.nan])
def test_a_non_finite_value_spoils_only_the_outputs_whose_windows_hold_it(bad, side):
    """Winograd would spread one Inf/NaN over its whole tile and turn Infs into NaNs (d0 - d2, ...): the adapters
    take the direct path instead, so the outputs are those of the float64 direct convolution, NaN / +Inf / -Inf
    exactly where its are (forward and input gradient)."""
    from webflow.backends.c import conv
    attrs = {"strides": [1, 1, 1, 1], "padding": "SAME"}
    x = RNG.standard_normal((2, 14, 14, 32)).astype(np.float32)
    f = (RNG.standard_normal((side, side, 32, 64)) / side).astype(np.float32)
    x[1, 4, 4, 3] = bad
    s = conv2d_shape(x.shape, (side, side), 64, padding="SAME")
    dy = np.zeros((2, 14, 14, 64), np.float32)
    dy[0, 4, 4, 5] = bad
    with np.errstate(invalid="ignore"):
        want = oracle_conv(x, f, s)
        got = conv.conv2d(x, f, **attrs)
        dx = conv.conv2d_backprop_input(np.array(x.shape, np.int32), f, dy, **attrs)
    for kind in (np.isnan, np.isposinf, np.isneginf):
        np.testing.assert_array_equal(kind(got), kind(want))
    finite = np.isfinite(want)
    assert not finite.all() and relative_error(got[finite], want[finite]) < 5e-5
    # dy's one bad value reaches side x side input positions of image 0, all 32 channels (+-Inf or NaN)
    assert (~np.isfinite(dx)).sum() == side * side * 32 and np.isfinite(dx[1]).all()
    assert np.isnan(dx).sum() == (side * side * 32 if np.isnan(bad) else 0)
