"""`IndexedSlices`: a sparse gradient (rows `indices` of a `dense_shape` tensor hold `values`).

Gathers and embedding lookups produce these instead of a dense zero-filled gradient; optimizers can
apply them as sparse row updates. Anything that needs a plain tensor densifies them (`convert_to_tensor`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.framework.tensor_shape import TensorShape

# A tensor's value when known without running anything, else None: ops/convert.py's `constant_value`, which
# registers itself here on import (framework/ sits below ops/ and may not import it).
_constant_value: Callable[[Any], Any] | None = None


def set_constant_value(function: Callable[[Any], Any]) -> None:
    """Called by ops/convert.py on import: how `IndexedSlices.shape` reads a constant `dense_shape`."""
    global _constant_value
    _constant_value = function


class IndexedSlices:
    """A sparse representation of a tensor: `dense[indices[i]] = values[i]` (summed when repeated)."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self) -> Any:
        return self._values

    @property
    def indices(self) -> Any:
        return self._indices

    @property
    def dense_shape(self) -> Any:
        return self._dense_shape

    @property
    def dtype(self) -> Any:
        return self._values.dtype

    @property
    def name(self) -> str:
        return self._values.name

    @property
    def op(self) -> Any:
        return self._values.op

    @property
    def graph(self) -> Any:
        return self._values.graph

    @property
    def device(self) -> str:
        return self._values.device

    @property
    def shape(self) -> Any:
        known = _constant_value(self._dense_shape) if self._dense_shape is not None else None
        if known is not None:
            return TensorShape([int(d) for d in known])
        return TensorShape(None)

    def get_shape(self) -> Any:
        return self.shape

    def _fetch_components(self) -> tuple:
        parts = [self._values, self._indices] + ([self._dense_shape] if self._dense_shape is not None else [])
        return parts, IndexedSlicesValue

    def __neg__(self) -> IndexedSlices:
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __repr__(self) -> str:
        return f"IndexedSlices(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"


class IndexedSlicesValue:
    """What `Session.run` returns for a fetched IndexedSlices: NumPy values, indices, dense_shape."""

    def __init__(self, values: Any, indices: Any, dense_shape: Any = None):
        self.values = values
        self.indices = indices
        self.dense_shape = dense_shape

    def __repr__(self) -> str:
        return f"IndexedSlicesValue(values={self.values!r}, indices={self.indices!r}, dense_shape={self.dense_shape!r})"
