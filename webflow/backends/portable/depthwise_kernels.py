"""DepthwiseConv2dNative and its two backprops without NumPy: the depthwise filter [kh, kw, C, M] is spread into
the block-diagonal Conv2D filter [kh, kw, C, C*M] (entry (c, c*M+m) = filter[.., c, m], 0 elsewhere) and the
portable Conv2D kernels run on it; the filter gradient is that Conv2D filter gradient's diagonal blocks."""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import flat_ints
from webflow.backends.portable import conv_kernels


def _dense_index(tap: int, c: int, m: int, channels: int, multiplier: int) -> int:
    return ((tap * channels + c) * channels + c) * multiplier + m


def dense_filter(filter: CArray) -> CArray:  # noqa: A002 - TensorFlow's input name
    kh, kw, channels, multiplier = filter.shape
    values = filter.data.tolist()
    dense = [0.0] * (kh * kw * channels * channels * multiplier)
    for tap in range(kh * kw):
        for c in range(channels):
            for m in range(multiplier):
                dense[_dense_index(tap, c, m, channels, multiplier)] = values[(tap * channels + c) * multiplier + m]
    return CArray(type(filter.data)(filter.data.typecode, dense), (kh, kw, channels, channels * multiplier),
                  filter.dtype)


def depthwise_conv2d(input: Any, filter: Any, **attrs: Any) -> CArray:  # noqa: A002
    """y[b,i,j,c*M+m] = sum_{p,q} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * filter[p,q,c,m]."""
    return conv_kernels.conv2d(input, dense_filter(filter), **attrs)


def depthwise_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> CArray:  # noqa: A002
    """dx = Conv2DBackpropInput with the block-diagonal filter."""
    return conv_kernels.conv2d_backprop_input(input_sizes, dense_filter(filter), out_backprop, **attrs)


def depthwise_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, **attrs: Any) -> CArray:  # noqa: A002
    """dfilter[p,q,c,m] = the Conv2D filter gradient at (p, q, c, c*M+m)."""
    kh, kw, channels, multiplier = flat_ints(filter_sizes)
    dense = conv_kernels.conv2d_backprop_filter(input, [kh, kw, channels, channels * multiplier], out_backprop,
                                                **attrs)
    values = dense.data.tolist()
    picked = [values[_dense_index(tap, c, m, channels, multiplier)]
              for tap in range(kh * kw) for c in range(channels) for m in range(multiplier)]
    return CArray(type(dense.data)(dense.data.typecode, picked), (kh, kw, channels, multiplier), dense.dtype)
