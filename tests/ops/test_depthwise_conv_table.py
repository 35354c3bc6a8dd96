"""Op table rows for the depthwise convolution ops (DepthwiseConv2dNative and its two backprops, through
tf.nn.depthwise_conv2d / separable_conv2d and apply_op): SAME / VALID, strides 1-2, dilation 2, multipliers 1-3.

The NumPy reference adds one shifted, strided slice of the padded input per kernel offset, channel by channel
(an einsum each), independently of the kernels' block-diagonal Conv2D; the backprops' references are the
adjoints (NumPy's gradient of that sum written out), see tests/op_harness.py for the checks each row gets.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case
from test_conv_table import out_and_pads

import webflow as wf
from webflow.nn import depthwise_conv
from webflow.ops.registry import apply_op

rng = np.random.default_rng(5)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _geometry(x_shape, w_shape, strides, dilations, padding):
    (n, h, width, c), (kh, kw) = x_shape, w_shape[:2]
    (oh, top), (ow, left) = (out_and_pads(h, kh, strides[0], dilations[0], padding),
                             out_and_pads(width, kw, strides[1], dilations[1], padding))
    big_shape = (n, h + 2 * kh * dilations[0] + top + oh * strides[0],
                 width + 2 * kw * dilations[1] + left + ow * strides[1], c)
    return oh, ow, top, left, big_shape


def np_depthwise(x, w, strides=(1, 1), dilations=(1, 1), padding="SAME"):
    """y[b,i,j,c*M+m] = sum_{p,q} xpad[b, i*sh + p*dh, j*sw + q*dw, c] w[p,q,c,m]."""
    oh, ow, top, left, big_shape = _geometry(x.shape, w.shape, strides, dilations, padding)
    big = np.zeros(big_shape, x.dtype)
    big[:, top:top + x.shape[1], left:left + x.shape[2]] = x
    y = np.zeros((x.shape[0], oh, ow, x.shape[3], w.shape[3]), np.result_type(x, w))
    for p in range(w.shape[0]):
        for q in range(w.shape[1]):
            window = big[:, p * dilations[0]::strides[0], q * dilations[1]::strides[1]][:, :oh, :ow]
            y += np.einsum("bijc,cm->bijcm", window, w[p, q])
    return y.reshape(x.shape[0], oh, ow, -1)


def np_backprop_input(x_shape, w, dy, strides=(1, 1), padding="SAME"):
    """The adjoint in x: each offset's dy[.., c, m] * w[p, q, c, m] summed over m, added back where it was read."""
    oh, ow, top, left, big_shape = _geometry(x_shape, w.shape, strides, (1, 1), padding)
    dy = dy.reshape(dy.shape[0], oh, ow, w.shape[2], w.shape[3])
    big = np.zeros(big_shape, dy.dtype)
    for p in range(w.shape[0]):
        for q in range(w.shape[1]):
            big[:, p:p + oh * strides[0]:strides[0], q:q + ow * strides[1]:strides[1]] += \
                np.einsum("bijcm,cm->bijc", dy, w[p, q])
    return big[:, top:top + x_shape[1], left:left + x_shape[2]]


def np_backprop_filter(x, w_shape, dy, strides=(1, 1), padding="SAME"):
    """The adjoint in w: sum over b, i, j of each offset's input slice times dy."""
    oh, ow, top, left, big_shape = _geometry(x.shape, w_shape, strides, (1, 1), padding)
    big = np.zeros(big_shape, x.dtype)
    big[:, top:top + x.shape[1], left:left + x.shape[2]] = x
    dy = dy.reshape(dy.shape[0], oh, ow, w_shape[2], w_shape[3])
    dw = np.zeros(w_shape, np.result_type(x, dy))
    for p in range(w_shape[0]):
        for q in range(w_shape[1]):
            window = big[:, p::strides[0], q::strides[1]][:, :oh, :ow]
            dw[p, q] = np.einsum("bijc,bijcm->cm", window, dy)
    return dw


def _attrs(stride, padding):
    return {"strides": [1, stride, stride, 1], "padding": padding, "explicit_paddings": [],
            "data_format": "NHWC", "dilations": [1, 1, 1, 1]}


