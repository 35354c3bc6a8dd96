"""The file formats' view of a tensor value that is not a NumPy array: a CArray (backends/arrays/carray.py), what
webflow computes with where NumPy is missing (Pyodide).

io/ may not import backends/, so a CArray is recognised by its shape: a `data` buffer (`array.array`, or a list of
bytes for strings) holding the elements in C order, a `shape` tuple and a webflow `DType` (a NumPy array's dtype
is a `numpy.dtype`). TensorFlow's files store numbers little-endian; `array.array` holds them in the machine's
order, which is little-endian on every machine webflow runs on (x86, ARM, wasm32), swapped here if not.
"""

from __future__ import annotations

import array
import sys
from typing import Any

from webflow.framework import dtypes


def is_buffer_array(value: Any) -> bool:
    """True for a CArray: a value whose dtype is a webflow DType and whose elements are in `value.data`."""
    return isinstance(getattr(value, "dtype", None), dtypes.DType) and hasattr(value, "data")


def is_strings(value: Any) -> bool:
    """True for a string tensor value: a NumPy array of objects/bytes/str, or a CArray of dtype string."""
    if is_buffer_array(value):
        return value.dtype.base_dtype == dtypes.string
    return value.dtype.kind in "OUS"


def little_endian_bytes(value: Any) -> bytes:
    """A numeric CArray's elements as TensorFlow stores them: C order, little-endian (bool as one byte each)."""
    data = value.data
    if len(data) != value.size:  # a buffer from the allocator's pool may be longer than the tensor
        data = data[:value.size]
    if sys.byteorder == "big":
        data = array.array(data.typecode, data)
        data.byteswap()
    return data.tobytes()


def native_buffer(payload: bytes, typecode: str) -> array.array:
    """An `array.array` of `typecode` holding the little-endian elements in `payload`, in the machine's order."""
    data = array.array(typecode)
    data.frombytes(payload)
    if sys.byteorder == "big":
        data.byteswap()
    return data
