"""Loss ops with their own kernels: `L2Loss` (`tf.nn.l2_loss`)."""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import l2_loss as c_l2_loss
from webflow.backends.portable import array_kernels
from webflow.framework import dtypes
from webflow.ops import math_ops
from webflow.ops.registry import apply_op, output_spec, register_gradient, register_op


# --- L2Loss -----------------------------------------------------------------------------------------
def _l2_loss_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec((), inputs[0].dtype.base_dtype)


@register_op("L2Loss", "L2Loss", inputs=("t",), shape=_l2_loss_shape, allowed=dtypes.FLOATING,
             portable=array_kernels.l2_loss, c=c_l2_loss.l2_loss)
def l2_loss_kernel(t: Any) -> Any:
    """output = sum(t ** 2) / 2."""
    return np.asarray(np.sum(np.square(t), dtype=t.dtype) / t.dtype.type(2))


@register_gradient("L2Loss")
def _l2_loss_grad(op: Any, grad: Any) -> Any:
    """d output / dt = t."""
    return math_ops.multiply(op.inputs[0], grad)


def l2_loss(t: Any, name: str | None = None) -> Any:
    """`tf.nn.l2_loss`: half the squared L2 norm of `t`, without the sqrt."""
    return apply_op("L2Loss", [t], name=name)


__all__ = ["l2_loss"]
