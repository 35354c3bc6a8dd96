"""String tensor values on either storage: what the string ops' kernels read and make.

A `tf.string` value is an object array of `bytes` with NumPy, a CArray over an ObjectBuffer without it
(Pyodide). Work on bytes is Python work either way (NumPy has no fast path for it), so each string kernel is
written once against these helpers and runs unchanged on both backends:

    items, shape = elements(x)                 # a flat list of bytes (or numbers) and the shape
    y = strings(items, shape)                   # an object array / string CArray of that shape
    n = numbers([1, 2], (2,), dtypes.int32)     # a numeric result on the same storage
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.arrays.object_buffer import OBJECT_TYPECODE, ObjectBuffer
from webflow.framework import dtypes


def elements(x: Any) -> tuple:
    """(the elements of array `x` as a flat Python list, its shape tuple); bytes stay bytes."""
    if isinstance(x, CArray):
        flat = x.data.tolist()
        return ([bool(v) for v in flat] if x.dtype.is_bool else flat), x.shape
    if isinstance(x, (bytes, str, int, float)):
        return [x.encode() if isinstance(x, str) else x], ()
    array = np.asarray(x)
    return array.reshape(-1).tolist(), tuple(array.shape)


def strings(items: list, shape: tuple) -> Any:
    """A string array of `shape` holding `items` (bytes), on this process's storage."""
    shape = tuple(int(d) for d in shape)
    if not HAVE_NUMPY:
        return CArray(ObjectBuffer(OBJECT_TYPECODE, items), shape, dtypes.string)
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


def numbers(items: list, shape: tuple, dtype: Any) -> Any:
    """A numeric array of `shape` and `dtype` holding `items`."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    shape = tuple(int(d) for d in shape)
    if not HAVE_NUMPY:
        return c_array.from_value(items, dtype).reshape(shape) if items else c_array.empty(shape, dtype)
    return np.array(items, dtype=dtype.as_numpy_dtype).reshape(shape)


def broadcast(shapes: list) -> tuple:
    """NumPy's broadcasting rule on shape tuples (ValueError when they do not broadcast)."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            raise ValueError(f"shapes {shapes} cannot be broadcast together")
        result.append(dims.pop() if dims else 1)
    return tuple(result)


def expand(items: list, shape: tuple, target: tuple) -> list:
    """The flat `items` of an array of `shape` broadcast to `target`, as a flat list."""
    if tuple(shape) == tuple(target):
        return items
    lead = len(target) - len(shape)
    padded = (1,) * lead + tuple(shape)
    strides, step = [], 1
    for dim in reversed(padded):
        strides.append(0 if dim == 1 else step)
        step *= dim
    strides.reverse()
    positions = [0]
    for dim, stride in zip(target, strides):
        positions = [p + i * stride for p in positions for i in range(dim)]
    return [items[p] for p in positions] if math.prod(target) else []


__all__ = ["elements", "strings", "numbers", "broadcast", "expand"]
