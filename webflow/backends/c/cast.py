"""C signatures of Cast and the strided copy (webflow/wasm/cast.c), for c_library.function().

    wf_cast(src, src_type, dst, dst_type, n) -> int status
        types are TensorFlow DataType numbers (dtype.as_datatype_enum): float32 1, float64 2, int32 3,
        uint8 4, int64 9, bool 10; float -> int truncates toward zero, NaN / out of range -> the minimum int
    wf_copy_strided(src, dst, element_size, ndim, shape, strides) -> int status
        a strided view (strides in elements) copied into a contiguous buffer
"""

from __future__ import annotations

from typing import Any

from webflow.backends import bfloat16
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
from webflow.framework import dtypes

CAST_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int64": 9, "bool": 10}

declare("wf_cast", [PTR, INT, PTR, INT, SIZE], INT)
declare("wf_copy_strided", [PTR, PTR, INT, INT, PTR, PTR], INT)


# --- Cast -------------------------------------------------------------------------------------------
@c_kernel(dtypes=(*CAST_TYPES, "bfloat16"))
def cast(x: Any, *, SrcT: Any, DstT: Any, Truncate: bool = False) -> Any:  # noqa: N803 - TF's attr names
    """wf_cast: y = x converted to DstT (TensorFlow's float -> int rules; to bfloat16: float32 storage, rounded)."""
    if DstT.base_dtype is dtypes.bfloat16:  # (a bfloat16 input is float32 storage already: x.dtype says so)
        return bfloat16.round_to_bfloat16(_cast_to(x, dtypes.float32), truncate=Truncate)
    return _cast_to(x, DstT.base_dtype)


def _cast_to(x: Any, dtype: Any) -> Any:
    source, target = x.dtype.name, dtype.name
    if source not in CAST_TYPES or target not in CAST_TYPES:
        raise Unsupported("dtype")
    x = contiguous(x)
    out = empty(x.shape, dtype)
    check(fn("wf_cast")(ptr(x), CAST_TYPES[source], ptr(out), CAST_TYPES[target], x.size), "cast")
    return out