def forward_row(name, x_shape, w_shape, stride, padding, dilation=1):
    strides, dilations = (stride, stride), (dilation, dilation)
    return OpCase(name, lambda x, w: depthwise_conv.depthwise_conv2d(x, w, strides, padding, dilations=dilations),
                  [r(*x_shape), r(*w_shape)],
                  lambda x, w: np_depthwise(x, w, strides, dilations, padding), atol=1e-4, rtol=1e-4)


def input_row(name, x_shape, w_shape, stride, padding):
    dy = np_depthwise(np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32), (stride, stride), (1, 1),
                      padding)
    return OpCase(name, lambda w, dy: apply_op("DepthwiseConv2dNativeBackpropInput", [list(x_shape), w, dy],
                                               _attrs(stride, padding)),
                  [r(*w_shape), r(*dy.shape)],
                  lambda w, dy: np_backprop_input(x_shape, w, dy, (stride, stride), padding), atol=1e-4, rtol=1e-4)


def filter_row(name, x_shape, w_shape, stride, padding):
    dy = np_depthwise(np.zeros(x_shape, np.float32), np.zeros(w_shape, np.float32), (stride, stride), (1, 1),
                      padding)
    return OpCase(name, lambda x, dy: apply_op("DepthwiseConv2dNativeBackpropFilter", [x, list(w_shape), dy],
                                               _attrs(stride, padding)),
                  [r(*x_shape), r(*dy.shape)],
                  lambda x, dy: np_backprop_filter(x, w_shape, dy, (stride, stride), padding), atol=1e-4, rtol=1e-4)


CASES = [
    forward_row("depthwise_same_s1_m2", (2, 5, 6, 3), (3, 2, 3, 2), 1, "SAME"),
    forward_row("depthwise_valid_s2_m1", (2, 7, 6, 2), (3, 3, 2, 1), 2, "VALID"),
    forward_row("depthwise_same_s2_m3", (1, 6, 5, 2), (2, 3, 2, 3), 2, "SAME"),
    forward_row("depthwise_valid_dilated", (1, 7, 7, 2), (2, 2, 2, 2), 1, "VALID", dilation=2),
    forward_row("depthwise_same_dilated_3", (2, 8, 7, 2), (3, 2, 2, 1), 1, "SAME", dilation=3),
    input_row("depthwise_backprop_input_same_s2", (2, 5, 6, 3), (3, 2, 3, 2), 2, "SAME"),
    input_row("depthwise_backprop_input_valid", (1, 6, 5, 2), (2, 3, 2, 1), 1, "VALID"),
    filter_row("depthwise_backprop_filter_same_s1", (2, 5, 6, 3), (3, 2, 3, 2), 1, "SAME"),
    filter_row("depthwise_backprop_filter_valid_s2", (1, 7, 6, 2), (3, 3, 2, 2), 2, "VALID"),
    OpCase("separable_conv2d", lambda x, d, p: depthwise_conv.separable_conv2d(x, d, p, (1, 1), "SAME"),
           [r(2, 5, 4, 2), r(3, 3, 2, 2), r(1, 1, 4, 3)],
           lambda x, d, p: np.einsum("bijc,ck->bijk", np_depthwise(x, d), p[0, 0]), atol=1e-4, rtol=1e-4),
    OpCase("separable_conv2d_rate_2", lambda x, d, p: wf.compat.v1.nn.separable_conv2d(x, d, p, [1, 1, 1, 1], "SAME",
                                                                                 rate=[2, 2]),
           [r(1, 6, 5, 2), r(2, 3, 2, 1), r(1, 1, 2, 3)],
           lambda x, d, p: np.einsum("bijc,ck->bijk", np_depthwise(x, d, dilations=(2, 2)), p[0, 0]), atol=1e-4,
           rtol=1e-4),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


def test_depthwise_shape_errors():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        with wf.Graph().as_default():
            depthwise_conv.depthwise_conv2d(wf.zeros([1, 4, 4, 3]), wf.zeros([2, 2, 2, 1]), 1, "SAME")
