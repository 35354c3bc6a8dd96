"""`keras.regularizers`: penalties on a weight, added to `layer.losses` and so to the training loss.

    L1(l1=0.01)(w)      = l1 * sum(|w|)
    L2(l2=0.01)(w)      = l2 * sum(w ** 2)
    L1L2(l1=0, l2=0)(w) = both terms (0 when both factors are 0)

A weight's penalty is re-evaluated on every read of `layer.losses` (tf_keras keeps it as a callable loss, so it
follows the weight as it trains); an `activity_regularizer`'s penalty on a layer's output is divided by the
batch size, as tf_keras does.
"""

from __future__ import annotations

from typing import Any

from webflow.keras.backend import cast_to_floatx as _float32  # 0.01 is 0.009999999776482582 in a config
from webflow.keras.serialization import get_by_name, serialize_keras_object
from webflow.ops import unary_math_ops
from webflow.ops.constants import constant
from webflow.ops.sum_mean_ops import reduce_sum


class Regularizer:
    """The base class: `regularizer(weight)` is a scalar penalty."""

    def __call__(self, x: Any) -> Any:
        return constant(0.0)

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)


class L1L2(Regularizer):
    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1, self.l2 = _float32(l1), _float32(l2)

    def __call__(self, x: Any) -> Any:
        total = constant(0.0, dtype=x.dtype)
        if self.l1:
            total = total + self.l1 * reduce_sum(unary_math_ops.abs(x))
        if self.l2:
            total = total + self.l2 * reduce_sum(unary_math_ops.square(x))
        return total

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(Regularizer):
    def __init__(self, l1: float = 0.01, **kwargs: Any):
        self.l1 = _float32(kwargs.pop("l", l1))   # tf_keras accepts `l` as the old name

    def __call__(self, x: Any) -> Any:
        return self.l1 * reduce_sum(unary_math_ops.abs(x))

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(Regularizer):
    def __init__(self, l2: float = 0.01, **kwargs: Any):
        self.l2 = _float32(kwargs.pop("l", l2))

    def __call__(self, x: Any) -> Any:
        return self.l2 * reduce_sum(unary_math_ops.square(x))

    def get_config(self) -> dict:
        return {"l2": self.l2}


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:
    """tf_keras's function form: both factors 0.01 by default (the class's are 0)."""
    return L1L2(l1=l1, l2=l2)


l1, l2 = L1, L2
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": l1_l2, "L1": L1, "L2": L2, "L1L2": L1L2}


def get(identifier: Any) -> Any:
    """None, a name (`"l2"`: L2(0.01)), a config dict or a callable."""
    return get_by_name(identifier, _BY_NAME, "regularizer")


def serialize(regularizer: Any) -> Any:
    return None if regularizer is None else serialize_keras_object(regularizer, "keras.regularizers")


__all__ = ["Regularizer", "L1", "L2", "L1L2", "l1", "l2", "l1_l2", "get", "serialize"]
