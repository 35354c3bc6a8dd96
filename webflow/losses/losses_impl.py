"""TF1's `tf.losses`: weighted losses reduced to one number and added to the LOSSES collection.

Every loss function builds its per-element losses inside its own name scope (`mean_squared_error/`,
`softmax_cross_entropy_loss/` ...) and hands them to `compute_weighted_loss`, which
1. checks that `weights` may scale the losses (see weights_broadcast.py; the ops below depend on it),
2. multiplies losses by weights (both cast to float32, as TensorFlow does),
3. reduces according to `reduction`; the default, SUM_BY_NONZERO_WEIGHTS, divides the weighted sum
   by the number of losses whose (broadcast) weight is non-zero, so zero weights mask examples out,
4. adds the result to `loss_collection` (graph mode only).
The scalar result is named `<scope>/value:0` (a DivNoNan: 0 when nothing is present). The ops are
built in TensorFlow's order, so every node name matches a TF1 graph.

The cross-entropy losses live in cross_entropy.py; both are exported by losses/__init__.py.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import add_to_collection, control_dependencies, get_collection, name_scope_v1
from webflow.framework.tensor import Tensor
from webflow.losses.weights_broadcast import assert_broadcastable, broadcast_weights
from webflow.ops import array_ops, logic_ops, math_ops, nn_ops, sum_mean_ops, unary_math_ops
from webflow.ops.binary_math_ops import div_no_nan, minimum, squared_difference
from webflow.ops.convert import convert_to_tensor


class Reduction:
    """How `compute_weighted_loss` turns the weighted losses into the returned value."""

    NONE = "none"                                        # the weighted losses, unreduced
    SUM = "weighted_sum"                                 # sum(w * l)
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"  # sum(w * l) / number of losses
    MEAN = "weighted_mean"                               # sum(w * l) / sum(w broadcast to l)
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"  # sum(w * l) / count(w != 0), the default
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of {cls.all()}.")


def cast(x: Any, dtype: Any) -> Any:
    """`tf.cast` with TensorFlow's naming: a tensor already of `dtype` is returned as is; anything else is
    converted inside a `Cast` scope (a Python 1.0 becomes the Const `Cast/x`), then cast by an op `Cast`."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and x.dtype.base_dtype is dtype:
        return x
    with name_scope_v1(None, "Cast", (x,)) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype is not dtype:
            x = math_ops.cast(x, dtype, name=scope or None)
        return x


# --- the collection of losses ---------------------------------------------------------------------
def add_loss(loss: Any, loss_collection: str | None = GraphKeys.LOSSES) -> None:
    """Adds `loss` to `loss_collection` (nothing happens when executing eagerly, as in TF)."""
    if loss_collection and not context.executing_eagerly():
        add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None, loss_collection: str = GraphKeys.LOSSES) -> list:
    """The losses in `loss_collection` whose names match `scope` (a regex), in the order added."""
    return get_collection(loss_collection, scope)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None) -> Any:
    """AddN of the LOSSES collection (plus REGULARIZATION_LOSSES); ValueError when both are empty."""
    losses = list(get_losses(scope=scope))
    if add_regularization_losses:
        losses += get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)
    if not losses:
        # TF's add_n raises on an empty list: the model has no losses yet
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    return math_ops.add_n(losses, name=name)


# --- reductions -------------------------------------------------------------------------------------
def _safe_mean(losses: Any, num_present: Any) -> Any:
    """sum(losses) / num_present, or 0 when num_present is 0 (DivNoNan named `value`)."""
    return div_no_nan(sum_mean_ops.reduce_sum(losses), num_present, name="value")


def _num_elements(losses: Any) -> Any:
    """The number of losses, as a float of the losses' dtype (`num_elements`)."""
    with name_scope_v1(None, "num_elements", (losses,)) as scope:
        return cast(array_ops.size(losses, name=scope or None), losses.dtype)


def _num_present(losses: Any, weights: Any) -> Any:
    """How many losses have a non-zero weight once `weights` is broadcast to `losses` (`num_present`)."""
    if context.executing_eagerly() and weights.shape.rank == 0 and float(weights.numpy()) != 0.0:
        return _num_elements(losses)
    with name_scope_v1(None, "num_present", (losses, weights)) as scope:
        weights = cast(weights, dtypes.float32)
        present = logic_ops.where_v1(logic_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                     array_ops.ones_like(weights))
        present = broadcast_weights(present, losses)
        return sum_mean_ops.reduce_sum(present, name=scope or None)


