"""C signatures of the softmax and cross-entropy kernels (webflow/wasm/softmax.c), for c_library.function().

All arrays are contiguous [rows, classes]; <t> is f32 or f64.
    wf_softmax_<t>(logits, out, rows, classes)          wf_log_softmax_<t>(logits, out, rows, classes)
    wf_softmax_grad_<t>(grad, softmax, out, rows, classes)     dx = (g - sum(g y)) y
    wf_log_softmax_grad_<t>(grad, log_softmax, out, rows, classes)   dx = g - sum(g) exp(y)
    wf_softmax_xent_<t>(logits, labels, labels_row_stride, loss, backprop, rows, classes)
    wf_sparse_xent_<t>_<i32|i64>(logits, labels, loss, backprop, rows, classes) -> 0, or 1 + row of a bad label
And float32 Softmax and LogSoftmax whose rows are shared out over threads (webflow/wasm/softmax_rows.c):
    wf_softmax_rows_f32(logits, out, rows, classes, threads)
    wf_log_softmax_rows_f32(logits, out, rows, classes, threads)
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c.adapters import (
    Unsupported,
    c_kernel,
    contiguous,
    empty,
    empty_like,
    fn,
    ptr,
    suffix,
)
from webflow.backends.c.gather import INDEX_SUFFIX
from webflow.backends.c.library import PTR, SIZE, VOID, declare
from webflow.framework.errors import InvalidArgumentError

for _suffix in ("f32", "f64"):
    declare(f"wf_softmax_{_suffix}", [PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_log_softmax_{_suffix}", [PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_softmax_grad_{_suffix}", [PTR, PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_log_softmax_grad_{_suffix}", [PTR, PTR, PTR, SIZE, SIZE], VOID)
    declare(f"wf_softmax_xent_{_suffix}", [PTR, PTR, SIZE, PTR, PTR, SIZE, SIZE], VOID)
    for _labels in ("i32", "i64"):
        declare(f"wf_sparse_xent_{_suffix}_{_labels}", [PTR, PTR, PTR, PTR, SIZE, SIZE], SIZE)
declare("wf_softmax_rows_f32", [PTR, PTR, SIZE, SIZE, SIZE], VOID)
declare("wf_log_softmax_rows_f32", [PTR, PTR, SIZE, SIZE, SIZE], VOID)


# --- softmax and cross-entropy: rows x classes --------------------------------------------------------
def _rows_op(stem: str) -> Any:
    def adapter(logits: Any) -> Any:
        c_suffix = suffix(logits)
        if logits.ndim < 1:
            raise Unsupported("a scalar")
        out = empty_like(logits)
        if logits.size == 0:   # nothing to compute (without NumPy there is no kernel to fall back on)
            return out
        logits = contiguous(logits)
        classes = logits.shape[-1]
        fn(f"wf_{stem}_{c_suffix}")(ptr(logits), ptr(out), logits.size // classes, classes)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t> over the last axis."
    return adapter


# Float32 Softmax and LogSoftmax from ROWS_MIN elements run softmax_rows.c: one pass per row while it is in L1, on
# every thread (NumPy makes four passes on one). Other dtypes and smaller sizes: NumPy (its exp beats softmax.c's
# single-threaded kernel), unless the C backend is forced or NumPy is absent. Figures: benchmarks/FIGURES.md,
# "Size sweep under load" and "One-thread Softmax".
ROWS_MIN = 1 << 14
_one_thread = {"softmax": _rows_op("softmax"), "log_softmax": _rows_op("log_softmax")}


def _rows_kernel(stem: str, logits: Any) -> Any:
    """wf_<stem>_rows_f32 (float32, from ROWS_MIN elements) or softmax.c's wf_<stem>_<t> over the last axis."""
    if logits.dtype.name != "float32" or logits.ndim < 1 or logits.size < ROWS_MIN:
        if HAVE_NUMPY and selection.automatic():
            raise Unsupported("NumPy's kernel")
        return _one_thread[stem](logits)
    logits = contiguous(logits)
    out = empty_like(logits)
    classes = logits.shape[-1]
    fn(f"wf_{stem}_rows_f32")(ptr(logits), ptr(out), logits.size // classes, classes, parallel.threads())
    return out


@c_kernel(min_size=ROWS_MIN)
def softmax(logits: Any) -> Any:
    """wf_softmax_rows_f32 (float32, from ROWS_MIN elements) or wf_softmax_<t> over the last axis."""
    return _rows_kernel("softmax", logits)


@c_kernel(min_size=ROWS_MIN)
def log_softmax(logits: Any) -> Any:
    """wf_log_softmax_rows_f32 (float32, from ROWS_MIN elements) or wf_log_softmax_<t> over the last axis."""
    return _rows_kernel("log_softmax", logits)


@c_kernel()
def softmax_xent(features: Any, labels: Any) -> list:
    """wf_softmax_xent_<t>: loss and backprop in one pass over each row (labels may be one broadcast row)."""
    c_suffix = suffix(features)
    if labels.dtype != features.dtype or features.ndim != 2 or labels.ndim != 2 or features.shape[1] == 0 \
            or labels.shape[1] != features.shape[1] or labels.shape[0] not in (1, features.shape[0]):
        raise Unsupported("shapes")
    if features.shape[0] == 0:   # no rows: nothing to compute (without NumPy there is no kernel to fall back on)
        return [empty(0, features.dtype), empty_like(features)]
    features, labels = contiguous(features), contiguous(labels)
    rows, classes = features.shape
    loss, backprop = empty(rows, features.dtype), empty_like(features)
    stride = 0 if labels.shape[0] == 1 and rows != 1 else classes
    fn(f"wf_softmax_xent_{c_suffix}")(ptr(features), ptr(labels), stride, ptr(loss), ptr(backprop), rows, classes)
    return [loss, backprop]


@c_kernel()
def sparse_softmax_xent(features: Any, labels: Any) -> list:
    """wf_sparse_xent_<t>_<i>: loss and backprop; a bad label is TF's InvalidArgumentError."""
    c_suffix = suffix(features)
    index = INDEX_SUFFIX.get(labels.dtype.name)
    if index is None or features.ndim != 2 or labels.ndim != 1 or labels.shape[0] != features.shape[0] \
            or features.shape[1] == 0:
        raise Unsupported("shapes")
    if features.shape[0] == 0:   # no rows: nothing to compute (without NumPy there is no kernel to fall back on)
        return [empty(0, features.dtype), empty_like(features)]
    features, labels = contiguous(features), contiguous(labels)
    rows, classes = features.shape
    loss, backprop = empty(rows, features.dtype), empty_like(features)
    bad = fn(f"wf_sparse_xent_{c_suffix}_{index}")(ptr(features), ptr(labels), ptr(loss), ptr(backprop), rows, classes)
    if bad:
        raise InvalidArgumentError(None, None, f"Received a label value of {labels[bad - 1]} which is outside the "
                                               f"valid range of [0, {classes}).  Label values: "
                                               + " ".join(str(v) for v in labels.tolist()))
    return [loss, backprop]
