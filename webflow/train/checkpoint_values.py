"""Variable values to and from a checkpoint bundle (io/checkpoint_bundle.py) on whichever storage this process has:
NumPy arrays, or CArrays where NumPy is missing (Pyodide), so `tf.train.Saver` saves and restores in the browser.

The bundle stores the same bytes either way (C order, little-endian), so a checkpoint written in Pyodide is byte for
byte the one CPython writes for the same values (tests/pyodide/test_protobuf_formats.py checks it).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.carray import TYPECODES, CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.arrays.string_values import strings
from webflow.framework import dtypes
from webflow.io import bfloat16_bundle, buffer_values


def saved(value: Any, dtype: Any = None) -> Any:
    """What `write_bundle` takes for a fetched variable value: a NumPy array, or the CArray itself without NumPy
    (`dtype` bfloat16: its 16-bit values, as TensorFlow stores them)."""
    if dtype is not None and dtype.base_dtype is dtypes.bfloat16:
        return bfloat16_bundle.bundle_value(value)
    if isinstance(value, CArray) and not HAVE_NUMPY:
        return value
    return np.asarray(value)


def restored(reader: Any, name: str) -> Any:
    """The tensor `name` of a BundleReader as an array of this process's storage (checked as the reader checks)."""
    if HAVE_NUMPY:
        return reader.tensor(name)
    dtype, shape, payload = reader.checked_tensor(name)
    if dtype == dtypes.string:
        return strings(payload, tuple(shape))
    if dtype == dtypes.bfloat16:  # float32 storage (backends/bfloat16.py)
        return CArray(bfloat16_bundle.float32_words(payload), tuple(shape), dtypes.float32)
    if dtype.name not in TYPECODES:
        raise TypeError(f"a {dtype.name} tensor ({name}) needs NumPy, which is not installed here")
    return CArray(buffer_values.native_buffer(payload, TYPECODES[dtype.name]), tuple(shape), dtype)