def _check_list(check: Any) -> list:
    return [check] if check is not None else []


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: str | None = None,
                          loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """`losses` scaled by `weights` (scalar, or broadcastable: same rank, each dim 1 or equal) and reduced."""
    Reduction.validate(reduction)
    with name_scope_v1(scope, "weighted_loss", (losses, weights)):
        with control_dependencies(_check_list(assert_broadcastable(weights, losses))):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype.base_dtype
            losses = cast(losses, dtypes.float32)
            weights = cast(weights, dtypes.float32)
            weighted_losses = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = sum_mean_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, sum_mean_ops.reduce_sum(array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = cast(loss, input_dtype)   # back to the losses' dtype (the math ran in float32)
            add_loss(loss, loss_collection)
            return loss


# --- regression and classification losses ---------------------------------------------------------
def _require(**arguments: Any) -> None:
    for name, value in arguments.items():
        if value is None:
            raise ValueError(f"Argument `{name}` must not be None.")


def _float_pair(predictions: Any, labels: Any) -> tuple:
    """Both cast to float32; their static shapes must be compatible (ValueError as TF otherwise)."""
    predictions = cast(predictions, dtypes.float32)
    labels = cast(labels, dtypes.float32)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return predictions, labels


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0, scope: str | None = None,
                       loss_collection: str | None = GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element (predictions - labels)^2, weighted and reduced."""
    _require(labels=labels, predictions=predictions)
    with name_scope_v1(scope, "mean_squared_error", (predictions, labels, weights)) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0, scope: str | None = None,
                        loss_collection: str | None = GraphKeys.LOSSES,
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element |predictions - labels|, weighted and reduced."""
    _require(labels=labels, predictions=predictions)
    with name_scope_v1(scope, "absolute_difference", (predictions, labels, weights)) as scope:
        predictions, labels = _float_pair(predictions, labels)
        losses = unary_math_ops.abs(math_ops.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0, scope: str | None = None,
               loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element, for x = predictions - labels: 0.5 x^2 when |x| <= delta, else 0.5 delta^2 + delta (|x| - delta).

    Computed as 0.5 q^2 + delta (|x| - q) with q = min(|x|, delta), which is both branches at once.
    """
    _require(labels=labels, predictions=predictions)
    with name_scope_v1(scope, "huber_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _float_pair(predictions, labels)
        abs_error = unary_math_ops.abs(math_ops.subtract(predictions, labels))
        quadratic = minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        half = convert_to_tensor(0.5, dtype=quadratic.dtype)
        losses = math_ops.add(math_ops.multiply(half, math_ops.multiply(quadratic, quadratic)),
                              math_ops.multiply(delta, linear))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7, scope: str | None = None,
             loss_collection: str | None = GraphKeys.LOSSES,
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element -y log(p + eps) - (1 - y) log(1 - p + eps) for probabilities p and labels y."""
    _require(labels=labels, predictions=predictions)
    with name_scope_v1(scope, "log_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _float_pair(predictions, labels)
        positive = -math_ops.multiply(labels, unary_math_ops.log(predictions + epsilon))
        negative = math_ops.multiply(1 - labels, unary_math_ops.log(1 - predictions + epsilon))
        losses = positive - negative
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
               loss_collection: str | None = GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element max(0, 1 - y * logits) with labels {0, 1} mapped to y in {-1, 1}."""
    _require(labels=labels, logits=logits)
    with name_scope_v1(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits, labels = _float_pair(logits, labels)
        all_ones = array_ops.ones_like(labels)
        signs = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(signs, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def cosine_distance(labels: Any, predictions: Any, axis: int | None = None, weights: Any = 1.0,
                    scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS, dim: int | None = None) -> Any:
    """1 - sum(predictions * labels, axis) per example (inputs assumed unit-normalized); `dim` is the old name."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    _require(labels=labels, predictions=predictions)
    with name_scope_v1(scope, "cosine_distance_loss", (predictions, labels, weights)) as scope:
        predictions, labels = _float_pair(predictions, labels)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - sum_mean_ops.reduce_sum(radial_diffs, axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


__all__ = ["Reduction", "compute_weighted_loss", "add_loss", "get_losses", "get_total_loss", "mean_squared_error",
           "absolute_difference", "huber_loss", "log_loss", "hinge_loss", "cosine_distance"]
