"""`tf.nn.depthwise_conv2d` and `tf.nn.separable_conv2d` (NHWC): each input channel convolved with its own
`multiplier` filters (one DepthwiseConv2dNative op, ops/depthwise_conv_ops.py), then, for the separable one, a 1x1
convolution mixing the channels. A dilation `rate` goes through `with_space_to_batch` (SpaceToBatchND, the plain
op, BatchToSpaceND), as in TensorFlow. Used by keras's DepthwiseConv2D / SeparableConv2D and
tf.layers.separable_conv2d.
"""

from __future__ import annotations

import warnings
from typing import Any

from webflow.nn.space_to_batch import with_space_to_batch
from webflow.ops import array_ops, conv_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.depthwise_conv_ops import depthwise_conv2d_native
from webflow.ops.registry import op_scope


def _four(value: Any) -> list:
    """(h, w) or 4 entries -> the 4 NHWC entries."""
    value = [int(v) for v in (value if isinstance(value, (list, tuple)) else (value, value))]
    return [1, *value, 1] if len(value) == 2 else value


def _rate(rate: Any, dilations: Any) -> Any:
    if rate is not None and dilations is not None:
        raise ValueError("Cannot specify both 'dilations' and 'rate'")
    rate = dilations if dilations is not None else rate
    return [1, 1] if rate is None else rate


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: str, rate: Any = None,  # noqa: A002
                     name: str | None = None, data_format: str | None = None, dilations: Any = None) -> Any:
    """TF1 `tf.nn.depthwise_conv2d`: y[b,i,j,c*M+m] = sum_{p,q} x[b, i*s+p*r, j*s+q*r, c] * filter[p,q,c,m]
    for filter [kh, kw, C, M] and dilation rate r."""
    with op_scope(name or "depthwise") as scope:
        input = convert_to_tensor(input, name="tensor_in")  # noqa: A001
        filter = convert_to_tensor(filter, name="filter_in")  # noqa: A001
        rate = _rate(rate, dilations)
        if any(r > 1 for r in rate) and any(s != 1 for s in strides):  # (an int rate fails here, as in TF)
            warnings.warn(f"When dilation rate is greater than 1, then all values of strides must be 1. "
                          f"Received: `dilation rate` {rate} and `strides` {strides}", stacklevel=2)

        def plain(converted: Any, _: int, padding: str) -> Any:
            return depthwise_conv2d_native(converted, filter, strides=_four(strides), padding=padding,
                                           data_format=data_format or "NHWC", name=scope or None)

        return with_space_to_batch(input, rate, padding, plain,
                                   filter_shape=array_ops.shape(filter), data_format=data_format)


def depthwise_conv2d_v2(input: Any, filter: Any, strides: Any, padding: str,  # noqa: A002
                        data_format: str | None = None, dilations: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.nn.depthwise_conv2d` (no `rate`; `dilations` before `name`)."""
    return depthwise_conv2d(input, filter, strides, padding, dilations, name, data_format)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                     padding: str, rate: Any = None, name: str | None = None, data_format: str | None = None,
                     dilations: Any = None) -> Any:
    """TF1 `tf.nn.separable_conv2d`: the depthwise convolution, then a 1x1 VALID convolution with
    pointwise_filter [1, 1, C*M, out]."""
    with op_scope(name or "separable_conv2d") as scope:
        input = convert_to_tensor(input, name="tensor_in")  # noqa: A001
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")

        def plain(converted: Any, _: int, padding: str) -> Any:
            return depthwise_conv2d_native(converted, depthwise_filter, strides=_four(strides), padding=padding,
                                           data_format=data_format or "NHWC", name="depthwise")

        depthwise = with_space_to_batch(input, _rate(rate, dilations), padding, plain,
                                        filter_shape=array_ops.shape(depthwise_filter), data_format=data_format)
        return conv_ops.conv2d(depthwise, pointwise_filter, strides=[1, 1, 1, 1], padding="VALID",
                               name=scope or None)


def separable_conv2d_v2(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                        padding: str, data_format: str | None = None, dilations: Any = None,
                        name: str | None = None) -> Any:
    """TF2 `tf.nn.separable_conv2d` (no `rate`; `dilations` before `name`)."""
    return separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, dilations, name,
                            data_format)


def depthwise_as_conv2d(inputs: Any, kernel: Any, strides: Any, padding: str, dilations: Any = (1, 1)) -> Any:
    """What the keras layers call: NHWC inputs, strides / dilations (h, w)."""
    return depthwise_conv2d(inputs, kernel, strides, padding, dilations=dilations)


def separable_as_conv2d(inputs: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any, padding: str,
                        dilations: Any = (1, 1)) -> Any:
    return separable_conv2d(inputs, depthwise_filter, pointwise_filter, strides, padding, dilations=dilations)
