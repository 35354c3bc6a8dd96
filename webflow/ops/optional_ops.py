"""Optionals: a scalar `variant` that holds a list of tensors, or nothing (TensorFlow's OptionalVariant).

TensorFlow's cond_v2 makes them when a branch has intermediates its gradient needs (a TF1 graph with control flow v2,
a stateful branch such as dropout's): the taken branch returns `OptionalFromValue(intermediates)`, the other
`OptionalNone()`, and the gradient's branches read them back with `OptionalGetValue`. webflow builds these ops when
it imports such a GraphDef (io/function_def_import.py), so they run here as TensorFlow runs them.

- `OptionalFromValue(components)` -> an optional holding the components;
- `OptionalNone()` -> an optional holding nothing;
- `OptionalHasValue(optional)` -> whether it holds something;
- `OptionalGetValue(optional)` -> its components (InvalidArgumentError when it holds nothing).

Gradients as TensorFlow's optional_grad.py: the gradient of FromValue reads the optional gradient back, the
gradient of GetValue wraps the component gradients; None and HasValue have none (TensorFlow registers nothing).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import dtype_of
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.constants import tf_type_name
from webflow.ops.registry import apply_op, output_spec, register_gradient, register_op


class OptionalValue:
    """The value of an optional variant: its components, or None when it holds nothing."""

    dtype = dtypes.variant   # a scalar variant, as the backends see any value
    shape = ()
    ndim = 0

    def __init__(self, components: list | None):
        self.components = components

    def __repr__(self) -> str:
        return "Optional(none)" if self.components is None else f"Optional({len(self.components)} components)"


def _variant(inputs: list, attrs: dict) -> tuple:
    return output_spec([], dtypes.variant)


def _components(inputs: list, attrs: dict) -> list:
    return [output_spec(shape, dtype) for shape, dtype in zip(attrs["output_shapes"], attrs["output_types"])]


@register_op("OptionalFromValue", inputs=("*components",), shape=_variant)
def optional_from_value_kernel(*components: Any, Toutput_types: list | None = None) -> OptionalValue:  # noqa: N803
    """optional = Some(components)."""
    return OptionalValue(list(components))


@register_op("OptionalNone", shape=_variant)
def optional_none_kernel() -> OptionalValue:
    """optional = None (holds nothing)."""
    return OptionalValue(None)


@register_op("OptionalHasValue", inputs=("optional",), shape=lambda inputs, attrs: output_spec([], dtypes.bool))
def optional_has_value_kernel(optional: Any) -> Any:
    """has_value = optional holds components."""
    return backend_values.scalar(optional.components is not None, dtypes.bool)


@register_op("OptionalGetValue", inputs=("optional",), shape=_components)
def optional_get_value_kernel(optional: Any, *, output_types: list, output_shapes: list) -> Any:
    """components = the optional's components; InvalidArgumentError when it holds nothing."""
    if optional.components is None:
        raise InvalidArgumentError(None, None, "The optional does not have a value")
    components = list(optional.components)
    _check_components(components, output_types)
    if not components:
        return None
    return components[0] if len(components) == 1 else components


@register_gradient("OptionalFromValue")
def _optional_from_value_grad(op: Any, grad: Any) -> list:
    return _as_list(optional_get_value(grad, [t.dtype for t in op.inputs], [t.shape for t in op.inputs]))


@register_gradient("OptionalGetValue")
def _optional_get_value_grad(op: Any, *grads: Any) -> list:
    return [optional_from_value(list(grads))]


def optional_from_value(components: list, name: str | None = None) -> Any:
    """The op OptionalFromValue (gen_optional_ops.optional_from_value)."""
    return apply_op("OptionalFromValue", list(components), {"Toutput_types": [c.dtype for c in components]},
                    name=name)


def optional_get_value(optional: Any, output_types: list, output_shapes: list, name: str | None = None) -> Any:
    """The op OptionalGetValue (gen_optional_ops.optional_get_value)."""
    return apply_op("OptionalGetValue", [optional], {"output_types": list(output_types),
                                                     "output_shapes": list(output_shapes)}, name=name)


def optional_none(name: str | None = None) -> Any:
    """The op OptionalNone (gen_optional_ops.optional_none)."""
    return apply_op("OptionalNone", [], {}, name=name)


def optional_has_value(optional: Any, name: str | None = None) -> Any:
    """The op OptionalHasValue (gen_optional_ops.optional_has_value)."""
    return apply_op("OptionalHasValue", [optional], {}, name=name)


def _as_list(result: Any) -> list:
    return list(result) if isinstance(result, list) else [result]


__all__ = ["OptionalValue", "optional_from_value", "optional_get_value", "optional_has_value", "optional_none"]


def _check_components(components: list, output_types: list) -> None:
    """TensorFlow's run-time check: the optional holds as many components, of the types, as the op expects."""
    if len(components) != len(output_types):
        raise InvalidArgumentError(None, None, f"The given optional has {len(components)} components, expected "
                                   f"{len(output_types)}")
    for index, (component, expected) in enumerate(zip(components, output_types)):
        actual, expected = dtype_of(component), dtypes.as_dtype(expected).base_dtype
        if actual is not expected:
            raise InvalidArgumentError(None, None, "The given optional does not match the expected type for component "
                                       f"{index}. Expected: {tf_type_name(expected)}. Actual: {tf_type_name(actual)}.")
