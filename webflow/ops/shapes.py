"""Shape rules shared by many ops: `same_as_input`, `broadcast_binary`, and their building blocks.

A shape rule takes `(inputs, attrs)` — inputs are tensors with `.shape`/`.dtype` — and returns
`(TensorShape, DType)` for a single-output op or a list of them. It raises `ShapeError` (a
ValueError) with TensorFlow's wording when the inputs cannot work together.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.registry import ShapeError, output_spec


def broadcast_shapes(x_shape: TensorShape, y_shape: TensorShape) -> TensorShape:
    """NumPy/TensorFlow broadcasting of two static shapes; unknown dims stay unknown."""
    x_dims, y_dims = x_shape.as_tuple(), y_shape.as_tuple()
    if x_dims is None or y_dims is None:
        return TensorShape(None)
    rank = max(len(x_dims), len(y_dims))
    x_dims = (1,) * (rank - len(x_dims)) + x_dims
    y_dims = (1,) * (rank - len(y_dims)) + y_dims
    result = []
    for a, b in zip(x_dims, y_dims):
        if a == 1:
            result.append(b)
        elif b == 1:
            result.append(a)
        elif a is None or b is None:
            result.append(a if b is None else b)
        elif a == b:
            result.append(a)
        else:
            raise ShapeError(f"Dimensions must be equal, but are {a} and {b}")
    return TensorShape(result)


def broadcast_binary(inputs: list, attrs: dict) -> tuple:
    """Elementwise binary op: broadcast shapes, output dtype = input dtype."""
    x, y = inputs
    return output_spec(broadcast_shapes(x.shape, y.shape), x.dtype.base_dtype)


def broadcast_comparison(inputs: list, attrs: dict) -> tuple:
    """Elementwise comparison: broadcast shapes, bool output."""
    x, y = inputs
    return output_spec(broadcast_shapes(x.shape, y.shape), dtypes.bool)


def same_as_input(inputs: list, attrs: dict) -> tuple:
    """Unary elementwise op: same shape and dtype as input 0."""
    return output_spec(inputs[0].shape, inputs[0].dtype.base_dtype)


def same_shape_as_input_with_dtype(dtype: Any):
    def rule(inputs: list, attrs: dict) -> tuple:
        return output_spec(inputs[0].shape, dtype)

    rule.__doc__ = f"Same shape as input 0, dtype {dtypes.as_dtype(dtype).name}."
    return rule


def scalar_rule(dtype: Any):
    def rule(inputs: list, attrs: dict) -> tuple:
        return output_spec((), dtype)

    return rule


def no_outputs(inputs: list, attrs: dict) -> list:
    return []


def merged_shape(inputs: list) -> TensorShape:
    """The one shape that inputs which must all have the same shape (AddN, Pack) agree on."""
    shape = TensorShape(None)
    for tensor in inputs:
        if not shape.is_compatible_with(tensor.shape):
            raise ShapeError(f"Shapes must be equal rank, but are {shape} and {tensor.shape}")
        shape = shape.merge_with(tensor.shape)
    return shape


def require_rank(tensor: Any, rank: int, what: str) -> None:
    if tensor.shape.rank is not None and tensor.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank} ({what})")


def require_rank_at_least(tensor: Any, rank: int, what: str) -> None:
    if tensor.shape.rank is not None and tensor.shape.rank < rank:
        raise ShapeError(f"Shape must be at least rank {rank} but is rank {tensor.shape.rank} ({what})")


def merge_dims(a: int | None, b: int | None, message: str) -> int | None:
    """Two dims that must agree (either may be unknown)."""
    if a is not None and b is not None and a != b:
        raise ShapeError(message.format(a=a, b=b))
    return a if a is not None else b


def normalize_axis(axis: int, rank: int, op_name: str) -> int:
    if not -rank <= axis < rank:
        raise ShapeError(f"Expected axis in the range [{-rank}, {rank}), but got {axis} ({op_name})")
    return axis + rank if axis < 0 else axis
