"""The NumPy backend: the reference implementation every other backend is tested against.

Op modules write their NumPy kernels against the `np` exported here, so NumPy is imported in one
place; values held by tensors are `numpy.ndarray`s. Kernels never mutate an input in place (variables
get a new array on every assign), so a value read earlier cannot change under a learner's feet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from webflow.framework import dtypes

NAME = "numpy"
_DTYPE_OF_NUMPY: dict[Any, Any] = {}


def dtype_of(array: Any) -> Any:
    """The webflow DType of a NumPy array (cached: this sits on the eager hot path)."""
    numpy_dtype = array.dtype
    found = _DTYPE_OF_NUMPY.get(numpy_dtype)
    if found is None:
        found = dtypes.as_dtype(numpy_dtype)
        _DTYPE_OF_NUMPY[numpy_dtype] = found
    return found


def as_array(value: Any, dtype: Any = None) -> Any:
    return np.asarray(value, dtype=None if dtype is None else dtype.as_numpy_dtype)


__all__ = ["np", "NAME", "dtype_of", "as_array"]
