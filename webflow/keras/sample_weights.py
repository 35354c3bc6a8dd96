"""`fit(sample_weight=, class_weight=)` and `evaluate(sample_weight=)` as tf_keras weighs the loss.

Each example's loss is multiplied by its weight before the mean over the batch (sum(loss * w) / batch size); a
masked output's weights are multiplied in too (masks.py). `class_weight={class: weight}` gives each example the
weight of its class (the label, the rounded label of a single-unit output, or the one-hot label's argmax), times
its `sample_weight` if there is one, as tf_keras's DataHandler maps every batch. The compiled `metrics` are not
weighted (tf_keras weighs only `weighted_metrics`); the "loss" shown is the weighted one.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np


def class_weighted(y: Any, sample_weight: Any, class_weight: dict) -> Any:
    """The batch's weights: class_weight[class of each label] (times sample_weight), as tf_keras's
    `_make_class_weight_map_fn`."""
    if isinstance(y, (list, tuple, dict)):
        raise ValueError("`class_weight` is only supported for Models with a single output.")
    class_ids = sorted(class_weight)
    if class_ids != list(range(len(class_ids))):
        raise ValueError("Expected `class_weight` to be a dict with keys from 0 to one less than the number of "
                         f"classes, found {class_weight}")
    table = np.asarray([class_weight[c] for c in class_ids], np.float32)
    labels = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if labels.ndim >= 2:
        classes = np.argmax(labels, axis=1) if labels.shape[1] > 1 else np.round(np.squeeze(labels, -1))
    else:
        classes = np.round(labels)
    weights = table[classes.astype(np.int64)]
    if sample_weight is None:
        return weights
    sample_weight = np.asarray(sample_weight)
    weights = weights.astype(sample_weight.dtype)
    if sample_weight.ndim == weights.ndim + 1 and sample_weight.shape[-1] == 1:
        sample_weight = np.squeeze(sample_weight, -1)
    return sample_weight * weights


def loss_weights_for(sample_weight: Any, y_pred: Any) -> Any:
    """`sample_weight` shaped as the per-example loss of `y_pred` (its rank less the last axis): a trailing unit
    axis dropped, or unit axes added for a sequence output (tf_keras's squeeze_or_expand_dimensions)."""
    from webflow.ops.convert import convert_to_tensor
    from webflow.ops.manip_ops import expand_dims, squeeze

    weights = convert_to_tensor(sample_weight)
    target = y_pred.shape.rank - 1
    if weights.shape.rank == target + 1 and weights.shape.as_list()[-1] == 1:
        weights = squeeze(weights, [-1])
    while weights.shape.rank < target:
        weights = expand_dims(weights, -1)
    return weights


__all__ = ["class_weighted", "loss_weights_for"]
