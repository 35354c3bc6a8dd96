"""C signatures of the reduction kernels (webflow/wasm/reduce.c), declared once for c_library.function().

    wf_reduce_<op>_<t>(x, out, ndim, shape, x_strides, axis_mask) -> int status
        op: sum mean max min prod; t: f32 f64 i32 i64. Bit d of axis_mask set = axis d is reduced;
        `out` is contiguous with the kept axes' shape; strides are in elements (see size_array).
    wf_sum_blocks_f32(x, out, partials, blocks, block_rows, columns, threads) -> int status
        x [blocks * block_rows, columns]: each block's column sums into partials [blocks, columns] (on the C
        library's threads), then those in block order into out: Sum over a float32 array's leading axes.
"""

from __future__ import annotations

from webflow.backends.c.library import INT, PTR, SIZE, declare

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
declare("wf_sum_blocks_f32", [PTR, PTR, PTR, SIZE, SIZE, SIZE, SIZE], INT)
