"""`tf.contrib.seq2seq.sequence_loss`: the weighted cross-entropy of a sequence of logits, built as TF 1.15 built it.

loss[b, t] = weights[b, t] * xent(logits[b, t], targets[b, t]); then, by the flags:
- average over both axes (default): sum(loss) / (sum(weights) + 1e-12), a scalar;
- sum over both axes: sum(loss) / count_nonzero(weights) (0 when no weight is non-zero), a scalar;
- one axis only: the same per remaining axis, a [batch] or [time] vector; no flag: the [batch, time] losses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.framework import dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.ops import array_ops, binary_math_ops, concat_ops, math_ops, reduction_ops, sum_mean_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_cross_entropy import sparse_softmax_cross_entropy_with_logits

# added to the weight total so that all-zero weights give 0, not NaN (TensorFlow's constant)
_EPSILON = 1e-12


def _check_ranks(logits: Any, targets: Any, weights: Any) -> None:
    if logits.shape.ndims != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x logits_num_classes] tensor")
    if targets.shape.ndims != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if weights.shape.ndims != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")


def _check_flags(average_across_timesteps: bool, average_across_batch: bool, sum_over_timesteps: bool,
                 sum_over_batch: bool) -> None:
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at same time.")


def _mean_by_weight(losses: Any, weights: Any, axis: Any = None) -> Any:
    """sum(losses) / (sum(weights) + 1e-12) over axis."""
    total = math_ops.add(sum_mean_ops.reduce_sum(weights, axis), _EPSILON)
    return math_ops.truediv(sum_mean_ops.reduce_sum(losses, axis), total)


def _mean_by_count(losses: Any, weights: Any, axis: Any = None) -> Any:
    """sum(losses) / count_nonzero(weights) over axis, 0 where the count is 0."""
    count = math_ops.cast(reduction_ops.count_nonzero(weights, axis), dtypes.float32)
    return binary_math_ops.div_no_nan(sum_mean_ops.reduce_sum(losses, axis), count)


def sequence_loss(logits: Any, targets: Any, weights: Any, average_across_timesteps: bool = True,
                  average_across_batch: bool = True, sum_over_timesteps: bool = False, sum_over_batch: bool = False,
                  softmax_loss_function: Callable | None = None, name: str | None = None) -> Any:
    """Weighted cross-entropy of [batch, time, classes] logits against [batch, time] targets (see module doc)."""
    logits, targets, weights = (convert_to_tensor(logits), convert_to_tensor(targets), convert_to_tensor(weights))
    _check_ranks(logits, targets, weights)
    _check_flags(average_across_timesteps, average_across_batch, sum_over_timesteps, sum_over_batch)
    with name_scope_v1(name, "sequence_loss", [logits, targets, weights]):
        num_classes = array_ops.shape(logits)[2]
        logits_flat = array_ops.reshape(logits, concat_ops.stack([-1, num_classes]))
        targets_flat = array_ops.reshape(targets, [-1])
        loss_function = softmax_loss_function or sparse_softmax_cross_entropy_with_logits
        crossent = loss_function(labels=targets_flat, logits=logits_flat)
        crossent = math_ops.multiply(crossent, array_ops.reshape(weights, [-1]))
        if average_across_timesteps and average_across_batch:
            return _mean_by_weight(crossent, weights)
        if sum_over_timesteps and sum_over_batch:
            return _mean_by_count(crossent, weights)
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            return _mean_by_weight(crossent, weights, [0] if average_across_batch else [1])
        if sum_over_timesteps or sum_over_batch:
            return _mean_by_count(crossent, weights, [0] if sum_over_batch else [1])
        return crossent


__all__ = ["sequence_loss"]
