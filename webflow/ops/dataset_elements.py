"""The values inside a tf.data pipeline: an element is a flat list of backend arrays (one per component).

Dataset kernels only move whole elements and rows of them around; the few array operations they need
(one row of a batch, stacking rows, padding) are here, for NumPy arrays and for CArrays (no NumPy, as in
Pyodide), so that datasets of numbers and of strings run on both.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops import dataset_sparse as sparse


def row(value: Any, index: int) -> Any:
    """value[index] as an array (a 0-d array for a vector's entry, as TensorFlow slices)."""
    if sparse.is_sparse(value):
        return sparse.row(value, index)
    if isinstance(value, CArray):
        inner = value.size // value.shape[0]
        return CArray(value.data[index * inner:(index + 1) * inner], tuple(value.shape[1:]), value.dtype)
    return value[index, ...]


def leading_dim(value: Any) -> int:
    if sparse.is_sparse(value):
        return sparse.leading_dim(value)
    shape = backend_values.shape_of(value)
    if not shape:
        raise InvalidArgumentError(None, None, "Cannot slice a scalar: every component of `from_tensor_slices` "
                                   "needs a leading dimension")
    return shape[0]


def stack(rows: list) -> Any:
    """Rows of one shape stacked along a new axis 0 (a batch)."""
    first = rows[0]
    if sparse.is_sparse(first):
        return sparse.stack(rows)
    if isinstance(first, CArray):
        if any(tuple(r.shape) != tuple(first.shape) for r in rows):
            raise ValueError(f"all input arrays must have the same shape: {[tuple(r.shape) for r in rows]}")
        data = first.data[:0]
        for part in rows:
            data += part.data
        return CArray(data, (len(rows),) + tuple(first.shape), first.dtype)
    return np.stack(rows)


def pad_to(value: Any, shape: tuple, padding: Any) -> Any:
    """`value` padded at the end of each dimension up to `shape` with the scalar `padding` (PaddedBatch)."""
    have = backend_values.shape_of(value)
    if tuple(have) == tuple(shape):
        return value
    if isinstance(value, CArray):
        from webflow.backends.arrays import carray

        return carray.from_value(_padded_lists(value.tolist(), tuple(shape), padding), value.dtype)
    out = np.full(shape, padding, dtype=value.dtype)
    out[tuple(slice(0, d) for d in have)] = value
    return out


def _padded_lists(rows: Any, shape: tuple, padding: Any) -> Any:
    """Nested lists `rows` padded to `shape` (the no-NumPy path of pad_to)."""
    if not shape:
        return rows
    inner = [_padded_lists(r, shape[1:], padding) for r in rows]
    return inner + [_filled(shape[1:], padding) for _ in range(shape[0] - len(rows))]


def _filled(shape: tuple, padding: Any) -> Any:
    return [_filled(shape[1:], padding) for _ in range(shape[0])] if shape else padding


def scalar(value: Any, dtype: Any) -> Any:
    """A 0-d array of `dtype` (numbers; bytes for tf.string)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.string:
        return string_array([value], ())
    return backend_values.scalar(value, dtype)


def string_array(items: list, shape: tuple) -> Any:
    """An array of bytes (a tf.string tensor) of `shape` holding `items` in row-major order."""
    items = [item.encode() if isinstance(item, str) else bytes(item) for item in items]
    if HAVE_NUMPY:
        out = np.empty(len(items), dtype=object)
        out[:] = items
        return out.reshape(shape)
    from webflow.backends.arrays.object_buffer import ObjectBuffer

    return CArray(ObjectBuffer("O", items), tuple(shape), dtypes.string)


def as_value(data: Any, dtype: Any) -> Any:
    """A Python or NumPy value (a generator's output) as an array of `dtype`."""
    dtype = dtypes.as_dtype(dtype)
    if dtype == dtypes.string:
        if isinstance(data, (bytes, str)):
            return string_array([data], ())
        if HAVE_NUMPY:
            items = np.asarray(data, dtype=object)
            return string_array(items.reshape(-1).tolist(), items.shape)
        return backend_values.array(data, dtype)
    if backend_values.is_array(data) and getattr(data, "dtype", None) is not None and not isinstance(data, CArray):
        return np.asarray(data).astype(dtype.as_numpy_dtype, copy=False) if HAVE_NUMPY else data
    return backend_values.array(data, dtype)


def dtype_of_value(value: Any) -> Any:
    if isinstance(value, CArray):
        return value.dtype
    return dtypes.as_dtype(np.asarray(value).dtype)


def to_int(value: Any) -> int:
    return int(backend_values.flat_list(value)[0])


def to_text(value: Any) -> str:
    item = backend_values.flat_list(value)[0] if backend_values.is_array(value) else value
    return item.decode() if isinstance(item, bytes) else str(item)


def to_texts(value: Any) -> list:
    """A string tensor's entries (file names) as str."""
    items = backend_values.flat_list(value) if backend_values.is_array(value) else [value]
    return [item.decode() if isinstance(item, bytes) else str(item) for item in items]


__all__ = ["row", "leading_dim", "stack", "pad_to", "scalar", "string_array", "as_value", "dtype_of_value",
           "to_int", "to_text", "to_texts"]
