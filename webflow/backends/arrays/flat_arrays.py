"""An array of this process's storage from a flat Python list: a NumPy array, or a CArray where NumPy is missing.

The parsing kernels (Example, CSV, raw bytes) build their outputs as flat lists in plain Python, so one kernel
body serves both the NumPy backend and Pyodide's; this turns such a list into the backend's array. Two lazy forms
keep big outputs out of Python loops when NumPy is there: `Chunks` (the flat list as its consecutive pieces, e.g.
each record's 784 floats, joined by NumPy) and `IndexRuns` (a SparseTensor's indices from each row's count).
"""

from __future__ import annotations

import array
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.arrays.object_buffer import new_buffer
from webflow.framework import dtypes


class Chunks(list):
    """A flat list given as its consecutive pieces (each a sequence: a list, an array.array, protobuf's list)."""

    def flat(self) -> list:
        return [v for piece in self for v in piece]


class IndexRuns:
    """The int64 indices of a SparseTensor whose row i holds counts[i] values at columns 0..counts[i]-1:
    [[i, k] ...] (with_rows) or [[k] ...] for one row."""

    def __init__(self, counts: list, with_rows: bool):
        self.counts = counts
        self.with_rows = with_rows

    def __len__(self) -> int:
        return sum(self.counts) * (2 if self.with_rows else 1)

    def flat(self) -> list:
        return [v for i, count in enumerate(self.counts) for k in range(count)
                for v in ((i, k) if self.with_rows else (k,))]

    def numpy(self) -> Any:
        total = sum(self.counts)
        counts = np.asarray(self.counts, np.int64)
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        columns = np.arange(total, dtype=np.int64) - starts
        if not self.with_rows:
            return columns.reshape(-1, 1)
        return np.stack([np.repeat(np.arange(len(counts), dtype=np.int64), counts), columns], axis=1)


def _numpy(flat: Any, shape: Any, dtype: Any) -> Any:
    if isinstance(flat, IndexRuns):
        return flat.numpy().reshape(tuple(shape))
    if dtype == dtypes.string:
        out = np.empty(len(flat) if not isinstance(flat, Chunks) else sum(map(len, flat)), dtype=object)
        out[:] = flat.flat() if isinstance(flat, Chunks) else list(flat)
        return out.reshape(tuple(shape))
    with np.errstate(over="ignore"):  # a float32 column holding 1e40 is inf, as in TensorFlow
        if isinstance(flat, Chunks):
            pieces = [np.asarray(piece, dtype=dtype.as_numpy_dtype) for piece in flat]
            joined = np.concatenate(pieces) if pieces else np.zeros(0, dtype.as_numpy_dtype)
            return joined.reshape(tuple(shape))
        return np.array(flat, dtype=dtype.as_numpy_dtype).reshape(tuple(shape))


def from_flat(flat: Any, shape: Any, dtype: Any) -> Any:
    """An array of `shape` and `dtype` holding the row-major `flat` values (strings: bytes objects); `flat` a list,
    Chunks or IndexRuns."""
    dtype = dtypes.as_dtype(dtype)
    if HAVE_NUMPY:
        return _numpy(flat, shape, dtype)
    typecode = c_array.TYPECODES[dtype.name]
    if isinstance(flat, Chunks) and dtype != dtypes.string:
        return c_array.CArray(_joined(flat, typecode, dtype), tuple(shape), dtype)
    if isinstance(flat, (Chunks, IndexRuns)):
        flat = flat.flat()
    values = [float(v) for v in flat] if dtype.is_floating else list(flat)
    return c_array.CArray(new_buffer(typecode, values), tuple(shape), dtype)


def _joined(pieces: Chunks, typecode: str, dtype: Any) -> array.array:
    """One array.array of the pieces; a piece that is already an array.array of the type (the wire reader's floats)
    is appended in C, without a Python loop over its values."""
    out = array.array(typecode)
    for piece in pieces:
        if isinstance(piece, array.array) and piece.typecode == typecode:
            out.extend(piece)
        else:
            out.extend([float(v) for v in piece] if dtype.is_floating else [int(v) for v in piece])
    return out
