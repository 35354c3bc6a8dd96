"""Gradient clipping: `clip_by_global_norm`, `clip_by_norm`, `global_norm`, `clip_by_value`.

global_norm = sqrt(sum_i sum(t_i ** 2)), computed as sqrt(2 * sum_i L2Loss(t_i)) as TensorFlow does.
clip_by_global_norm scales every t_i by clip_norm / max(global_norm, clip_norm).
`None` entries pass through; IndexedSlices are clipped through their values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from webflow.framework.indexed_slices import IndexedSlices
from webflow.framework.scopes import name_scope_v1 as name_scope
from webflow.ops import array_ops, concat_ops, math_ops, sum_mean_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_loss_ops import l2_loss
from webflow.train import _math


def _check_list(t_list: Any) -> list:
    if not isinstance(t_list, Sequence) or isinstance(t_list, str):
        raise TypeError("t_list should be a sequence")
    return list(t_list)


def _values(t_list: list) -> list:
    """Dense tensors for the entries (an IndexedSlices' values), None kept."""
    return [None if t is None else convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=f"t_{i}")
            for i, t in enumerate(t_list)]


def global_norm(t_list: Any, name: str | None = None) -> Any:
    """sqrt(sum of squares of every entry of every tensor in t_list); None entries are skipped."""
    t_list = _check_list(t_list)
    with name_scope(name, "global_norm") as scope:
        values = _values(t_list)
        half_squared_norms = [l2_loss(v) for v in values if v is not None]
        half_squared_norm = sum_mean_ops.reduce_sum(concat_ops.stack(half_squared_norms))
        two = convert_to_tensor(2.0, dtype=half_squared_norm.dtype)
        return _math.sqrt(math_ops.multiply(half_squared_norm, two), name="global_norm" if scope else None)


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None, name: str | None = None) -> tuple:
    """(t_i * clip_norm / max(global_norm, clip_norm) for each t_i, global_norm); inf/NaN norms give NaN."""
    t_list = _check_list(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm") as scope:
        one = convert_to_tensor(1.0, dtype=use_norm.dtype)
        scale_for_finite = math_ops.multiply(clip_norm, _math.minimum(math_ops.truediv(one, use_norm),
                                                                      math_ops.truediv(one, clip_norm)))
        # adding (norm - norm) turns the scale into NaN when the norm is inf or NaN, as TensorFlow does
        scale = math_ops.add(scale_for_finite, math_ops.subtract(use_norm, use_norm))
        clipped = []
        for i, (t, v) in enumerate(zip(t_list, _values(t_list))):
            if v is None:
                clipped.append(None)
                continue
            # TensorFlow names it "%s_%d" % (scope, i), the whole scope string inside that scope:
            # "clip_by_global_norm/clip_by_global_norm/_0"
            value = array_ops.identity(math_ops.multiply(v, math_ops.cast(scale, v.dtype.base_dtype)),
                                       name=f"{scope or 'clip_by_global_norm/'}_{i}")
            clipped.append(IndexedSlices(value, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else value)
    return clipped, use_norm


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """t * clip_norm / max(l2norm(t, axes), clip_norm)."""
    with name_scope(name, "clip_by_norm") as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        l2sum = sum_mean_ops.reduce_sum(math_ops.multiply(values, values), axes, keepdims=True)
        l2norm = _math.sqrt(l2sum)
        clip = math_ops.cast(clip_norm, values.dtype.base_dtype)
        clipped = array_ops.identity(math_ops.truediv(math_ops.multiply(values, clip), _math.maximum(l2norm, clip)),
                                     name=scope or None)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """min(max(t, clip_value_min), clip_value_max) elementwise."""
    with name_scope(name, "clip_by_value") as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        t_min = _math.minimum(values, clip_value_max)
        clipped = _math.maximum(t_min, clip_value_min, name=scope or None)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


__all__ = ["global_norm", "clip_by_global_norm", "clip_by_norm", "clip_by_value"]
