"""`SparseTensor`: a tensor of `dense_shape` that holds `values[i]` at `indices[i]` and zero elsewhere.

Three tensors make one: `indices` (int64 [N, rank], in row-major order), `values` (any dtype, [N]) and
`dense_shape` (int64 [rank]). Parsing a `VarLenFeature`, `tf.compat.v1.string_split` and `tf.sparse.*` make
and take them. `Session.run` fetches one as a `SparseTensorValue` (a namedtuple of NumPy arrays), as TensorFlow.
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any

from webflow.framework.tensor_shape import TensorShape

# A tensor's value when known without running anything, else None: ops/convert.py's `constant_value`, installed
# by ops/ (framework/ sits below ops/ and may not import it; indexed_slices.py gets the same function).
_constant_value: Callable[[Any], Any] | None = None


def set_constant_value(function: Callable[[Any], Any]) -> None:
    """Called by ops/convert.py on import: how `SparseTensor.shape` reads a constant `dense_shape`."""
    global _constant_value
    _constant_value = function


SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])


class SparseTensor:
    """`dense[indices[i]] = values[i]`, every other element of `dense_shape` zero (or the empty string)."""

    def __init__(self, indices: Any, values: Any, dense_shape: Any):
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape

    @classmethod
    def from_value(cls, value: Any) -> SparseTensor:
        """A SparseTensor from a SparseTensorValue or another SparseTensor (the latter returned as it is)."""
        if isinstance(value, SparseTensor):
            return value
        if isinstance(value, SparseTensorValue):
            return cls(value.indices, value.values, value.dense_shape)
        raise TypeError(f"Neither a SparseTensor nor SparseTensorValue: {value}.")

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def values(self) -> Any:
        return self._values

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def op(self) -> Any:
        return self._values.op

    @property
    def graph(self) -> Any:
        return self._values.graph

    @property
    def shape(self) -> TensorShape:
        """The static dense shape: known when `dense_shape` is a constant, else of known rank at most."""
        known = _constant_value(self._dense_shape) if _constant_value is not None else None
        if known is not None:
            return TensorShape([int(d) for d in known])
        rank = self._dense_shape.shape.as_list()[0] if hasattr(self._dense_shape, "shape") else None
        return TensorShape(None) if rank is None else TensorShape([None] * rank)

    def get_shape(self) -> TensorShape:
        return self.shape

    def _fetch_components(self) -> tuple:
        return [self._indices, self._values, self._dense_shape], SparseTensorValue

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"
