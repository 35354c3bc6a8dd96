"""The float64 twins of the convolution and pooling kernels, MaxPoolGradGrad, and the int64 / float64
elementwise kernels that no op table row reaches (the adapters send float32 only, so these run from the wasm
families and here). Each float64 kernel must agree with its float32 twin on the same data (the float32 kernels
are checked against NumPy references in test_c_conv.py / test_c_pool.py); MaxPoolGradGrad against a loop over
the windows. Run by `make test-asan`, these calls are what exercises them under the sanitizers."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import activations as c_activations  # noqa: F401  (declares the signatures)
from webflow.backends.c import conv as c_conv  # noqa: F401
from webflow.backends.c import library as c
from webflow.backends.c import pool as c_pool  # noqa: F401
from webflow.backends.c.conv import conv2d_shape

require_c_library()
RNG = np.random.default_rng(29)
SHAPES = [((2, 7, 9, 3), (3, 3), 5, (1, 1), "SAME"), ((1, 10, 11, 4), (3, 2), 6, (2, 2), "VALID"),
          ((2, 6, 6, 1), (3, 3), 4, (2, 1), "SAME")]


def call(name: str, *arguments) -> int:
    """The kernel on these arguments: arrays become their addresses, a Conv2DShape a pointer to it."""
    converted = [c.address(a) if isinstance(a, np.ndarray) else ctypes.byref(a) for a in arguments]
    return c.function(name)(*converted)


def conv_twice(suffix: str, dtype, s, x, f, dy) -> list:
    x, f, dy = (a.astype(dtype) for a in (x, f, dy))
    out, dx, df = np.full(dy.shape, np.nan, dtype), np.full(x.shape, np.nan, dtype), np.full(f.shape, np.nan, dtype)
    work = np.empty(max(1, c.function(f"wf_conv2d_workspace_{suffix}")(ctypes.byref(s))), dtype)
    for name, first, second, target in (("conv2d", x, f, out), ("conv2d_backprop_input", f, dy, dx),
                                        ("conv2d_backprop_filter", x, dy, df)):
        assert c.function(f"wf_{name}_{suffix}")(ctypes.byref(s), c.address(first), c.address(second),
                                                  c.address(target), c.address(work), work.size) == 0
    return [out, dx, df]


@pytest.mark.parametrize("input_shape, window, out_channels, strides, padding", SHAPES)
def test_conv2d_float64_matches_float32(input_shape, window, out_channels, strides, padding):
    s = conv2d_shape(input_shape, window, out_channels, strides, (1, 1), padding)
    x = RNG.standard_normal(input_shape)
    f = RNG.standard_normal((*window, input_shape[3], out_channels))
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, out_channels))
    for single, double in zip(conv_twice("f32", np.float32, s, x, f, dy), conv_twice("f64", np.float64, s, x, f, dy)):
        np.testing.assert_allclose(double, single, rtol=1e-4, atol=1e-4)
    col = {suffix: np.empty((s.batch * s.out_height * s.out_width, window[0] * window[1] * input_shape[3]), dtype)
           for suffix, dtype in (("f32", np.float32), ("f64", np.float64))}
    back = {suffix: np.zeros(input_shape, col[suffix].dtype) for suffix in col}
    for suffix in col:
        call(f"wf_im2col_{suffix}", s, x.astype(col[suffix].dtype), col[suffix])
        call(f"wf_col2im_{suffix}", s, col[suffix], back[suffix])
    np.testing.assert_allclose(col["f64"], col["f32"], rtol=1e-6)
    np.testing.assert_allclose(back["f64"], back["f32"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("suffix, dtype", [("f32", np.float32), ("f64", np.float64)])
def test_direct_single_channel_conv_matches_the_im2col_one(suffix, dtype):
    s = conv2d_shape((3, 9, 8, 1), (5, 4), 7, (2, 3), (2, 1), "VALID")
    x, f = RNG.standard_normal((3, 9, 8, 1)).astype(dtype), RNG.standard_normal((5, 4, 1, 7)).astype(dtype)
    direct = np.full((3, s.out_height, s.out_width, 7), np.nan, dtype)
    assert call(f"wf_conv2d_direct_c1_{suffix}", s, x, f, direct) == 0
    dy = np.zeros_like(direct)
    np.testing.assert_allclose(direct, conv_twice(suffix, dtype, s, x, f, dy)[0], rtol=1e-5, atol=1e-5)


def pool_all(suffix: str, dtype, s, x, dy) -> list:
    x, dy = x.astype(dtype), dy.astype(dtype)
    outs = [np.full(dy.shape, np.nan, dtype), np.full(dy.shape, np.nan, dtype)] + \
        [np.full(x.shape, np.nan, dtype) for _ in range(3)]
    assert call(f"wf_max_pool_{suffix}", s, x, outs[0]) == 0
    assert call(f"wf_avg_pool_{suffix}", s, x, outs[1]) == 0
    assert call(f"wf_max_pool_grad_{suffix}", s, x, dy, outs[2]) == 0
    assert call(f"wf_avg_pool_grad_{suffix}", s, dy, outs[3]) == 0
    assert call(f"wf_max_pool_grad_relu_{suffix}", s, x, dy, outs[4]) == 0
    return outs


@pytest.mark.parametrize("input_shape, window, channels, strides, padding", SHAPES)
def test_pooling_float64_matches_float32(input_shape, window, channels, strides, padding):
    s = conv2d_shape(input_shape, window, input_shape[3], strides, (1, 1), padding)
    x = RNG.standard_normal(input_shape)
    dy = RNG.standard_normal((s.batch, s.out_height, s.out_width, input_shape[3]))
    for single, double in zip(pool_all("f32", np.float32, s, x, dy), pool_all("f64", np.float64, s, x, dy)):
        np.testing.assert_allclose(double, single, rtol=1e-5, atol=1e-5)


def max_pool_grad_grad_reference(x: np.ndarray, grad: np.ndarray, s) -> np.ndarray:
    """Each output cell takes the input gradient at its window's first maximum (row-major, padding excluded)."""
    out = np.zeros((s.batch, s.out_height, s.out_width, x.shape[3]), x.dtype)
    for n in range(s.batch):
        for i in range(s.out_height):
            for j in range(s.out_width):
                top, left = i * s.stride_height - s.pad_top, j * s.stride_width - s.pad_left
                rows = range(max(top, 0), min(top + s.filter_height, x.shape[1]))
                cols = range(max(left, 0), min(left + s.filter_width, x.shape[2]))
                cells = [(r, q) for r in rows for q in cols]
                for channel in range(x.shape[3]):
                    values = [x[n, r, q, channel] for r, q in cells]
                    r, q = cells[int(np.argmax(values))]
                    out[n, i, j, channel] = grad[n, r, q, channel]
    return out


