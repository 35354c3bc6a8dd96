"""C signatures of the comparisons and select (webflow/wasm/compare.c), declared once for c_library.function().

    wf_<cmp>_<t>(x, y, out, ndim, shape, x_strides, y_strides) -> int status
        out (bool, one byte each) = x <cmp> y, broadcasting; cmp: equal not_equal greater greater_equal
        less less_equal; t: f32 f64 i32 i64 u8 (u8 also serves bool)
    wf_select_<8|16|32|64>(cond, t, e, out, ndim, shape, cond_strides, t_strides, e_strides) -> int status
        out = t where cond else e, broadcasting; values copied as bits of that width (any dtype)
`shape` and the strides (in elements, 0 on broadcast dimensions) are c_elementwise.size_array()s.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.c.adapters import Unsupported, broadcast_shapes, c_kernel, check, contiguous, empty, fn, ptr
from webflow.backends.c.elementwise import MAX_DIMS, broadcast_strides, size_array
from webflow.backends.c.library import INT, PTR, declare
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.kernel_checks import select_condition_shape

COMPARISONS = {"Equal": "equal", "NotEqual": "not_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
               "Less": "less", "LessEqual": "less_equal"}
COMPARE_SUFFIX = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "u8"}
SELECT_WIDTHS = (8, 16, 32, 64)

for _stem in COMPARISONS.values():
    for _suffix in sorted(set(COMPARE_SUFFIX.values())):
        declare(f"wf_{_stem}_{_suffix}", [PTR, PTR, PTR, INT, PTR, PTR, PTR], INT)
for _width in SELECT_WIDTHS:
    declare(f"wf_select_{_width}", [PTR, PTR, PTR, PTR, INT, PTR, PTR, PTR, PTR], INT)



_TYPES = tuple(COMPARE_SUFFIX)


def _compare(stem: str) -> Any:
    def adapter(x: Any, y: Any, *, incompatible_shape_error: bool = True) -> Any:
        c_suffix = COMPARE_SUFFIX.get(x.dtype.name)
        if c_suffix is None or y.dtype != x.dtype:
            raise Unsupported("dtype")
        try:
            shape = broadcast_shapes(x.shape, y.shape)
        except ValueError:
            if stem in ("equal", "not_equal") and incompatible_shape_error:
                raise InvalidArgumentError(None, None, f"Incompatible shapes: {list(x.shape)} vs. "
                                                       f"{list(y.shape)}") from None
            raise Unsupported("shapes") from None  # the NumPy kernel decides (TF2 `==`: a scalar)
        if len(shape) > MAX_DIMS:
            raise Unsupported("rank")
        out = empty(shape, dtypes.bool)
        if out.size:
            x, y = contiguous(x), contiguous(y)
            status = fn(f"wf_{stem}_{c_suffix}")(ptr(x), ptr(y), ptr(out), len(shape), size_array(shape),
                                                 size_array(broadcast_strides(x, shape)),
                                                 size_array(broadcast_strides(y, shape)))
            check(status, stem)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: z = x {stem} y elementwise (bool), broadcasting."
    return adapter


equal = c_kernel(dtypes=_TYPES)(_compare("equal"))
not_equal = c_kernel(dtypes=_TYPES)(_compare("not_equal"))
greater = c_kernel(dtypes=_TYPES)(_compare("greater"))
greater_equal = c_kernel(dtypes=_TYPES)(_compare("greater_equal"))
less = c_kernel(dtypes=_TYPES)(_compare("less"))
less_equal = c_kernel(dtypes=_TYPES)(_compare("less_equal"))


def _select(cond: Any, t: Any, e: Any, shape: tuple) -> Any:
    width = t.itemsize * 8
    # values are copied as bits: never Python objects (tf.string), whose references would not be counted
    if cond.dtype.name != "bool" or e.dtype != t.dtype or width not in SELECT_WIDTHS \
            or getattr(t.dtype, "hasobject", False) or len(shape) > MAX_DIMS:
        raise Unsupported("operands")
    out = empty(shape, t.dtype)
    if out.size:
        cond, t, e = contiguous(cond), contiguous(t), contiguous(e)
        status = fn(f"wf_select_{width}")(ptr(cond), ptr(t), ptr(e), ptr(out), len(shape), size_array(shape),
                                          *(size_array(broadcast_strides(a, shape)) for a in (cond, t, e)))
        check(status, "select")
    return out


@c_kernel(dtypes=("bool",), min_size=8192)
def select_v2(cond: Any, t: Any, e: Any) -> Any:
    """wf_select_<bits>: out = t where cond else e, all three broadcasting."""
    try:
        shape = broadcast_shapes(cond.shape, t.shape, e.shape)
    except ValueError:  # TF's run-time error (without NumPy no fallback kernel would raise it)
        dims = [f"[{','.join(map(str, a.shape))}]" for a in (cond, t, e)]
        raise InvalidArgumentError(None, None, f"condition {dims[0]}, then {dims[1]}, and else {dims[2]} must be "
                                               f"broadcastable") from None
    return _select(cond, t, e, shape)


@c_kernel(dtypes=("bool",), min_size=8192)
def select(cond: Any, t: Any, e: Any) -> Any:
    """wf_select_<bits>: out = t where cond else e; a vector cond picks whole rows of t or e."""
    cond = contiguous(cond).reshape(select_condition_shape(cond.shape, t.shape, e.shape))
    return _select(cond, t, e, tuple(t.shape))
