"""Ops that bring values into a graph: `Const`, `Placeholder`, `PlaceholderWithDefault`."""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values
from webflow.backends.arrays.numpy_arrays import dtype_of
from webflow.framework import context, dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.func_graph import set_placeholder_opdef
from webflow.framework.tensor import EagerTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import to_numpy
from webflow.ops.registry import OPS, NotDifferentiable, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import ShapeError

# TensorFlow's DataTypeString names, used in its run-time messages ("with dtype float").
TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dtype: Any) -> str:
    return TF_TYPE_NAMES.get(dtype.base_dtype.name, dtype.base_dtype.name)


def shape_text(shape: TensorShape) -> str:
    """A shape as TF writes it in run-time messages: `[?,2]`, or `<unknown>`."""
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_tuple()) + "]"


# --- Const ---------------------------------------------------------------------------------------------
def _const_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(attrs["value"].shape, attrs["dtype"])


@register_op("Const", "Const", shape=_const_shape)
def const_kernel(*, value: Any, dtype: Any) -> Any:
    """output = value (a constant baked into the graph)."""
    return value


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const") -> Any:
    """A tensor holding `value`, optionally cast to `dtype` and reshaped or filled to `shape`."""
    if isinstance(value, EagerTensor):
        dtype = value.dtype if dtype is None and value.dtype is dtypes.bfloat16 else dtype
        value = value._value
    array = to_numpy(value, dtype)
    if shape is not None:
        array = _fit_to_shape(array, TensorShape(shape).as_list())
    # bfloat16 is held as float32 (backends/bfloat16.py): the array alone cannot say it
    label = dtypes.bfloat16 if dtype is not None and dtypes.as_dtype(dtype).base_dtype is dtypes.bfloat16 else None
    if context.executing_eagerly():
        return EagerTensor(array, label or (dtypes.as_dtype(array.dtype) if array.dtype != object else dtypes.string))
    return apply_op("Const", [], {"value": array, "dtype": label or _dtype_of(array)}, name=name)


def _dtype_of(array: Any) -> Any:
    return dtypes.string if array.dtype == object else dtypes.as_dtype(array.dtype)


def _fit_to_shape(array: Any, shape: list) -> Any:
    count = math.prod(shape)
    if array.size == count:
        return array.reshape(shape)
    if array.size == 1:
        return values.full(shape, array.reshape(()), dtype_of(array))
    if array.size < count:
        # TF1 fills the rest with the last value; TF2 raises. We follow TF2: silent padding hides mistakes.
        raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {array.tolist()} "
                        f"(converted from {array.tolist()}) has {array.size} elements, but got `shape` "
                        f"{tuple(shape)} with {count} elements).")
    raise TypeError(f"Too many elements provided. Takes at most {count:d}, but got {array.size:d}.")


# --- Placeholder ---------------------------------------------------------------------------------------
def _placeholder_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(attrs["shape"], attrs["dtype"])


@register_op("Placeholder", "Placeholder", shape=_placeholder_shape, needs_context=True)
def placeholder_kernel(context: Any, *, dtype: Any, shape: TensorShape) -> Any:
    """output = the value fed for it; running it unfed is an error."""
    raise InvalidArgumentError(
        None, context.op,
        f"You must feed a value for placeholder tensor '{context.op_name}' with dtype {tf_type_name(dtype)}"
        + ("" if shape.rank is None else f" and shape {shape_text(shape)}")
        + f"\n\t [[{{{{node {context.op_name}}}}}]]")


set_placeholder_opdef(OPS["Placeholder"])  # FuncGraph makes the Placeholders of its inputs and captures itself


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Any:
    """A graph input to be fed through `feed_dict` (TF1 only: it has no meaning eagerly)."""
    if context.executing_eagerly():
        raise RuntimeError("tf.placeholder() is not compatible with eager execution.")
    return apply_op("Placeholder", [], {"dtype": dtypes.as_dtype(dtype), "shape": TensorShape(shape)},
                    name=name or "Placeholder")


def _placeholder_with_default_shape(inputs: list, attrs: dict) -> tuple:
    shape = attrs["shape"]
    if not shape.is_compatible_with(inputs[0].shape):
        raise ShapeError(f"Shapes {inputs[0].shape} and {shape} are incompatible")
    return output_spec(shape, inputs[0].dtype.base_dtype)


@register_op("PlaceholderWithDefault", "PlaceholderWithDefault", inputs=("input",),
             shape=_placeholder_with_default_shape)
def placeholder_with_default_kernel(value: Any, *, shape: TensorShape) -> Any:
    """output = the fed value if fed, else `input`."""
    return value


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("PlaceholderWithDefault", [input], {"shape": TensorShape(shape)}, name=name)


@register_gradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op: Any, grad: Any) -> Any:
    """d output / d input = 1 (when not fed, the output is the input)."""
    return grad


# No gradient, as in TensorFlow: boolean, integer-valued or piecewise-constant outputs.
for _op_type in ("Const", "Placeholder"):
    NotDifferentiable(_op_type)
