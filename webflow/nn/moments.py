"""`tf.nn.moments`: mean and variance over axes, built from ops exactly as TensorFlow builds them."""

from __future__ import annotations

from typing import Any

from webflow.framework.scopes import name_scope_v1
from webflow.ops import array_ops, sum_mean_ops
from webflow.ops.binary_math_ops import squared_difference
from webflow.ops.convert import convert_to_tensor
from webflow.ops.manip_ops import squeeze


def moments(x: Any, axes: Any, shift: Any = None, name: str | None = None, keep_dims: Any = None,
            keepdims: Any = None) -> tuple:
    """(mean, variance) of x over `axes`: mean = E[x], variance = E[(x - E[x])^2].

    The variance's mean is a stop_gradient, as in TensorFlow: the gradient of E[(x - m)^2] with
    respect to m is zero anyway, and stopping it keeps the backward graph small.
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope_v1(name, "moments", [x, axes]):
        x = convert_to_tensor(x)
        mean = sum_mean_ops.reduce_mean(x, axes, keepdims=True, name="mean")
        variance = sum_mean_ops.reduce_mean(squared_difference(x, array_ops.stop_gradient(mean)), axes,
                                        keepdims=True, name="variance")
        if not keep:
            mean = squeeze(mean, axes)
            variance = squeeze(variance, axes)
        return mean, variance
