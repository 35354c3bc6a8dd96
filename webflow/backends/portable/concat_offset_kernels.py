"""ConcatOffset without NumPy (Pyodide): where each input of a concatenation starts, on flat shape vectors. The
NumPy kernel and the op's stanza are in ops/concat_ops.py (ConcatV2's gradient slices its inputs' parts with it)."""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import flat_ints
from webflow.framework.errors import InvalidArgumentError


def concat_offset(concat_dim: Any, *shapes: Any, N: int) -> list:  # noqa: N803 - TensorFlow's attr name
    """offset_i = 0 everywhere but the concat axis, where it is the sum of the earlier inputs' sizes."""
    dims = [flat_ints(s) for s in shapes]
    axis = int(flat_ints(concat_dim)[0])
    if not 0 <= axis < len(dims[0]):
        raise InvalidArgumentError(None, None, f"Concat dim is out of range: {axis} vs. {len(dims[0])}")
    offsets: list[CArray] = []
    start = 0
    for shape in dims:
        offset = [0] * len(shape)
        offset[axis] = start
        start += shape[axis]
        offsets.append(c_array.from_value(offset, shapes[0].dtype))
    return offsets
