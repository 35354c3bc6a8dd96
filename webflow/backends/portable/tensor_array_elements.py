"""A TensorArray's element arithmetic on CArrays, for the TensorArray ops where NumPy is missing (Pyodide).

A TensorArray (ops/tensor_array_state.py) only stores, stacks, splits and (in a gradient array) adds up its
elements; these are those few operations, with the same names and meaning as the NumPy set in
ops/tensor_array_state.py (`NumpyElements`). The array made by a TensorArrayV3 kernel keeps the set it was
made with, so every TensorArray*V3 kernel after it works on either kind of array.

    PORTABLE_ELEMENTS.stack([a, b])     # a (2, ...) CArray, as np.stack([a, b])
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import contiguous
from webflow.backends.c.elementwise import add
from webflow.backends.portable.array_kernels import pack
from webflow.framework import dtypes


class PortableElements:
    """The element operations of a TensorArray, on contiguous CArrays."""

    @staticmethod
    def as_array(value: Any) -> CArray:
        """value as a CArray (a Python number becomes a 0-d one)."""
        return contiguous(value)

    @staticmethod
    def scalar(value: Any, dtype: Any) -> CArray:
        """A 0-d array holding value (the flow, the size)."""
        return c_array.full((), value, dtypes.as_dtype(dtype))

    @staticmethod
    def vector(values: list, dtype: Any) -> CArray:
        """A 1-d array of Python numbers (concat's lengths)."""
        dtype = dtypes.as_dtype(dtype)
        return c_array.from_value(list(values), dtype) if values else c_array.empty((0,), dtype)

    @staticmethod
    def zeros(shape: Any, dtype: Any) -> CArray:
        """An array of zeros (an element never written, an empty stack)."""
        return c_array.empty(tuple(int(d) for d in shape), dtypes.as_dtype(dtype))

    @staticmethod
    def add(a: CArray, b: CArray) -> CArray:
        """a + b (a gradient array adds up the writes to one index)."""
        return add(a, b)

    @staticmethod
    def stack(values: list) -> CArray:
        """The equally shaped values stacked along a new first axis."""
        return pack(*values, N=len(values), axis=0)

    @staticmethod
    def concat(values: list) -> CArray:
        """The values joined along their first axis (their other dimensions agree)."""
        first = values[0]
        out = c_array.empty((sum(v.shape[0] for v in values),) + tuple(first.shape[1:]), first.dtype)
        position = 0
        for value in values:
            out.data[position:position + value.size] = contiguous(value).data
            position += value.size
        return out

    @staticmethod
    def rows(value: CArray, start: int, stop: int) -> CArray:
        """value[start:stop] along the first axis (a copy)."""
        inner = math.prod(value.shape[1:])
        return CArray(value.data[start * inner:stop * inner], (stop - start,) + tuple(value.shape[1:]),
                      value.dtype)

    @classmethod
    def row(cls, value: CArray, index: int) -> CArray:
        """value[index]: one row, one dimension less (a 0-d array for a vector's entry)."""
        return cls.rows(value, index, index + 1).reshape(value.shape[1:])


PORTABLE_ELEMENTS = PortableElements()
