"""`tf.nn.depthwise_conv2d` and `tf.nn.separable_conv2d` (NHWC): each input channel convolved with its own
`multiplier` filters (one DepthwiseConv2dNative op, ops/depthwise_conv_ops.py), then, for the separable one, a 1x1
convolution mixing the channels. Used by keras's DepthwiseConv2D / SeparableConv2D and tf.layers.separable_conv2d.
"""

from __future__ import annotations

from typing import Any

from webflow.ops import conv_ops
from webflow.ops.depthwise_conv_ops import depthwise_conv2d_native
from webflow.ops.registry import op_scope


def _four(value: Any) -> list:
    """(h, w) or 4 entries -> the 4 NHWC entries."""
    value = [int(v) for v in (value if isinstance(value, (list, tuple)) else (value, value))]
    return [1, *value, 1] if len(value) == 2 else value


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: str, data_format: str | None = None,  # noqa: A002
                     dilations: Any = None, name: str | None = None) -> Any:
    """y[b,i,j,c*M+m] = sum_{p,q} x[b, i*s+p*d, j*s+q*d, c] * filter[p,q,c,m]; filter [kh, kw, C, M]."""
    with op_scope(name or "depthwise") as scope:
        return depthwise_conv2d_native(input, filter, strides=_four(strides), padding=padding,
                                       data_format=data_format or "NHWC", dilations=_four(dilations or (1, 1)),
                                       name=scope or None)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any, padding: str,  # noqa: A002
                     data_format: str | None = None, dilations: Any = None, name: str | None = None) -> Any:
    """The depthwise convolution, then a 1x1 VALID convolution with pointwise_filter [1, 1, C*M, out]."""
    with op_scope(name or "separable_conv2d") as scope:
        depthwise = depthwise_conv2d_native(input, depthwise_filter, strides=_four(strides), padding=padding,
                                            data_format="NHWC", dilations=_four(dilations or (1, 1)),
                                            name="depthwise")
        return conv_ops.conv2d(depthwise, pointwise_filter, strides=[1, 1, 1, 1], padding="VALID",
                               name=scope or None)


def depthwise_as_conv2d(inputs: Any, kernel: Any, strides: Any, padding: str, dilations: Any = (1, 1)) -> Any:
    """What the keras layers call: NHWC inputs, strides / dilations (h, w)."""
    return depthwise_conv2d(inputs, kernel, strides, padding, dilations=dilations)


def separable_as_conv2d(inputs: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any, padding: str,
                        dilations: Any = (1, 1)) -> Any:
    return separable_conv2d(inputs, depthwise_filter, pointwise_filter, strides, padding, dilations=dilations)
