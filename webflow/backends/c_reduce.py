"""C signatures of the reduction kernels (webflow/wasm/reduce.c), declared once for c_library.function().

    wf_reduce_<op>_<t>(x, out, ndim, shape, x_strides, axis_mask) -> int status
        op: sum mean max min prod; t: f32 f64 i32 i64. Bit d of axis_mask set = axis d is reduced;
        `out` is contiguous with the kept axes' shape; strides are in elements (see size_array).
"""

from __future__ import annotations

from webflow.backends.c_library import INT, PTR, declare

REDUCTIONS = ("sum", "mean", "max", "min", "prod")


def axis_mask(axes: list | tuple, ndim: int) -> int:
    """The kernels' axis bit mask for `axes` (negative axes count from the end)."""
    mask = 0
    for axis in axes:
        mask |= 1 << (int(axis) % ndim if ndim else 0)
    return mask


for _suffix in ("f32", "f64", "i32", "i64"):
    for _name in REDUCTIONS:
        declare(f"wf_reduce_{_name}_{_suffix}", [PTR, PTR, INT, PTR, PTR, INT], INT)