@pytest.mark.parametrize("suffix, dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("input_shape, window, channels, strides, padding", SHAPES)
def test_max_pool_grad_grad(suffix, dtype, input_shape, window, channels, strides, padding):
    s = conv2d_shape(input_shape, window, input_shape[3], strides, (1, 1), padding)
    x, grad = RNG.standard_normal(input_shape).astype(dtype), RNG.standard_normal(input_shape).astype(dtype)
    out = np.full((s.batch, s.out_height, s.out_width, input_shape[3]), np.nan, dtype)
    assert call(f"wf_max_pool_grad_grad_{suffix}", s, x, grad, out) == 0
    np.testing.assert_array_equal(out, max_pool_grad_grad_reference(x, grad, s))


SPECIAL = np.array([0.0, -0.0, 0.5, 1.5, 2.5, -2.5, -0.5, 7.2, np.inf, -np.inf, np.nan, 1e300], np.float64)
INTEGERS = np.array([-9, -1, 0, 1, 5, 6, 7, 2**40, -(2**40)], np.int64)


def unary(name: str, x: np.ndarray, out_dtype=None) -> np.ndarray:
    out = np.empty(x.shape, out_dtype or x.dtype)
    c.function(name)(c.address(x), c.address(out), x.size)
    return out


def test_float64_and_int64_elementwise_kernels():
    np.testing.assert_array_equal(unary("wf_is_nan_f64", SPECIAL, np.bool_), np.isnan(SPECIAL))
    np.testing.assert_array_equal(unary("wf_is_inf_f64", SPECIAL, np.bool_), np.isinf(SPECIAL))
    np.testing.assert_array_equal(unary("wf_round_f64", SPECIAL), np.round(SPECIAL))  # half to even, as TF
    np.testing.assert_array_equal(unary("wf_sign_i64", INTEGERS), np.sign(INTEGERS))
    np.testing.assert_array_equal(unary("wf_relu6_i64", INTEGERS), np.clip(INTEGERS, 0, 6))
    for dtype, suffix in ((np.int32, "i32"), (np.int64, "i64")):
        features, gradients = np.array([-3, 0, 3, 6, 9], dtype), np.array([10, 20, 30, 40, 50], dtype)
        out = np.empty(5, dtype)
        c.function(f"wf_relu6_grad_{suffix}")(c.address(gradients), c.address(features), c.address(out), 5)
        np.testing.assert_array_equal(out, np.where((features > 0) & (features < 6), gradients, 0))


def test_float64_adadelta_and_centered_rms_prop_follow_tensorflows_formulas():
    """training_ops.cc's ApplyAdadelta and ApplyCenteredRMSProp, written out in float64."""
    from webflow.backends.c import optimizers as c_optimizers
    var, grad = RNG.standard_normal(37), RNG.standard_normal(37)
    accum, other, mom = RNG.random(37), RNG.random(37), RNG.standard_normal(37)
    lr, rho, momentum, epsilon = 0.1, 0.9, 0.5, 1e-7

    new_var, new_accum, new_update = c_optimizers.adadelta(var, accum, other, lr, rho, epsilon, grad)
    expected_accum = rho * accum + (1 - rho) * grad * grad
    update = np.sqrt(other + epsilon) / np.sqrt(expected_accum + epsilon) * grad
    np.testing.assert_allclose(new_accum, expected_accum, rtol=1e-13)
    np.testing.assert_allclose(new_update, rho * other + (1 - rho) * update * update, rtol=1e-13)
    np.testing.assert_allclose(new_var, var - lr * update, rtol=1e-13)

    mg = RNG.standard_normal(37) * 0.1
    new_var, new_mg, new_ms, new_mom = c_optimizers.centered_rms_prop(var, mg, accum, mom, lr, rho, momentum,
                                                                      epsilon, grad)
    expected_mg, expected_ms = rho * mg + (1 - rho) * grad, rho * accum + (1 - rho) * grad * grad
    expected_mom = momentum * mom + lr * grad / np.sqrt(expected_ms - expected_mg * expected_mg + epsilon)
    np.testing.assert_allclose([new_mg, new_ms, new_mom], [expected_mg, expected_ms, expected_mom], rtol=1e-12)
    np.testing.assert_allclose(new_var, var - expected_mom, rtol=1e-12)
