"""DepthwiseConv2dNative and its backprops in NumPy (ops/depthwise_conv_ops.py): one multiply-add per kernel tap
over a strided window view, channel by channel (no im2col: each output channel reads one input channel).

    y[b,i,j,c,m]  = sum_{p,q} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * w[p,q,c,m]     (then [.., c*M + m])
    dx            = the sum of each tap's dy[.., c, m] * w[p,q,c,m] over m, added back where the tap read
    dw[p,q,c,m]   = sum_{b,i,j} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * dy[b,i,j,c,m]
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.numpy import conv as conv_kernels
from webflow.backends.numpy.pool_windows import from_nhwc, to_nhwc
from webflow.framework.windows import nhwc_dims


def _geometry(op_type: str, attrs: dict, x_shape: tuple, w_shape: tuple) -> tuple:
    """(geometry kwargs, (oh, ow), pads) after TensorFlow's attribute checks."""
    geometry = conv_kernels._geometry(op_type, attrs, {"input": x_shape, "filter": w_shape})
    out_size, pads = conv_kernels.conv_geometry(x_shape, w_shape, geometry["strides"], geometry["dilations"],
                                                geometry["padding"], geometry["explicit"])
    return geometry, out_size, pads


def _tap(p: int, q: int, out_size: tuple, geometry: dict) -> tuple:
    """The slice of the padded image that tap (p, q) reads for every output pixel."""
    (sh, sw), (dh, dw) = geometry["strides"], geometry["dilations"]
    return (slice(None), slice(p * dh, p * dh + (out_size[0] - 1) * sh + 1, sh),
            slice(q * dw, q * dw + (out_size[1] - 1) * sw + 1, sw))


def depthwise_conv2d(x: Any, w: Any, attrs: dict) -> Any:
    x = to_nhwc(x, attrs["data_format"])
    geometry, out_size, pads = _geometry("DepthwiseConv2dNative", attrs, x.shape, w.shape)
    padded = conv_kernels._pad(x, pads)
    kh, kw, channels, multiplier = w.shape
    y = np.zeros((x.shape[0], *out_size, channels, multiplier), np.result_type(x, w))
    for p in range(kh):
        for q in range(kw):
            y += padded[_tap(p, q, out_size, geometry)][..., None] * w[p, q]
    return from_nhwc(y.reshape(*y.shape[:3], channels * multiplier), attrs["data_format"])


def depthwise_backprop_input(sizes: Any, w: Any, dy: Any, attrs: dict) -> Any:
    x_shape = nhwc_dims(tuple(int(v) for v in np.asarray(sizes).reshape(-1)), attrs["data_format"])
    dy = to_nhwc(dy, attrs["data_format"])
    geometry, out_size, pads = _geometry("DepthwiseConv2dNativeBackpropInput", attrs, x_shape, w.shape)
    kh, kw, channels, multiplier = w.shape
    (top, bottom), (left, right) = pads
    dpad = np.zeros((x_shape[0], x_shape[1] + top + bottom, x_shape[2] + left + right, channels), dy.dtype)
    dy = dy.reshape(*dy.shape[:3], channels, multiplier)
    for p in range(kh):
        for q in range(kw):
            dpad[_tap(p, q, out_size, geometry)] += (dy * w[p, q]).sum(axis=-1)
    dx = dpad[:, top:top + x_shape[1], left:left + x_shape[2]]
    return from_nhwc(np.ascontiguousarray(dx), attrs["data_format"])


def depthwise_backprop_filter(x: Any, sizes: Any, dy: Any, attrs: dict) -> Any:
    w_shape = tuple(int(v) for v in np.asarray(sizes).reshape(-1))
    x, dy = to_nhwc(x, attrs["data_format"]), to_nhwc(dy, attrs["data_format"])
    geometry, out_size, pads = _geometry("DepthwiseConv2dNativeBackpropFilter", attrs, x.shape, w_shape)
    padded = conv_kernels._pad(x, pads)
    kh, kw, channels, multiplier = w_shape
    dy = dy.reshape(*dy.shape[:3], channels, multiplier)
    dw = np.zeros(w_shape, np.result_type(x, dy))
    for p in range(kh):
        for q in range(kw):
            dw[p, q] = np.einsum("bijc,bijcm->cm", padded[_tap(p, q, out_size, geometry)], dy)
    return dw
