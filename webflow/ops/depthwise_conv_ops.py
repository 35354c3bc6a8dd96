"""Depthwise convolution ops: DepthwiseConv2dNative, DepthwiseConv2dNativeBackpropInput and
DepthwiseConv2dNativeBackpropFilter, and `tf.nn.depthwise_conv2d_native`.

Each input channel c is convolved with its own M filters (M = the depth multiplier):

    y[b,i,j,c*M+m] = sum_{p,q} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * filter[p,q,c,m]

The attributes are Conv2D's (conv_ops.py). NumPy kernels: one multiply-add per kernel tap over a strided window
view (backends/numpy/depthwise_conv.py); the portable ones run Conv2D's on the block-diagonal filter
[kh, kw, C, C*M] (backends/portable/depthwise_kernels.py). The gradients are TensorFlow's (nn_grad.py): each op
differentiates into the other two.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.numpy import conv as conv_kernels
from webflow.backends.numpy import depthwise_conv as depthwise_kernels
from webflow.backends.portable import depthwise_kernels as portable_depthwise
from webflow.framework import dtypes
from webflow.framework.windows import from_nhwc_dims, nhwc_dims, spatial_hw
from webflow.ops import array_ops
from webflow.ops.conv_ops import (
    _EQUAL,
    _backprop_filter_shape,
    _check_window_attrs,
    _dims,
    _output_dim,
    _rank4_from_sizes,
)
from webflow.ops.registry import apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import merge_dims

DEPTHWISE_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _attrs(op: Any) -> dict:
    """The attributes a gradient op copies from the op being differentiated."""
    return {name: op.get_attr(name) for name in ("strides", "padding", "explicit_paddings", "data_format",
                                                 "dilations")}


# --- DepthwiseConv2dNative ----------------------------------------------------------------------------------
def _depthwise_shape(inputs: list, attrs: dict) -> tuple:
    x, w = inputs
    data_format = attrs["data_format"]
    n, h, width, depth = nhwc_dims(_dims(x), data_format)
    kh, kw, filter_depth, multiplier = _dims(w)
    _check_window_attrs(attrs)
    depth = merge_dims(depth, filter_depth, _EQUAL)
    (sh, sw), (dh, dw) = (spatial_hw(attrs[name], data_format) for name in ("strides", "dilations"))
    pads = conv_kernels.explicit_hw(attrs)
    oh = _output_dim(h, kh, sh, dh, attrs["padding"], pads[0])
    ow = _output_dim(width, kw, sw, dw, attrs["padding"], pads[1])
    out_depth = None if depth is None or multiplier is None else depth * multiplier
    return output_spec(from_nhwc_dims((n, oh, ow, out_depth), data_format), x.dtype.base_dtype)


@register_op("DepthwiseConv2dNative", "depthwise", inputs=("input", "filter"), shape=_depthwise_shape,
             same_dtype=(0, 1), allowed=DEPTHWISE_TYPES, portable=portable_depthwise.depthwise_conv2d)
def depthwise_conv2d_native_kernel(input: Any, filter: Any, **attrs: Any) -> Any:  # noqa: A002
    """y[b,i,j,c*M+m] = sum_{p,q} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * filter[p,q,c,m]."""
    return depthwise_kernels.depthwise_conv2d(input, filter, attrs)


@register_gradient("DepthwiseConv2dNative")
def _depthwise_conv2d_native_grad(op: Any, grad: Any) -> list:
    """dinput = DepthwiseConv2dNativeBackpropInput(shape(input), filter, g);
    dfilter = DepthwiseConv2dNativeBackpropFilter(input, shape(filter), g)."""
    attrs = _attrs(op)
    x, w = op.inputs
    return [apply_op("DepthwiseConv2dNativeBackpropInput", [array_ops.shape(x), w, grad], attrs),
            apply_op("DepthwiseConv2dNativeBackpropFilter", [x, array_ops.shape(w), grad], attrs)]


# --- DepthwiseConv2dNativeBackpropInput ---------------------------------------------------------------------
def _backprop_input_shape(inputs: list, attrs: dict) -> tuple:
    sizes, w, _ = inputs
    return _rank4_from_sizes(sizes, w.dtype.base_dtype)


@register_op("DepthwiseConv2dNativeBackpropInput", "DepthwiseConv2dNativeBackpropInput",
             inputs=("input_sizes", "filter", "out_backprop"), shape=_backprop_input_shape, same_dtype=(1, 2),
             allowed=DEPTHWISE_TYPES, portable=portable_depthwise.depthwise_backprop_input)
def depthwise_backprop_input_kernel(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """dx[b,y,x,c] = sum over the windows reading (y, x) of sum_m dy[b,i,j,c*M+m] * filter[p,q,c,m]."""
    return depthwise_kernels.depthwise_backprop_input(input_sizes, filter, out_backprop, attrs)


@register_gradient("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input_grad(op: Any, grad: Any) -> list:
    """d filter = DepthwiseConv2dNativeBackpropFilter(g, shape(filter), dy); d dy = DepthwiseConv2dNative(g, filter)."""
    attrs = _attrs(op)
    _, w, dy = op.inputs
    return [None, apply_op("DepthwiseConv2dNativeBackpropFilter", [grad, array_ops.shape(w), dy], attrs),
            apply_op("DepthwiseConv2dNative", [grad, w], attrs)]


# --- DepthwiseConv2dNativeBackpropFilter (the shape rule is Conv2DBackpropFilter's) ---------------------------
@register_op("DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropFilter",
             inputs=("input", "filter_sizes", "out_backprop"), shape=_backprop_filter_shape, same_dtype=(0, 2),
             allowed=DEPTHWISE_TYPES, portable=portable_depthwise.depthwise_backprop_filter)
def depthwise_backprop_filter_kernel(input: Any, filter_sizes: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """dfilter[p,q,c,m] = sum_{b,i,j} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * dy[b,i,j,c*M+m]."""
    return depthwise_kernels.depthwise_backprop_filter(input, filter_sizes, out_backprop, attrs)


@register_gradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter_grad(op: Any, grad: Any) -> list:
    """d input = DepthwiseConv2dNativeBackpropInput(shape(input), g, dy); d dy = DepthwiseConv2dNative(input, g)."""
    attrs = _attrs(op)
    x, _, dy = op.inputs
    return [apply_op("DepthwiseConv2dNativeBackpropInput", [array_ops.shape(x), grad, dy], attrs), None,
            apply_op("DepthwiseConv2dNative", [x, grad], attrs)]


# --- Python wrapper -----------------------------------------------------------------------------------------
def depthwise_conv2d_native(input: Any, filter: Any, strides: Any, padding: str, data_format: str = "NHWC",  # noqa: A002
                            dilations: Any = (1, 1, 1, 1), explicit_paddings: Any = (),
                            name: str | None = None) -> Any:
    """`tf.nn.depthwise_conv2d_native`: strides / dilations have 4 entries in data-format order."""
    attrs = {"strides": list(strides), "padding": padding, "explicit_paddings": list(explicit_paddings),
             "data_format": data_format, "dilations": list(dilations)}
    return apply_op("DepthwiseConv2dNative", [input, filter], attrs, name=name)
