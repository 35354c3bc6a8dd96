"""ObjectBuffer: the storage of a string CArray, a Python list that reads like an `array.array`.

`array.array` holds numbers only, and a `tf.string` tensor holds `bytes` (unicode encoded as UTF-8, as in
TensorFlow). Where NumPy is missing (Pyodide) a string tensor is a CArray whose `data` is an ObjectBuffer: the
same row-major flat layout, `typecode` "O" (NumPy's object kind), slices and repetition giving ObjectBuffers,
`tolist()`. The portable kernels that only move elements around (reshape, gather, concat, tile ...) make their
outputs with `new_buffer(data.typecode, values)`, so one kernel serves numbers and strings. C kernels cannot read
it: `buffer_info()` raises, and the C adapters refuse string inputs before they get there.
"""

from __future__ import annotations

import array
from typing import Any

OBJECT_TYPECODE = "O"


class ObjectBuffer(list):
    """A flat list of Python objects (bytes) with the parts of `array.array`'s interface kernels use."""

    typecode = OBJECT_TYPECODE
    itemsize = 8  # one pointer per element, as NumPy's object arrays report

    def __init__(self, typecode: str = OBJECT_TYPECODE, values: Any = ()):
        super().__init__(values)

    def tolist(self) -> list:
        return list(self)

    def __getitem__(self, key: Any) -> Any:
        found = super().__getitem__(key)
        return ObjectBuffer(OBJECT_TYPECODE, found) if isinstance(key, slice) else found

    def __mul__(self, count: int) -> ObjectBuffer:
        return ObjectBuffer(OBJECT_TYPECODE, super().__mul__(count))

    def __add__(self, other: Any) -> ObjectBuffer:
        return ObjectBuffer(OBJECT_TYPECODE, super().__add__(list(other)))

    def buffer_info(self) -> tuple:
        raise TypeError("a string tensor's elements are Python bytes objects: it has no C buffer")


def new_buffer(typecode: str, values: Any = ()) -> Any:
    """`array.array(typecode, values)`, or an ObjectBuffer for typecode "O" (strings)."""
    if typecode == OBJECT_TYPECODE:
        return ObjectBuffer(OBJECT_TYPECODE, values)
    return array.array(typecode, values)


__all__ = ["ObjectBuffer", "OBJECT_TYPECODE", "new_buffer"]
