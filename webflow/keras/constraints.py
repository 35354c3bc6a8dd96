"""`keras.constraints`: projections applied to a weight after each optimizer step (`kernel_constraint=`).

The optimizer assigns `w <- constraint(w)` right after updating `w`, as tf_keras's optimizers do. Norms are taken
along `axis` (0 by default: for a Dense kernel [in, out], each unit's incoming weights):

    MaxNorm(m)               w * clip(n, 0, m) / (eps + n)               n = sqrt(sum(w ** 2, axis))
    MinMaxNorm(a, b, rate)   w * (rate * clip(n, a, b) + (1 - rate) * n) / (eps + n)
    UnitNorm                 w / (eps + n)
    NonNeg                   w * (w >= 0)
"""

from __future__ import annotations

from typing import Any

from webflow.keras import backend
from webflow.keras.serialization import get_by_name, serialize_keras_object
from webflow.ops import unary_math_ops
from webflow.ops.logic_ops import greater_equal
from webflow.ops.math_ops import cast
from webflow.ops.sum_mean_ops import reduce_sum
from webflow.train.clip_ops import clip_by_value


def _norms(w: Any, axis: Any) -> Any:
    return unary_math_ops.sqrt(reduce_sum(unary_math_ops.square(w), axis=axis, keepdims=True))


class Constraint:
    """The base class: `constraint(w)` returns the projected weight (the identity here)."""

    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Any:
        return cls(**config)


class MaxNorm(Constraint):
    def __init__(self, max_value: float = 2, axis: Any = 0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = clip_by_value(norms, 0.0, float(self.max_value))
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    def __call__(self, w: Any) -> Any:
        return w * cast(greater_equal(w, 0.0), w.dtype)


class UnitNorm(Constraint):
    def __init__(self, axis: Any = 0):
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        return w / (backend.epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0, axis: Any = 0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = (self.rate * clip_by_value(norms, float(self.min_value), float(self.max_value))
                   + (1 - self.rate) * norms)
        return w * (desired / (backend.epsilon() + norms))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm,
            "MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}


def get(identifier: Any) -> Any:
    """None, a name (`"max_norm"`), a config dict or a callable."""
    return get_by_name(identifier, _BY_NAME, "constraint function")


def serialize(constraint: Any) -> Any:
    return None if constraint is None else serialize_keras_object(constraint, "keras.constraints")


__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "max_norm", "non_neg", "unit_norm",
           "min_max_norm", "get", "serialize"]
