"""DynamicStitch without NumPy (Pyodide): rows copied into place on flat CArray buffers. The NumPy kernel and the
op's stanza are in ops/dynamic_stitch_ops.py; a reduction's gradient runs this one on small shape vectors."""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import contiguous, flat_ints
from webflow.framework.errors import InvalidArgumentError


def dynamic_stitch(*args: Any, N: int) -> CArray:  # noqa: N803 - TensorFlow's attr name
    """merged[indices[m][i], ...] = data[m][i, ...]; a repeated index keeps the last row written."""
    indices, data = [flat_ints(i) for i in args[:N]], [contiguous(d) for d in args[N:]]
    tail = tuple(data[0].shape[len(args[0].shape):])
    row = math.prod(tail)
    if any(i < 0 for index in indices for i in index):
        raise InvalidArgumentError(None, None, "DynamicStitch: indices must be non-negative")
    rows = max((max(index) + 1 for index in indices if index), default=0)
    merged = c_array.empty((rows,) + tail, data[0].dtype)
    for index, value in zip(indices, data):
        for position, target in enumerate(index):
            merged.data[target * row:(target + 1) * row] = value.data[position * row:(position + 1) * row]
    return merged
