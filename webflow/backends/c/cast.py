"""C signatures of Cast and the strided copy (webflow/wasm/cast.c), for c_library.function().

    wf_cast(src, src_type, dst, dst_type, n) -> int status
        types are TensorFlow DataType numbers (dtype.as_datatype_enum): float32 1, float64 2, int32 3,
        uint8 4, int64 9, bool 10; float -> int truncates toward zero, NaN / out of range -> the minimum int
    wf_copy_strided(src, dst, element_size, ndim, shape, strides) -> int status
        a strided view (strides in elements) copied into a contiguous buffer
"""

from __future__ import annotations

from typing import Any

from webflow.backends.c.adapters import (
    Unsupported,
    c_kernel,
    check,
    contiguous,
    empty,
    fn,
    ptr,
)
from webflow.backends.c.library import INT, PTR, SIZE, declare

CAST_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int64": 9, "bool": 10}

declare("wf_cast", [PTR, INT, PTR, INT, SIZE], INT)
declare("wf_copy_strided", [PTR, PTR, INT, INT, PTR, PTR], INT)


# --- Cast -------------------------------------------------------------------------------------------
@c_kernel(dtypes=tuple(CAST_TYPES))
def cast(x: Any, *, SrcT: Any, DstT: Any, Truncate: bool = False) -> Any:  # noqa: N803 - TF's attr names
    """wf_cast: y = x converted to DstT (TensorFlow's float -> int rules)."""
    source, target = x.dtype.name, DstT.base_dtype.name
    if source not in CAST_TYPES or target not in CAST_TYPES:
        raise Unsupported("dtype")
    x = contiguous(x)
    out = empty(x.shape, DstT.base_dtype)
    check(fn("wf_cast")(ptr(x), CAST_TYPES[source], ptr(out), CAST_TYPES[target], x.size), "cast")
    return out
