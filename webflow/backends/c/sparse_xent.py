"""C signatures of the row-parallel float32 sparse softmax cross-entropy (webflow/wasm/sparse_softmax_xent.c), and
SparseSoftmaxCrossEntropyWithLogits's C adapter.

    wf_sparse_softmax_xent_rows_f32_<i32|i64>(logits, labels, loss, backprop, rows, classes, threads)
        -> 0, or 1 + the row of the first label outside [0, classes)

Float32 logits from ROWS_MIN elements run it (one read of each row, a 16-lane exp, rows on every thread): a word
LM's [400, 10000] logits took ~3.6 ms in NumPy's five passes, 1.5 here (benchmarks/FIGURES.md, "Word LM: fused
sparse cross-entropy").
Smaller or float64 logits: NumPy's kernel in CPython; without NumPy, softmax.c's single-threaded kernel.
"""

from __future__ import annotations

from typing import Any

from webflow.backends import selection
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.backends.c import parallel
from webflow.backends.c import softmax as c_softmax
from webflow.backends.c.adapters import Unsupported, c_kernel, contiguous, empty, empty_like, fn, ptr
from webflow.backends.c.gather import INDEX_SUFFIX
from webflow.backends.c.library import PTR, SIZE, declare
from webflow.framework.errors import InvalidArgumentError

for _labels in ("i32", "i64"):
    declare(f"wf_sparse_softmax_xent_rows_f32_{_labels}", [PTR, PTR, PTR, PTR, SIZE, SIZE, SIZE], SIZE)

ROWS_MIN = 1 << 14  # below, NumPy's passes stay in cache and the call's fixed cost is a fair share


@c_kernel(min_size=ROWS_MIN)
def sparse_softmax_xent(features: Any, labels: Any) -> list:
    """wf_sparse_softmax_xent_rows_f32_<i> (float32, from ROWS_MIN elements), else softmax.c's wf_sparse_xent_<t>_<i>:
    loss and backprop; a bad label is TensorFlow's InvalidArgumentError."""
    index = INDEX_SUFFIX.get(labels.dtype.name)
    if features.dtype.name != "float32" or features.size < ROWS_MIN or index is None or features.ndim != 2 \
            or labels.ndim != 1 or labels.shape[0] != features.shape[0] or features.shape[1] == 0:
        if HAVE_NUMPY and selection.automatic():
            raise Unsupported("NumPy's kernel")
        return c_softmax.sparse_softmax_xent(features, labels)
    features, labels = contiguous(features), contiguous(labels)
    rows, classes = features.shape
    loss, backprop = empty(rows, features.dtype), empty_like(features)
    bad = fn(f"wf_sparse_softmax_xent_rows_f32_{index}")(ptr(features), ptr(labels), ptr(loss), ptr(backprop), rows,
                                                         classes, parallel.threads())
    if bad:
        raise InvalidArgumentError(None, None, f"Received a label value of {labels[bad - 1]} which is outside the "
                                               f"valid range of [0, {classes}).  Label values: "
                                               + " ".join(str(v) for v in labels.tolist()))
    return [loss, backprop]
