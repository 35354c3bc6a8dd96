"""Making tensor values from Python data on whichever storage this process has: NumPy arrays, or CArrays.

Graph building and constant folding need a few small arrays of their own (a shape vector, a filled
constant); they ask here instead of calling NumPy, so the layers above backends/ import and run
without NumPy (Pyodide), while with NumPy every value is exactly the ndarray it always was.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c import elementwise as c_elementwise
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

ARRAY_TYPES: tuple = (CArray, np.ndarray, np.generic) if HAVE_NUMPY else (CArray,)


def is_array(value: Any) -> bool:
    """True for a backend value (ndarray, NumPy scalar or CArray)."""
    return isinstance(value, ARRAY_TYPES)


def full(shape: Any, value: Any, dtype: Any) -> Any:
    """An array of `shape` holding `value` everywhere (value: a number or a 0-d array)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not HAVE_NUMPY:
        return c_array.full(shape, value.item() if isinstance(value, CArray) else value, dtype)
    return np.full(shape, value, dtype=dtype.as_numpy_dtype)


def zeros_like(value: Any) -> Any:
    """Zeros with an array's shape and dtype."""
    if isinstance(value, CArray):
        return c_array.empty(value.shape, value.dtype)
    return np.zeros_like(value)


def vector(values: list, dtype: Any) -> Any:
    """A 1-D array of Python numbers (shape vectors, axes)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not HAVE_NUMPY:
        return c_array.from_value(list(values), dtype) if values else c_array.empty((0,), dtype)
    return np.array(values, dtype=dtype.as_numpy_dtype)


def scalar(value: Any, dtype: Any) -> Any:
    """A 0-d array."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not HAVE_NUMPY:
        return c_array.from_value(value, dtype)
    return np.array(value, dtype=dtype.as_numpy_dtype)


def array(value: Any, dtype: Any) -> Any:
    """An array of `dtype` holding a number or (nested) list."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if not HAVE_NUMPY:
        return c_array.from_value(value, dtype)
    return np.array(value, dtype=dtype.as_numpy_dtype)


def flat_list(value: Any) -> list:
    """The elements of an array (or nested list / number) as a flat Python list."""
    if isinstance(value, CArray):
        flat = value.data.tolist()
        return [bool(v) for v in flat] if value.dtype.is_bool else flat
    if not HAVE_NUMPY:
        return c_array.from_value(value).data.tolist()
    return np.asarray(value).reshape(-1).tolist()


def shape_of(value: Any) -> tuple:
    """The shape of an array, (nested) list or number, as a tuple (numpy.shape)."""
    shape = getattr(value, "shape", None)
    if shape is not None and not callable(shape):
        return tuple(shape)
    if HAVE_NUMPY:
        return np.shape(value)
    return c_array.from_value(value).shape if isinstance(value, (list, tuple)) else ()


def add(x: Any, y: Any, sign: int = 1) -> Any:
    """x + y (sign 1) or x - y (sign -1), broadcasting, in x's dtype (variable updates outside any op)."""
    if HAVE_NUMPY:
        return (x + y if sign > 0 else x - y).astype(x.dtype, copy=False)
    y = c_array.from_value(y, x.dtype) if not isinstance(y, CArray) else y.astype(x.dtype, copy=False)
    return (c_elementwise.add if sign > 0 else c_elementwise.sub)(x, y)


def astype(value: Any, dtype: Any) -> Any:
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(value, CArray):
        return value.astype(dtype)
    return value.astype(dtype.as_numpy_dtype)


def stack(parts: list, axis: int = 0) -> Any:
    """Arrays of one shape stacked along a new `axis` (only axis 0 without NumPy)."""
    if HAVE_NUMPY:
        return np.stack(parts, axis=axis)
    if axis not in (0, -len(parts[0].shape) - 1):
        raise ValueError("stacking along an inner axis needs NumPy here")
    return c_array.from_value([p.tolist() for p in parts], parts[0].dtype)


__all__ = ["ARRAY_TYPES", "is_array", "array", "full", "zeros_like", "vector", "scalar", "flat_list", "shape_of", "add",
           "output_dims",
           "astype", "stack"]


def output_dims(shape: Any, op_type: str) -> list:
    """A random op's `shape` input as a list of ints, with TensorFlow's run-time checks (a vector, no -1)."""
    dims = [int(d) for d in flat_list(shape)]
    given = tuple(shape.shape) if hasattr(shape, "shape") else np.shape(shape)  # arrays: no NumPy needed
    if len(given) != 1:
        raise InvalidArgumentError(None, None, f"shape must be a vector of {{int32,int64}}, got shape "
                                   f"{list(given)} [Op:{op_type}]")
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(None, None, f"Dimension -1 must be >= 0 (shape {dims}) [Op:{op_type}]")
    return dims
