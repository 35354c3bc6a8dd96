"""C signatures of the softmax and cross-entropy kernels (webflow/wasm/softmax.c), for c_library.function().

All arrays are contiguous [rows, classes]; <t> is f32 or f64.
    wf_softmax_<t>(logits, out, rows, classes)          wf_log_softmax_<t>(logits, out, rows, classes)
    wf_softmax_grad_<t>(grad, softmax, out, rows, classes)     dx = (g - sum(g y)) y
    wf_log_softmax_grad_<t>(grad, log_softmax, out, rows, classes)   dx = g - sum(g) exp(y)
    wf_softmax_xent_<t>(logits, labels, labels_row_stride, loss, backprop, rows, classes)
    wf_sparse_xent_<t>_<i32|i64>(logits, labels, loss, backprop, rows, classes) -> 0, or 1 + row of a bad label
"""

from __future__ import annotations

from webflow.backends.c.library import PTR, SIZE, VOID, declare

for _suffix in ("f32", "f64"):
    declare(f"wf_softmax_{_suffix}", [PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_log_softmax_{_suffix}", [PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_softmax_grad_{_suffix}", [PTR, PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_log_softmax_grad_{_suffix}", [PTR, PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_softmax_xent_{_suffix}", [PTR, PTR, SIZE, PTR, PTR, SIZE, SIZE], VOID)
    for _labels in ("i32", "i64"):
        declare(f"wf_sparse_xent_{_suffix}_{_labels}", [PTR, PTR, PTR, PTR, SIZE, SIZE], SIZE)
