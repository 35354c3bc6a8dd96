"""TF1's cross-entropy losses in `tf.losses`: the `tf.nn` cross-entropies, weighted and reduced.

Each one is `compute_weighted_loss` (losses_impl.py) applied to the per-example losses of
ops/nn_cross_entropy.py, inside its scope (`softmax_cross_entropy_loss/`, ...), with the inner op
scope named `xentropy` as in TensorFlow.
- softmax_cross_entropy: one-hot (or probability) labels; label smoothing moves the labels towards
  uniform: y * (1 - s) + s / num_classes. No gradient flows into the labels.
- sparse_softmax_cross_entropy: integer class labels of shape [batch] (or [batch, 1], squeezed).
- sigmoid_cross_entropy: independent binary labels; label smoothing: y * (1 - s) + 0.5 s.
"""

from __future__ import annotations

from typing import Any

from webflow.framework.graph import GraphKeys
from webflow.framework.scopes import name_scope_v1
from webflow.losses.losses_impl import Reduction, _require, cast, compute_weighted_loss
from webflow.losses.weights_broadcast import remove_squeezable_dimensions
from webflow.ops import array_ops, manip_ops, nn_cross_entropy
from webflow.ops.convert import convert_to_tensor


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0, label_smoothing: float = 0,
                          scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """-sum(y * log_softmax(logits), -1) per example for labels y of the same shape as logits."""
    _require(onehot_labels=onehot_labels, logits=logits)
    with name_scope_v1(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        onehot_labels = cast(onehot_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(onehot_labels.shape)
        if label_smoothing > 0:
            num_classes = cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_cross_entropy.softmax_cross_entropy_with_logits_v2(labels=onehot_labels, logits=logits,
                                                                       name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def _squeeze_labels_and_weights(labels: Any, logits: Any, weights: Any) -> tuple:
    """Labels of shape [batch, 1] become [batch]; weights one rank above the labels lose their last axis
    (with static ranks; see remove_squeezable_dimensions for the unknown-rank case)."""
    labels, logits = remove_squeezable_dimensions(labels, logits, expected_rank_diff=1)
    weights = convert_to_tensor(weights)
    labels_rank, weights_rank = labels.shape.rank, weights.shape.rank
    if labels_rank is not None and weights_rank is not None and weights_rank - labels_rank == 1:
        weights = manip_ops.squeeze(weights, [-1])
    return labels, logits, weights


def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
                                 loss_collection: str | None = GraphKeys.LOSSES,
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """-log_softmax(logits)[label] per example, for integer class labels."""
    _require(labels=labels, logits=logits)
    with name_scope_v1(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as scope:
        labels, logits, weights = _squeeze_labels_and_weights(labels, logits, weights)
        losses = nn_cross_entropy.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                           name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0, label_smoothing: float = 0,
                          scope: str | None = None, loss_collection: str | None = GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Per element max(x, 0) - x z + log(1 + exp(-|x|)) for logits x and labels z in [0, 1]."""
    _require(multi_class_labels=multi_class_labels, logits=logits)
    with name_scope_v1(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        multi_class_labels = cast(multi_class_labels, logits.dtype)
        logits.shape.assert_is_compatible_with(multi_class_labels.shape)
        if label_smoothing > 0:
            multi_class_labels = multi_class_labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_cross_entropy.sigmoid_cross_entropy_with_logits(labels=multi_class_labels, logits=logits,
                                                                    name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection, reduction=reduction)


__all__ = ["softmax_cross_entropy", "sparse_softmax_cross_entropy", "sigmoid_cross_entropy"]
