"""Op table rows for the convolution ops (Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter) and their wrappers
(tf.nn.conv2d, conv2d_transpose, convolution, the TF1 backprop functions), on small odd shapes: strides 1-3,
SAME / VALID / explicit padding, dilation 2, 1-5 channels (both kernel layouts), NHWC and NCHW.

The NumPy references here add one shifted, strided slice of the padded input per kernel offset (an einsum each),
independently of webflow's im2col kernels; see tests/op_harness.py for the four checks each row gets
(eager forward, graph static shapes, float64 numerical gradients, graph gradient == eager gradient).
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf
from webflow.ops.registry import apply_op

rng = np.random.default_rng(3)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def out_and_pads(size, kernel, stride, dilation, padding):
    """(output size, pad before) of one spatial dimension, from the definitions of SAME and VALID."""
    effective = (kernel - 1) * dilation + 1
    if padding == "VALID":
        return (size - effective) // stride + 1, 0
    out = -(-size // stride)
    return out, max(0, (out - 1) * stride + effective - size) // 2


def np_conv2d(x, w, strides=(1, 1), dilations=(1, 1), padding="SAME", explicit=None):
    """y[b,i,j,k] = sum_{p,q,c} xpad[b, i*sh + p*dh, j*sw + q*dw, c] w[p,q,c,k], one einsum per offset (p, q)."""
    (n, h, width, _), (kh, kw, _, k) = x.shape, w.shape
    if explicit is not None:
        (top, bottom), (left, right) = explicit
        oh = (h + top + bottom - (kh - 1) * dilations[0] - 1) // strides[0] + 1
        ow = (width + left + right - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    else:
        (oh, top), (ow, left) = (out_and_pads(h, kh, strides[0], dilations[0], padding),
                                 out_and_pads(width, kw, strides[1], dilations[1], padding))
    big = np.zeros((n, h + 2 * kh * dilations[0] + top, width + 2 * kw * dilations[1] + left, x.shape[3]), x.dtype)
    big[:, top:top + h, left:left + width] = x
    y = np.zeros((n, oh, ow, k), np.result_type(x, w))
    for p in range(kh):
        for q in range(kw):
            window = big[:, p * dilations[0]::strides[0], q * dilations[1]::strides[1]][:, :oh, :ow]
            y += np.einsum("bijc,ck->bijk", window, w[p, q])
    return y


def np_backprop_input(input_shape, w, dy, strides=(1, 1), dilations=(1, 1), padding="SAME"):
    """The adjoint of np_conv2d in x: each offset's dy @ w[p, q]^T added back where that slice was read."""
    n, h, width, c = input_shape
    kh, kw = w.shape[:2]
    (oh, top), (ow, left) = (out_and_pads(h, kh, strides[0], dilations[0], padding),
                             out_and_pads(width, kw, strides[1], dilations[1], padding))
    big = np.zeros((n, h + 2 * kh * dilations[0] + top + oh * strides[0],
                    width + 2 * kw * dilations[1] + left + ow * strides[1], c), np.result_type(w, dy))
    for p in range(kh):
        for q in range(kw):
            rows = slice(p * dilations[0], p * dilations[0] + oh * strides[0], strides[0])
            cols = slice(q * dilations[1], q * dilations[1] + ow * strides[1], strides[1])
            big[:, rows, cols] += np.einsum("bijk,ck->bijc", dy, w[p, q])
    return big[:, top:top + h, left:left + width]


def np_backprop_filter(x, filter_shape, dy, strides=(1, 1), dilations=(1, 1), padding="SAME"):
    """The adjoint of np_conv2d in w: dw[p, q] = sum over pixels of the (p, q) slice of x times dy."""
    kh, kw = filter_shape[:2]
    (n, h, width, _), (_, oh, ow, _) = x.shape, dy.shape
    (_, top), (_, left) = (out_and_pads(h, kh, strides[0], dilations[0], padding),
                           out_and_pads(width, kw, strides[1], dilations[1], padding))
    big = np.zeros((n, h + 2 * kh * dilations[0] + top, width + 2 * kw * dilations[1] + left, x.shape[3]), x.dtype)
    big[:, top:top + h, left:left + width] = x
    dw = np.zeros(filter_shape, np.result_type(x, dy))
    for p in range(kh):
        for q in range(kw):
            window = big[:, p * dilations[0]::strides[0], q * dilations[1]::strides[1]][:, :oh, :ow]
            dw[p, q] = np.einsum("bijc,bijk->ck", window, dy)
    return dw


