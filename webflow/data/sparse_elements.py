"""SparseTensor components of dataset elements: to and from the one variant tensor that carries each.

Dataset ops move flat lists of tensors; a SparseTensor leaf of an element is one scalar variant among them
(ops/dataset_sparse.py), made by SerializeSparse where a sparse tensor enters a pipeline and turned back into a
SparseTensor by DeserializeSparse where an element leaves one (get_next, a traced function's arguments).
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from webflow.framework.sparse_tensor_spec import SparseTensorSpec
from webflow.framework.tensor import Tensor, TensorBase
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import dataset_sparse  # noqa: F401 - registers SerializeSparse / DeserializeSparse
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import apply_op


def is_sparse(value: Any) -> bool:
    return isinstance(value, (SparseTensor, SparseTensorValue))


def as_sparse_tensor(value: Any) -> SparseTensor:
    """A SparseTensor of tensors (a SparseTensorValue's arrays, or Python lists given to SparseTensor, become
    constants)."""
    if isinstance(value, SparseTensor) and all(isinstance(part, TensorBase) for part in
                                               (value.indices, value.values, value.dense_shape)):
        return value
    return SparseTensor(convert_to_tensor(value.indices, dtype=dtypes.int64), convert_to_tensor(value.values),
                        convert_to_tensor(value.dense_shape, dtype=dtypes.int64))


def to_component(sparse: Any) -> Any:
    """The scalar variant tensor that carries `sparse` through the dataset ops."""
    sparse = as_sparse_tensor(sparse)
    return apply_op("SerializeSparse", [sparse.indices, sparse.values, sparse.dense_shape],
                    {"T": sparse.values.dtype.base_dtype, "out_type": dtypes.variant})


def from_component(variant: Any, spec: SparseTensorSpec) -> SparseTensor:
    """The SparseTensor a variant component carries (its rank, where known, from `spec`)."""
    indices, values, dense_shape = apply_op("DeserializeSparse", [variant],
                                            {"dtype": spec.dtype, "Tserialized": dtypes.variant})
    rank = spec.shape.rank
    if isinstance(indices, Tensor) and rank is not None:
        indices.set_shape(TensorShape([None, rank]))
        dense_shape.set_shape(TensorShape([rank]))
    return SparseTensor(indices, values, dense_shape)


def spec_of(value: Any) -> SparseTensorSpec:
    return SparseTensorSpec(as_sparse_tensor(value).shape, as_sparse_tensor(value).dtype)


__all__ = ["SparseTensorSpec", "is_sparse", "as_sparse_tensor", "to_component", "from_component", "spec_of"]
