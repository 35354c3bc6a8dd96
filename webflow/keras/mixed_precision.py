"""`keras.mixed_precision`: compute in float16, keep the weights in float32 (tf_keras's policies and autocasting).

A `Policy` names two dtypes: `compute_dtype` (what a layer's inputs are cast to and its math runs in) and
`variable_dtype` (what its weights are stored in). `"mixed_float16"` = (float16, float32): fast half-precision
math, while the small updates an optimizer adds to a weight are not lost to float16 rounding. Inside a layer's call
its float32 weights read as float16 (`AutoCastVariable`); gradients flow back through that cast to float32.

float16 keeps only ~3 decimal digits and nothing below 6e-8: small gradients underflow to 0. `LossScaleOptimizer`
multiplies the loss by a large scale (2**15) before differentiating, so gradients stay representable, divides them
by it afterwards, and adapts the scale (loss_scale_optimizer.py).

`"mixed_bfloat16"` = (bfloat16, float32): bfloat16 has float32's exponent range, so nothing underflows and no
loss scaling is needed (Keras does not wrap the optimizer); its values are float32 arrays rounded to bfloat16
after every op (backends/bfloat16.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from webflow.framework import context, dtypes
from webflow.ops import convert
from webflow.ops.math_ops import cast
from webflow.ops.resource_variable_ops import ResourceVariable

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}
_GLOBAL_POLICY: list = []      # [] = the default, Policy(floatx)
_AUTOCAST_DTYPE: list = []     # the compute dtype of the layers being called, innermost last


class Policy:
    """`Policy("mixed_float16")`: compute_dtype float16, variable_dtype float32; `Policy("float32")`: both."""

    def __init__(self, name: str):
        if isinstance(name, dtypes.DType):
            raise TypeError(f"'name' must be a string, not a DType. Instead, pass DType.name. Got: {name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name}")
        self._name = name
        if name in _MIXED:
            self._compute_dtype, self._variable_dtype = _MIXED[name], "float32"
            return
        try:
            dtype = dtypes.as_dtype(name).name
        except (TypeError, ValueError, KeyError):
            raise ValueError(f"Cannot convert value {name} to a mixed precision Policy. Valid policies include "
                             "'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as "
                             "'float32'.") from None
        self._compute_dtype = self._variable_dtype = dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        return self._compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self._variable_dtype

    def __repr__(self) -> str:
        return f'<Policy "{self._name}">'

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Policy) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._name)

    def get_config(self) -> dict:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> Policy:
        return cls(**config)


def global_policy() -> Policy:
    """The policy layers made without `dtype=` use (`Policy(floatx())` until `set_global_policy`)."""
    if _GLOBAL_POLICY:
        return _GLOBAL_POLICY[0]
    from webflow.keras import backend
    return Policy(backend.floatx())


def set_global_policy(policy: Any) -> None:
    """Sets the policy of the layers made from now on (None: back to floatx)."""
    if policy is None:
        _GLOBAL_POLICY.clear()
        return
    policy = policy if isinstance(policy, Policy) else Policy(policy)
    if not dtypes.as_dtype(policy.compute_dtype).is_floating:
        raise ValueError("set_global_policy can only be used to set the global policy to floating-point policies, "
                         f'such as "float32" and "mixed_float16", but got policy: {policy.name}')
    _GLOBAL_POLICY[:] = [policy]


def policy_of(dtype: Any) -> Policy:
    """A layer's policy from its `dtype=` argument: None -> the global one, a name or DType -> Policy(name)."""
    if dtype is None:
        return global_policy()
    if isinstance(dtype, Policy):
        return dtype
    if isinstance(dtype, dict):   # a serialized policy
        return Policy(dtype.get("config", dtype)["name"])
    return Policy(dtypes.as_dtype(dtype).name if not isinstance(dtype, str) else dtype)


def serialize(policy: Policy) -> Any:
    """A layer config's `dtype`: the dtype name for a plain policy, the policy's dict for a mixed one."""
    if policy.compute_dtype == policy.variable_dtype:
        return policy.name
    return {"module": "keras.mixed_precision", "class_name": "Policy", "config": policy.get_config(),
            "registered_name": None}


def deserialize(config: Any) -> Policy:
    return policy_of(config)


# --- autocasting in a layer's call ----------------------------------------------------------------------

@contextlib.contextmanager
def autocast_scope(compute_dtype: str) -> Iterator[None]:
    """Inside: AutoCastVariables read as `compute_dtype` (tf_keras's enable_auto_cast_variables)."""
    _AUTOCAST_DTYPE.append(compute_dtype)
    try:
        yield
    finally:
        _AUTOCAST_DTYPE.pop()


def math_dtype(layer: Any) -> str:
    """The dtype a layer's call runs in: its compute dtype, but float32 for a layer that asks for it with 16-bit
    inputs (`_float32_math = True`: BatchNormalization, as tf_keras, for stable statistics)."""
    compute = layer._dtype_policy.compute_dtype
    if getattr(layer, "_float32_math", False) and compute in ("float16", "bfloat16"):
        return "float32"
    return compute


def cast_floats(values: Any, dtype: str, unless: str | None = None) -> Any:
    """Floating tensors in `values` (nested lists / tuples / dicts) cast to `dtype` (nothing when dtype == unless)."""
    if dtype == unless:
        return values
    if isinstance(values, (list, tuple)):
        return type(values)(cast_floats(item, dtype) for item in values)
    if isinstance(values, dict):
        return {key: cast_floats(value, dtype) for key, value in values.items()}
    found = getattr(values, "dtype", None)
    if found is None or not dtypes.as_dtype(found).is_floating or dtypes.as_dtype(found).name == dtype:
        return values
    return cast(values, dtype)


class AutoCastVariable(ResourceVariable):
    """A float32 weight that reads as the compute dtype inside the call of a mixed-precision layer."""

    def read_value(self) -> Any:
        value = super().read_value()
        target = _AUTOCAST_DTYPE[-1] if _AUTOCAST_DTYPE else None
        if target is None or target == self._dtype.name:
            return value
        return cast(value, target)

    @property
    def true_dtype(self) -> Any:
        return self._dtype


def _autocast_to_tensor(variable: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Any:
    if not context.executing_eagerly():
        from webflow.ops.registry import apply_op
        value = apply_op("ReadVariableOp", [variable.handle], {"dtype": variable._dtype, "shape": variable._shape})
        target = _AUTOCAST_DTYPE[-1] if _AUTOCAST_DTYPE else None
        return value if target is None or target == variable._dtype.name else cast(value, target)
    return variable.read_value()


# First in the list: ResourceVariable's own conversion (which would not cast) matches subclasses too.
convert._CONVERSION_FUNCTIONS.insert(0, (AutoCastVariable, _autocast_to_tensor))


def variable_class(policy: Policy, dtype: Any) -> type:
    """AutoCastVariable for a floating weight of a layer whose compute dtype differs from its variable dtype."""
    if policy.compute_dtype != policy.variable_dtype and dtypes.as_dtype(dtype).is_floating:
        return AutoCastVariable
    return ResourceVariable


from webflow.keras.loss_scale_optimizer import LossScaleOptimizer  # noqa: E402 - it imports nothing from here

__all__ = ["Policy", "global_policy", "set_global_policy", "LossScaleOptimizer"]
