"""`tf.nn.embedding_lookup`: rows of an embedding table picked by ids (a GatherV2 named "embedding_lookup").

Its gradient is an `IndexedSlices` holding only the looked-up rows, so an optimizer can update just those
rows of a large table. Only one shard (a single tensor or variable, or a list of one) is supported.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.ops import array_ops, binary_math_ops, sum_mean_ops, unary_math_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.gather_ops import gather


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod", name: str | None = None,
                     validate_indices: bool = True, max_norm: Any = None) -> Any:
    """output[i...] = params[ids[i...]] (with max_norm: each row scaled down to L2 norm <= max_norm)."""
    if isinstance(params, (list, tuple)):
        if not params:
            raise ValueError("Need at least one param")
        if len(params) > 1:
            raise NotImplementedError("webflow's embedding_lookup supports a single params tensor (one shard)")
        params = params[0]
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition strategy: {partition_strategy}")
    if context.executing_eagerly():
        return _clipped(gather(params, convert_to_tensor(ids)), max_norm)
    with context.get_default_graph().name_scope(name or "embedding_lookup") as scope:
        ids = convert_to_tensor(ids, name="ids")
        result = gather(params, ids, name=scope)
        return array_ops.identity(_clipped(result, max_norm))


def _clipped(rows: Any, max_norm: Any) -> Any:
    """rows * min(1, max_norm / ||row||) along the last axis (TF's _clip for max_norm)."""
    if max_norm is None:
        return rows
    norms = unary_math_ops.sqrt(sum_mean_ops.reduce_sum(rows * rows, axis=-1, keepdims=True))
    scale = binary_math_ops.minimum(1.0, max_norm / binary_math_ops.maximum(norms, 1e-12))
    return rows * scale
