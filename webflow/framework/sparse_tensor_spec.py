"""`tf.SparseTensorSpec`: the type of a SparseTensor (its dense shape and values dtype), as `element_spec` shows it.

A dataset whose elements are SparseTensors (a parsed `VarLenFeature`, `from_tensor_slices(sparse)`) carries
one of these per sparse component; `batch` adds a leading dimension to `shape`.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape


class SparseTensorSpec:
    """The dense `shape` (a TensorShape, dimensions possibly unknown) and `dtype` of a SparseTensor's values."""

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32):
        self._shape = shape if isinstance(shape, TensorShape) else TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self) -> TensorShape:
        return self._shape

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def value_type(self) -> type:
        from webflow.framework.sparse_tensor import SparseTensor

        return SparseTensor

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, other: Any) -> bool:
        return isinstance(other, SparseTensorSpec) and self._dtype == other.dtype and \
            self._shape.is_compatible_with(other.shape)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SparseTensorSpec) or self._dtype != other.dtype:
            return False
        if self._shape.rank is None or other.shape.rank is None:
            return self._shape.rank == other.shape.rank
        return self._shape.as_list() == other.shape.as_list()

    def __hash__(self) -> int:
        return hash((repr(self._shape), self._dtype.name))

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, tf.{self._dtype.name})"


__all__ = ["SparseTensorSpec"]
