"""C signatures of the comparisons and select (webflow/wasm/compare.c), declared once for c_library.function().

    wf_<cmp>_<t>(x, y, out, ndim, shape, x_strides, y_strides) -> int status
        out (bool, one byte each) = x <cmp> y, broadcasting; cmp: equal not_equal greater greater_equal
        less less_equal; t: f32 f64 i32 i64 u8 (u8 also serves bool)
    wf_select_<8|16|32|64>(cond, t, e, out, ndim, shape, cond_strides, t_strides, e_strides) -> int status
        out = t where cond else e, broadcasting; values copied as bits of that width (any dtype)
`shape` and the strides (in elements, 0 on broadcast dimensions) are c_elementwise.size_array()s.
"""

from __future__ import annotations

from webflow.backends.c.library import INT, PTR, declare

COMPARISONS = {"Equal": "equal", "NotEqual": "not_equal", "Greater": "greater", "GreaterEqual": "greater_equal",
               "Less": "less", "LessEqual": "less_equal"}
COMPARE_SUFFIX = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64", "uint8": "u8", "bool": "u8"}
SELECT_WIDTHS = (8, 16, 32, 64)

for _stem in COMPARISONS.values():
    for _suffix in sorted(set(COMPARE_SUFFIX.values())):
        declare(f"wf_{_stem}_{_suffix}", [PTR, PTR, PTR, INT, PTR, PTR, PTR], INT)
for _width in SELECT_WIDTHS:
    declare(f"wf_select_{_width}", [PTR, PTR, PTR, PTR, INT, PTR, PTR, PTR, PTR], INT)