def nchw(x):
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def nhwc(x):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def window_attrs(strides=(1, 1), dilations=(1, 1), padding="SAME"):
    return {"strides": [1, *strides, 1], "padding": padding, "explicit_paddings": [], "data_format": "NHWC",
            "dilations": [1, *dilations, 1], "use_cudnn_on_gpu": True}


def conv_row(name, x_shape, w_shape, strides, padding, dilations=1):
    s = (strides, strides) if isinstance(strides, int) else strides
    d = (dilations, dilations)
    return OpCase(name, lambda x, w: wf.nn.conv2d(x, w, strides, padding, dilations=dilations),
                  [r(*x_shape), r(*w_shape)], lambda x, w: np_conv2d(x, w, s, d, padding))


def transpose_row(name, dy_shape, w_shape, out_shape, stride, padding):
    return OpCase(name, lambda dy, w: wf.nn.conv2d_transpose(dy, w, out_shape, stride, padding),
                  [r(*dy_shape), r(*w_shape)],
                  lambda dy, w: np_backprop_input(out_shape, w, dy, (stride, stride), (1, 1), padding))


def backprop_input_row(name, in_shape, w_shape, out_hw, strides, dilations, padding):
    attrs = window_attrs(strides, dilations, padding)
    return OpCase(name, lambda w, dy: apply_op("Conv2DBackpropInput", [list(in_shape), w, dy], attrs),
                  [r(*w_shape), r(in_shape[0], *out_hw, w_shape[3])],
                  lambda w, dy: np_backprop_input(in_shape, w, dy, strides, dilations, padding))


def backprop_filter_row(name, in_shape, w_shape, out_hw, strides, dilations, padding):
    attrs = window_attrs(strides, dilations, padding)
    return OpCase(name, lambda x, dy: apply_op("Conv2DBackpropFilter", [x, list(w_shape), dy], attrs),
                  [r(*in_shape), r(in_shape[0], *out_hw, w_shape[3])],
                  lambda x, dy: np_backprop_filter(x, w_shape, dy, strides, dilations, padding))


