"""C signatures of gather and scatter-add (webflow/wasm/gather.c), declared once for c_library.function().

    wf_gather_<i32|i64>(params, indices, out, outer, axis_size, inner_bytes, count) -> 0, or 1 + position
        out[o, j, :] = params[o, indices[j], :] for any dtype (rows are copied as bytes)
    wf_scatter_add_<t>_<i32|i64>(updates, indices, out, count, inner, num_segments) -> 0, or 1 + position
        out[indices[j], :] += updates[j, :]; t: f32 f64 i32 i64; negative indices are skipped
A non-zero result names the first bad index; nothing was written.
"""

from __future__ import annotations

import array
from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.backends.c.adapters import (
    NUMBERS,
    Unsupported,
    c_kernel,
    contiguous,
    empty,
    flat_ints,
    fn,
    prod,
    ptr,
    suffix,
    zeros,
)
from webflow.backends.c.library import PTR, SIZE, declare
from webflow.framework.errors import InvalidArgumentError

for _index in ("i32", "i64"):
    declare(f"wf_gather_{_index}", [PTR, PTR, PTR, SIZE, SIZE, SIZE, SIZE], SIZE)
    for _suffix in ("f32", "f64", "i32", "i64"):
        declare(f"wf_scatter_add_{_suffix}_{_index}", [PTR, PTR, PTR, SIZE, SIZE, SIZE], SIZE)


_GATHER_TYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "bool")


def _unravel(flat_index: int, shape: tuple) -> tuple:
    """The multi-index of element `flat_index` in a row-major array of `shape` (numpy.unravel_index)."""
    position = []
    for dim in reversed(shape):
        position.append(flat_index % dim)
        flat_index //= dim
    return tuple(reversed(position))
INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}


# --- gather / scatter-add ---------------------------------------------------------------------------
@c_kernel(dtypes=None)
def gather(params: Any, indices: Any, axis: Any, *, batch_dims: int = 0) -> Any:
    """wf_gather_<i>: rows of params copied as bytes; a bad index raises the NumPy kernel's error."""
    index = INDEX_SUFFIX.get(indices.dtype.name)
    if index is None or batch_dims or params.ndim == 0 or params.dtype.name not in _GATHER_TYPES:
        raise Unsupported("arguments")
    axis = int(axis)
    if not -params.ndim <= axis < params.ndim:  # TF's run-time error (the NumPy kernel would wrap the axis)
        raise InvalidArgumentError(None, None, f"Shape must be at least rank {axis + 1 if axis >= 0 else -axis} "
                                               f"but is rank {params.ndim}")
    axis %= params.ndim
    params, indices = contiguous(params), contiguous(indices)
    out = empty(params.shape[:axis] + indices.shape + params.shape[axis + 1:], params.dtype)
    outer = int(prod(params.shape[:axis]))
    inner_bytes = int(prod(params.shape[axis + 1:])) * params.itemsize
    bad = fn(f"wf_gather_{index}")(ptr(params), ptr(indices), ptr(out), outer, params.shape[axis], inner_bytes,
                                   indices.size)
    if bad:
        position = _unravel(bad - 1, indices.shape)
        where = ",".join(str(int(i)) for i in position)
        raise IndexError(f"indices[{where}] = {int(indices[position])} is not in [0, {params.shape[axis]})")
    return out


def _rows_of_several(op: Any) -> bool:
    """Plan time: rows of at least 8 elements (unknown: perhaps). The ids are checked in Python first (a loop over
    them), so one-element rows do not gain."""
    data, ids = op.inputs[0].shape, op.inputs[1].shape
    if data.rank is None or ids.rank is None:
        return True
    inner = data.as_list()[ids.rank:]
    return None in inner or prod(inner) >= 8


# np.add.at is slow: the word LM's embedding gradient, [400, 200] rows into [10000, 200], 1.1 ms in NumPy, 0.12 ms
# here (the same sums in the same order: identical results); [16, 8] rows 10 vs 24 us (benchmarks/FIGURES.md)
@c_kernel(dtypes=NUMBERS, min_size=1 << 12, wins=_rows_of_several)
def unsorted_segment_sum(data: Any, ids: Any, num: Any) -> Any:
    """wf_scatter_add_<t>_<i>: y[ids[i]] += data[i]; rows with a negative id are dropped (as in TensorFlow)."""
    c_suffix = suffix(data, NUMBERS)
    index = INDEX_SUFFIX.get(ids.dtype.name)
    if index is None or data.shape[:ids.ndim] != ids.shape:
        raise Unsupported("ids")
    rows = contiguous(data).reshape((ids.size,) + data.shape[ids.ndim:])
    if ids.size and min(flat_ints(ids)) < 0:
        rows, ids = _drop_negative_ids(rows, ids)
    out = zeros((int(num),) + rows.shape[1:], data.dtype)
    inner = int(prod(rows.shape[1:]))
    ids = contiguous(ids)  # a name holds the copy while C reads it
    bad = fn(f"wf_scatter_add_{c_suffix}_{index}")(ptr(rows), ptr(ids), ptr(out), ids.size, inner,
                                                   int(num))
    if bad:
        raise IndexError(f"index {int(ids.reshape(-1)[bad - 1])} is out of bounds for axis 0 with size {int(num)}")
    return out


def _drop_negative_ids(rows: Any, ids: Any) -> tuple:
    """The rows (and their ids) whose segment id is not negative, as TF's kernel skips the others."""
    keep = [i for i, v in enumerate(flat_ints(ids)) if v >= 0]
    if HAVE_NUMPY:
        return np.take(rows, keep, axis=0), np.take(np.asarray(ids).reshape(-1), keep)
    inner = int(prod(rows.shape[1:]))
    kept = array.array(rows.data.typecode)
    for i in keep:
        kept += rows.data[i * inner:(i + 1) * inner]
    return (CArray(kept, (len(keep),) + rows.shape[1:], rows.dtype),
            CArray(array.array(ids.data.typecode, [ids.data[i] for i in keep]), (len(keep),), ids.dtype))
