"""Summing the gradients that reach one tensor from several consumers (dense with AddN, sparse by concat)."""

from __future__ import annotations

from typing import Any

from webflow.framework.indexed_slices import IndexedSlices


def aggregate(grads: list) -> Any:
    """The sum of `grads` (None entries ignored); stays IndexedSlices only if every part is sparse."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    from webflow.ops import concat_ops, math_ops

    if all(isinstance(g, IndexedSlices) for g in grads):
        return IndexedSlices(concat_ops.concat([g.values for g in grads], 0),
                             concat_ops.concat([g.indices for g in grads], 0), grads[0].dense_shape)
    return math_ops.add_n([math_ops.to_dense(g) for g in grads])