CASES = [
    conv_row("conv2d_same_s1", (2, 5, 6, 3), (3, 2, 3, 4), 1, "SAME"),
    conv_row("conv2d_valid_s2", (2, 7, 6, 2), (3, 3, 2, 3), 2, "VALID"),
    conv_row("conv2d_same_s3_depth5", (1, 7, 8, 5), (2, 3, 5, 2), 3, "SAME"),
    conv_row("conv2d_valid_s3_depth1", (2, 8, 7, 1), (3, 2, 1, 2), 3, "VALID"),
    conv_row("conv2d_valid_dilation2", (1, 7, 9, 2), (3, 2, 2, 3), 1, "VALID", dilations=2),
    conv_row("conv2d_same_dilation2_depth4", (1, 6, 7, 4), (2, 3, 4, 2), 1, "SAME", dilations=2),
    conv_row("conv2d_strides_1x2", (1, 5, 7, 2), (2, 2, 2, 3), [1, 2], "SAME"),
    OpCase("conv2d_explicit_padding", lambda x, w: wf.nn.conv2d(x, w, 2, [[0, 0], [1, 2], [0, 1], [0, 0]]),
           [r(1, 5, 6, 2), r(3, 2, 2, 3)], lambda x, w: np_conv2d(x, w, (2, 2), explicit=((1, 2), (0, 1)))),
    OpCase("conv2d_nchw", lambda x, w: wf.nn.conv2d(x, w, [1, 1, 2, 1], "SAME", data_format="NCHW"),
           [nchw(r(2, 5, 6, 3)), r(3, 3, 3, 2)], lambda x, w: nchw(np_conv2d(nhwc(x), w, (2, 1)))),
    OpCase("conv2d_int32", lambda x, w: wf.nn.conv2d(x, w, 1, "VALID"),
           [rng.integers(-3, 4, (1, 4, 5, 2)).astype(np.int32), rng.integers(-3, 4, (2, 2, 2, 3)).astype(np.int32)],
           lambda x, w: np_conv2d(x, w, padding="VALID").astype(np.int32), grad=False),
    OpCase("convolution_same", lambda x, w: wf.nn.convolution(x, w, padding="SAME"), [r(1, 5, 4, 2), r(3, 3, 2, 2)],
           lambda x, w: np_conv2d(x, w)),
    OpCase("v1_conv2d_filters_keyword", lambda x, w: tf.nn.conv2d(x, filters=w, strides=[1, 2, 2, 1], padding="VALID"),
           [r(1, 7, 5, 3), r(3, 1, 3, 2)], lambda x, w: np_conv2d(x, w, (2, 2), padding="VALID")),
    transpose_row("conv2d_transpose_same_s2", (2, 3, 4, 3), (3, 3, 2, 3), (2, 6, 7, 2), 2, "SAME"),
    transpose_row("conv2d_transpose_valid_s3", (1, 2, 2, 2), (2, 3, 1, 2), (1, 5, 6, 1), 3, "VALID"),
    backprop_input_row("backprop_input_same_s1", (2, 5, 6, 3), (3, 2, 3, 4), (5, 6), (1, 1), (1, 1), "SAME"),
    backprop_input_row("backprop_input_valid_s2_depth5", (1, 7, 6, 5), (3, 3, 5, 2), (3, 2), (2, 2), (1, 1), "VALID"),
    backprop_input_row("backprop_input_same_dilation2", (1, 6, 7, 2), (2, 3, 2, 3), (6, 7), (1, 1), (2, 2), "SAME"),
    backprop_input_row("backprop_input_same_s3_depth1", (1, 7, 8, 1), (2, 2, 1, 2), (3, 3), (3, 3), (1, 1), "SAME"),
    backprop_filter_row("backprop_filter_same_s1", (2, 5, 6, 3), (3, 2, 3, 4), (5, 6), (1, 1), (1, 1), "SAME"),
    backprop_filter_row("backprop_filter_valid_s3_depth4", (1, 8, 7, 4), (2, 3, 4, 2), (3, 2), (3, 3), (1, 1),
                        "VALID"),
    backprop_filter_row("backprop_filter_valid_dilation2", (1, 7, 9, 2), (3, 2, 2, 3), (3, 7), (1, 1), (2, 2),
                        "VALID"),
    OpCase("v1_conv2d_backprop_input", lambda w, dy: tf.nn.conv2d_backprop_input([1, 5, 5, 2], w, dy, [1, 2, 2, 1],
                                                                               "SAME"),
           [r(3, 3, 2, 3), r(1, 3, 3, 3)], lambda w, dy: np_backprop_input((1, 5, 5, 2), w, dy, (2, 2))),
    OpCase("v1_conv2d_backprop_filter",
           lambda x, dy: tf.nn.conv2d_backprop_filter(x, [2, 2, 3, 2], dy, [1, 1, 1, 1], "VALID"),
           [r(2, 4, 5, 3), r(2, 3, 4, 2)], lambda x, dy: np_backprop_filter(x, (2, 2, 3, 2), dy, padding="VALID")),
    # found by the property tests (tests/property): the filter gradient of an empty batch or of no filters failed
    # (dy.reshape(-1, 0)); it is an empty sum
    OpCase("v1_conv2d_backprop_filter_empty_batch",   # (sliced to no images: tests/no_numpy_tables.py feeds lists)
           lambda x, dy: tf.nn.conv2d_backprop_filter(x[:0], [2, 2, 1, 3], dy[:0], [1, 1, 1, 1], "SAME"),
           [np.ones((1, 3, 3, 1), np.float32), np.ones((1, 3, 3, 3), np.float32)],
           lambda x, dy: np.zeros((2, 2, 1, 3), np.float32)),
    OpCase("conv2d_no_filters_gradient", lambda x, w: wf.nn.conv2d(x, w, 1, "SAME"),
           [np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1), np.zeros((1, 1, 1, 0), np.float32)],
           lambda x, w: np.zeros((1, 3, 3, 0), np.float32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
