"""C signatures of the in-place row scatters (webflow/wasm/scatter_rows.c), declared for c_library.

    wf_scatter_rows_<t>_<i>(var, indices, updates, count, inner, rows, mode) -> 0, or 1 + the first bad position
        var[indices[j], :] (+= | -= | =) updates[j, :] for j in order; mode 0 add, 1 subtract, 2 assign
        (t = f32, f64; i = i32, i64)

The adapters are ops/scatter_ops.py's row formulas in C: they write into `target` (the variable's array, or the
op's private copy of it) and return None; a bad index raises InvalidArgumentError with TensorFlow's message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.c.activation_grads import built_in
from webflow.backends.c.adapters import FLOATS, Unsupported, c_kernel, contiguous, fn, ptr, suffix
from webflow.backends.c.library import INT, PTR, SIZE, declare
from webflow.framework.errors import InvalidArgumentError

MODES = {"add": 0, "sub": 1, "update": 2}
INDEX_SUFFIX = {"int32": "i32", "int64": "i64"}

for _suffix in ("f32", "f64"):
    for _index in ("i32", "i64"):
        declare(f"wf_scatter_rows_{_suffix}_{_index}", [PTR, PTR, PTR, SIZE, SIZE, SIZE, INT], SIZE)


def bad_index_message(position: int, index: int, rows: int) -> str:
    """TensorFlow's run-time message for an index outside the variable's first dimension."""
    return f"indices[{position}] = {index} is not in [0, {rows})"


def _rows_adapter(mode: str) -> Callable:
    def adapter(target: Any, indices: Any, updates: Any, *, into: Any = None) -> None:
        c_suffix = suffix(target, FLOATS)
        index_suffix = INDEX_SUFFIX.get(indices.dtype.name)
        count = indices.size
        if index_suffix is None or updates.dtype != target.dtype or target.ndim == 0 \
                or updates.size != count * (target.size // max(target.shape[0], 1)):
            raise Unsupported("scatter arguments")   # scalar updates, other dtypes: the NumPy formula
        name = f"wf_scatter_rows_{c_suffix}_{index_suffix}"
        built_in(name)
        indices, updates = contiguous(indices), contiguous(updates)
        rows, inner = target.shape[0], target.size // max(target.shape[0], 1)
        status = fn(name)(ptr(target), ptr(indices), ptr(updates), count,
                                                                 inner, rows, MODES[mode])
        if status:
            flat = indices.data if type(indices) is CArray else indices.reshape(-1)
            raise InvalidArgumentError(None, None, bad_index_message(status - 1, int(flat[status - 1]), rows))

    adapter.__name__ = f"c_scatter_{mode}"
    adapter.__doc__ = f"wf_scatter_rows_<t>_<i> (mode {mode}): var[indices[j], :] {mode} updates[j, :], in place."
    return adapter


scatter_add = c_kernel(dtypes=FLOATS, min_size=0, update=True)(_rows_adapter("add"))
scatter_sub = c_kernel(dtypes=FLOATS, min_size=0, update=True)(_rows_adapter("sub"))
scatter_update = c_kernel(dtypes=FLOATS, min_size=0, update=True)(_rows_adapter("update"))
