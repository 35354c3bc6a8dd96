"""Loss and metric weights: which shapes may scale which values, as TensorFlow's `weights_broadcast_ops`.

The rule is stricter than NumPy broadcasting: `weights` must be a scalar, or have the same rank as
`values` with every dimension either 1 or equal to the matching dimension of `values`. So weights of
shape [batch] are rejected for losses of shape [batch, d] (use [batch, 1]).

- `assert_broadcastable(weights, values)`: checked at graph-build time when both shapes are known
  (a ValueError, or a NoOp named `static_scalar_check_success` / `static_dims_check_success` that
  the caller makes its ops depend on, exactly as TensorFlow builds it). When a shape is only known at
  run time, the check is left to the multiply itself (see `_dynamic_check`).
- `broadcast_weights(weights, values)`: `weights * ones_like(values)`, after that check.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context
from webflow.framework.scopes import control_dependencies, name_scope_v1
from webflow.ops import array_ops, manip_ops, math_ops
from webflow.ops.control_flow_ops import no_op
from webflow.ops.convert import constant_value, convert_to_tensor

ERROR_PREFIX = "weights can not be broadcast to values."


def assert_broadcastable(weights: Any, values: Any) -> Any:
    """A NoOp to depend on when `weights` can scale `values`; ValueError when they provably cannot."""
    with name_scope_v1(None, "assert_broadcastable", (weights, values)):
        with name_scope_v1(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope or None)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        with name_scope_v1(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope or None)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        weights_rank_static = _static(weights_rank)
        values_rank_static = _static(values_rank)
        if weights_rank_static is not None and values_rank_static is not None:
            if weights_rank_static == 0:
                return no_op(name="static_scalar_check_success")
            if weights_rank_static != values_rank_static:
                raise ValueError(
                    f"{ERROR_PREFIX} values.rank={values_rank_static}. weights.rank={weights_rank_static}. "
                    f"values.shape={values.shape}. weights.shape={weights.shape}. "
                    f"Received weights={weights}, values={values}")
            weights_dims = constant_value(weights_shape)   # NumPy vectors: the message prints them as TF does
            values_dims = constant_value(values_shape)
            if weights_dims is not None and values_dims is not None:
                for i, (w, v) in enumerate(zip(weights_dims.tolist(), values_dims.tolist())):
                    if w not in (1, v):
                        raise ValueError(
                            f"{ERROR_PREFIX} Mismatch at dim {i}. values.shape={values_dims}, "
                            f"weights.shape={weights_dims}. Received weights={weights}, values={values}")
                return no_op(name="static_dims_check_success")
        return _dynamic_check(weights, values)


def _static(rank: Any) -> int | None:
    """The value of a rank tensor when known at build time, else None."""
    value = constant_value(rank)
    return None if value is None else int(value)


def _dynamic_check(weights: Any, values: Any) -> Any:
    """Shapes known only at run time.

    TensorFlow builds a v1 `cond` over a DenseToDenseSetOperation and an `Assert` here; webflow has
    neither, so it returns a plain NoOp and lets the `Mul` of weights and values fail at run time
    (InvalidArgumentError) when they do not broadcast. Weights that NumPy broadcasting accepts but
    TF's stricter rule refuses (e.g. [batch] weights for [batch, d] losses) pass unchecked.
    """
    if context.executing_eagerly():
        return None
    return no_op(name="dynamic_check_deferred")


def broadcast_weights(weights: Any, values: Any) -> Any:
    """`weights` broadcast to the shape of `values` (weights * ones_like(values)), after the check above."""
    with name_scope_v1(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, dtype=values.dtype.base_dtype, name="weights")
        weights_shape, values_shape = weights.shape, values.shape
        if (weights_shape.is_fully_defined() and values_shape.is_fully_defined()
                and weights_shape.is_compatible_with(values_shape)):
            return weights
        with control_dependencies(_as_list(assert_broadcastable(weights, values))):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope or None)


def remove_squeezable_dimensions(labels: Any, predictions: Any, expected_rank_diff: int = 0) -> tuple:
    """(labels, predictions) with a trailing size-1 axis squeezed from the one whose rank is one too high.

    `expected_rank_diff` is rank(predictions) - rank(labels) when nothing needs squeezing (1 for
    logits against class ids). TensorFlow decides with static ranks when known (done here) and with a
    `cond` on run-time ranks otherwise; with an unknown rank webflow leaves both as they are.
    """
    with name_scope_v1(None, "remove_squeezable_dimensions", (labels, predictions)):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions_rank, labels_rank = predictions.shape.rank, labels.shape.rank
        if predictions_rank is not None and labels_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1 and predictions.shape.dims[-1].is_compatible_with(1):
                predictions = manip_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and labels.shape.dims[-1].is_compatible_with(1):
                labels = manip_ops.squeeze(labels, [-1])
        return labels, predictions


def _as_list(check: Any) -> list:
    """control_dependencies' argument: the check op, or nothing in eager mode (where no_op gives None)."""
    return [check] if check is not None else []


__all__ = ["assert_broadcastable", "broadcast_weights", "remove_squeezable_dimensions"]
