"""Weight regularizers as in `tf.contrib.layers`: each returns a function `weights -> loss tensor` (or None).

l1: scale * sum(|w|); l2: scale * sum(w ** 2) / 2 (tf.nn.l2_loss); l1_l2: their sum (AddN).
`tf.get_variable(..., regularizer=r)` adds r(variable) to the REGULARIZATION_LOSSES collection;
`tf.losses.get_regularization_loss()` adds those up.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from webflow.framework.scopes import name_scope_v1 as name_scope
from webflow.ops import math_ops, sum_mean_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_loss_ops import l2_loss
from webflow.train import _math


def _check_scale(scale: Any, what: str = "scale") -> bool:
    """Validates a scale as TensorFlow does; False means "scale 0: no regularizer"."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"{what} cannot be an integer: {scale}")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}")
        if scale == 0.0:
            return False
    return True


def l1_regularizer(scale: float, scope: str | None = None) -> Callable:
    """weights -> scale * sum(|weights|), named "l1_regularizer"."""
    if not _check_scale(scale):
        return lambda _: None

    def l1(weights: Any, name: str | None = None) -> Any:
        with name_scope(scope, "l1_regularizer") as scope_name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, sum_mean_ops.reduce_sum(_math.abs(weights)), name=scope_name or None)

    return l1


def l2_regularizer(scale: float, scope: str | None = None) -> Callable:
    """weights -> scale * sum(weights ** 2) / 2, named "l2_regularizer"."""
    if not _check_scale(scale):
        return lambda _: None

    def l2(weights: Any) -> Any:
        with name_scope(scope, "l2_regularizer") as scope_name:
            my_scale = convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return math_ops.multiply(my_scale, l2_loss(weights), name=scope_name or None)

    return l2


def l1_l2_regularizer(scale_l1: float = 1.0, scale_l2: float = 1.0, scope: str | None = None) -> Callable:
    """weights -> l1 + l2 (a sum_regularizer under "l1_l2_regularizer")."""
    use_l1 = _check_scale(scale_l1, "scale_l1")
    use_l2 = _check_scale(scale_l2, "scale_l2")
    if not use_l1 and not use_l2:
        return lambda _: None
    scope = scope or "l1_l2_regularizer"
    if not use_l1:
        return l2_regularizer(scale_l2, scope)
    if not use_l2:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list: list, scope: str | None = None) -> Callable | None:
    """weights -> the sum (AddN) of every regularizer's non-None loss."""
    regularizer_list = [r for r in regularizer_list if r is not None]
    if not regularizer_list:
        return None

    def sum_reg(weights: Any) -> Any:
        with name_scope(scope, "sum_regularizer") as scope_name:
            tensors = [t for t in (r(weights) for r in regularizer_list) if t is not None]
            return math_ops.add_n(tensors, name=scope_name or None) if tensors else None

    return sum_reg


def apply_regularization(regularizer: Callable, weights_list: list | None = None) -> Any:
    """The summed penalty of `regularizer` over `weights_list` (default: the WEIGHTS collection),
    also added to REGULARIZATION_LOSSES."""
    from webflow.framework import context
    from webflow.framework.graph import GraphKeys

    graph = context.get_default_graph()
    if weights_list is None:
        weights_list = graph.get_collection(GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError("No weights to regularize.")
    with name_scope("get_regularization_penalty") as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else convert_to_tensor(0.0) for p in penalties]
        summed = math_ops.add_n(penalties, name=scope or None)
        graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed


__all__ = ["l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "sum_regularizer", "apply_regularization"]
