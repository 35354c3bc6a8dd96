"""C signatures of gather and scatter-add (webflow/wasm/gather.c), declared once for c_library.function().

    wf_gather_<i32|i64>(params, indices, out, outer, axis_size, inner_bytes, count) -> 0, or 1 + position
        out[o, j, :] = params[o, indices[j], :] for any dtype (rows are copied as bytes)
    wf_scatter_add_<t>_<i32|i64>(updates, indices, out, count, inner, num_segments) -> 0, or 1 + position
        out[indices[j], :] += updates[j, :]; t: f32 f64 i32 i64; negative indices are skipped
A non-zero result names the first bad index; nothing was written.
"""

from __future__ import annotations

from webflow.backends.c.library import PTR, SIZE, declare

for _index in ("i32", "i64"):
    declare(f"wf_gather_{_index}", [PTR, PTR, PTR, SIZE, SIZE, SIZE, SIZE], SIZE)
    for _suffix in ("f32", "f64", "i32", "i64"):
        declare(f"wf_scatter_add_{_suffix}_{_index}", [PTR, PTR, PTR, SIZE, SIZE, SIZE], SIZE)
