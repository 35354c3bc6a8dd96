"""`tf.losses` helpers that read collections: the regularization losses."""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.graph import GraphKeys
from webflow.ops import math_ops
from webflow.ops.constants import constant


def get_regularization_losses(scope: str | None = None) -> list:
    """The REGULARIZATION_LOSSES collection (filtered by `scope`, a name prefix regex)."""
    return context.get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: str | None = None, name: str = "total_regularization_loss") -> Any:
    """The sum (AddN) of the regularization losses, or a constant 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return constant(0.0)


__all__ = ["get_regularization_losses", "get_regularization_loss"]
