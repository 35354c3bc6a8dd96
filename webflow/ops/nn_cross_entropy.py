"""The cross-entropy wrappers of `tf.nn`, built on the ops in `ops/nn_ops.py` exactly as TensorFlow builds them.

- `softmax_cross_entropy_with_logits_v2(labels, logits, axis=-1)`: TF2's `tf.nn.softmax_cross_entropy_with_logits`;
  gradients flow into both logits and labels.
- `softmax_cross_entropy_with_logits` (TF1, deprecated): the same, but labels pass through `StopGradient` first.
- `sparse_softmax_cross_entropy_with_logits(labels, logits)`: integer class indices instead of distributions.
- `sigmoid_cross_entropy_with_logits(labels, logits)`: a composite of elementwise ops (no op of its own).
"""

from __future__ import annotations

import warnings
from typing import Any

from webflow.framework import context
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import array_ops, concat_ops, indexing_ops, logic_ops, manip_ops, math_ops, unary_math_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_ops import FLOATS, LABEL_INTS
from webflow.ops.registry import apply_op


def _flatten_outer_dims(x: Any, name: str) -> Any:
    """[d0, ..., dn-1, c] -> [d0 * ... * dn-1, c] (TF's _flatten_outer_dims)."""
    classes = x.shape.as_tuple()[-1] if x.shape.rank else None
    if classes is None:
        classes = concat_ops.split(array_ops.shape(x), [x.shape.rank - 1, 1])[1]
        return array_ops.reshape(x, concat_ops.concat([[-1], classes], 0), name=name)
    return array_ops.reshape(x, [-1, classes], name=name)


def _outer_shape(x: Any) -> Any:
    """x's shape without its last dimension: a constant list when known, else a slice of Shape(x)."""
    outer = TensorShape(x.shape.as_tuple()[:-1])
    if outer.is_fully_defined():
        return outer.as_list()
    return concat_ops.split(array_ops.shape(x), [x.shape.rank - 1, 1])[0]


def _graph_xent(logits: Any, labels: Any, scope: str) -> Any:
    """The loss as TensorFlow's graph computes it, node for node: Rank, Shape, both inputs flattened to
    [examples, classes] by shape arithmetic (_dynamic_flat), the op, then Reshape to Shape[:rank - 1]."""
    input_rank = array_ops.rank(logits)
    input_shape = array_ops.shape(logits)
    flat_logits, flat_labels = _dynamic_flat(logits), _dynamic_flat(labels)
    cost = apply_op("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], name=scope or None)[0]
    output_shape = indexing_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
    cost = array_ops.reshape(cost, output_shape)
    cost.set_shape(logits.shape.as_tuple()[:-1])
    return cost


def _dynamic_flat(x: Any) -> Any:
    """TensorFlow's _flatten_outer_dims: reshape to concat([-1], slice(shape, [rank - 1], [1])), with the static
    [product of the outer dims, classes] when those are known."""
    rank = array_ops.rank(x)
    last_dim = indexing_ops.slice(array_ops.shape(x), [math_ops.subtract(rank, 1)], [1])
    flat = array_ops.reshape(x, concat_ops.concat([[-1], last_dim], 0))
    dims = x.shape.as_tuple()
    if None not in dims[:-1]:
        product = 1
        for d in dims[:-1]:
            product *= d
        flat.set_shape([product, dims[-1]])
    return flat


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: int = -1, name: str | None = None,
                                         dim: int | None = None) -> Any:
    """-sum(labels * log_softmax(logits), axis): one loss per example; gradients reach logits and labels."""
    axis = dim if dim is not None else axis
    with name_scope_v1(name, "softmax_cross_entropy_with_logits") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if logits.dtype.base_dtype not in FLOATS:
            raise TypeError(f"Value passed to parameter 'features' has DataType {logits.dtype.base_dtype.name} "
                            f"not in list of allowed values: {', '.join(d.name for d in FLOATS)}")
        labels = math_ops.cast(labels, logits.dtype.base_dtype)
        rank = logits.shape.rank
        if axis not in (-1, None) and rank is not None and axis % rank != rank - 1:
            # Move the class axis to the end, the others keeping their order (the loss has them in that order).
            perm = [i for i in range(rank) if i != axis % rank] + [axis % rank]
            logits, labels = manip_ops.transpose(logits, perm), manip_ops.transpose(labels, perm)
        if rank is None or (rank == 2 and context.executing_eagerly()):
            # Unknown rank: the op itself checks for rank 2 (TF reshapes dynamically here).
            return apply_op("SoftmaxCrossEntropyWithLogits", [logits, labels], name=scope or None)[0]
        if not context.executing_eagerly():
            return _graph_xent(logits, labels, scope)
        # Flatten to [examples, classes], run the op, give the loss back its outer shape (names as TF's).
        flat_logits = _flatten_outer_dims(logits, "Reshape")
        flat_labels = _flatten_outer_dims(labels, "Reshape_1")
        cost = apply_op("SoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], name=scope or None)[0]
        cost = array_ops.reshape(cost, _outer_shape(logits), name="Reshape_2")
        if not context.executing_eagerly():
            cost.set_shape(logits.shape.as_tuple()[:-1])
        return cost


def softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None, logits: Any = None, dim: int = -1,
                                      name: str | None = None, axis: int | None = None) -> Any:
    """TF1's deprecated version: as `_v2`, but no gradient flows into `labels` (they pass through StopGradient)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named arguments (labels=..., "
                         f"logits=..., ...). Received unnamed argument: {_sentinel}")
    warnings.warn("softmax_cross_entropy_with_logits is deprecated: future major versions of TensorFlow will allow "
                  "gradients to flow into the labels input on backprop by default. "
                  "See `tf.nn.softmax_cross_entropy_with_logits_v2`.", DeprecationWarning, stacklevel=2)
    axis = axis if axis is not None else dim
    with name_scope_v1(name, "softmax_cross_entropy_with_logits_sg") as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis, name=scope or None)


def one_hot_hint(labels_shape: TensorShape, logits_shape: TensorShape) -> str:
    """Extra words for the rank error when the labels have the logits' rank: they look one-hot."""
    if labels_shape.rank != logits_shape.rank:
        return ""
    return (". The labels have the same rank as the logits, so they look one-hot (or like probabilities): use "
            "`softmax_cross_entropy_with_logits` (tf.losses.softmax_cross_entropy) for those, or pass class "
            "indices, e.g. `tf.argmax(labels, axis=-1)`, to the sparse version.")


def sparse_softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None, logits: Any = None,
                                             name: str | None = None) -> Any:
    """-log_softmax(logits)[labels]: `labels` are class indices (int32/int64) of rank = rank(logits) - 1."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named arguments "
                         f"(labels=..., logits=..., ...). Received unnamed argument: {_sentinel}")
    with name_scope_v1(name, "SparseSoftmaxCrossEntropyWithLogits"):
        labels = convert_to_tensor(labels, name="labels")
        logits = convert_to_tensor(logits, name="logits")
        labels_shape, logits_shape = labels.shape, logits.shape
        labels_shape_tensor = None if context.executing_eagerly() else array_ops.shape(labels)  # TF's `Shape`
        if labels_shape.rank is not None and logits_shape.rank is not None:
            if labels_shape.rank != logits_shape.rank - 1:
                raise ValueError(
                    "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                    f"labels.shape={labels_shape} of rank {labels_shape.rank} and "
                    f"logits.shape={logits_shape} of rank {logits_shape.rank}"
                    + one_hot_hint(labels_shape, logits_shape))
            if not labels_shape.is_compatible_with(logits_shape.as_tuple()[:-1]):
                raise ValueError("`labels.shape` must equal `logits.shape` except for the last dimension. "
                                 f"Received: labels.shape={labels_shape} and logits.shape={logits_shape}")
        # Shapes are checked first, so one-hot float labels get the rank message rather than a dtype one.
        if labels.dtype.base_dtype not in LABEL_INTS:
            raise TypeError(f"Value passed to parameter 'labels' has DataType {labels.dtype.base_dtype.name} "
                            "not in list of allowed values: int32, int64")
        if logits_shape.rank in (2, None):   # unknown rank: the op checks for rank 2 when it runs
            return apply_op("SparseSoftmaxCrossEntropyWithLogits", [logits, labels], name=name)[0]
        # Higher rank: flatten to [n, classes] and [n], then restore the outer shape.
        flat_logits = _flatten_outer_dims(logits, None)
        flat_labels = array_ops.reshape(labels, [-1])
        cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", [flat_logits, flat_labels], name=name)[0]
        cost = array_ops.reshape(cost, labels_shape_tensor if labels_shape_tensor is not None
                                 else array_ops.shape(labels))
        if not context.executing_eagerly():
            cost.set_shape(labels_shape)
        return cost


def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> Any:
    """max(x, 0) - x * z + log(1 + exp(-|x|)) for logits x and labels z (stable for large |x|), as TF composes it."""
    with name_scope_v1(name, "logistic_loss") as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, dtype=logits.dtype.base_dtype, name="labels")
        if not logits.shape.is_compatible_with(labels.shape):
            raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                             f"{labels.shape}).")
        zeros = array_ops.zeros_like(logits)
        cond = logic_ops.greater_equal(logits, zeros)
        relu_logits = logic_ops.where_v1(cond, logits, zeros)
        neg_abs_logits = logic_ops.where_v1(cond, math_ops.negative(logits), logits)
        # operators, as TF writes it, so the nodes are `mul` and `sub`
        return math_ops.add(relu_logits - logits * labels,
                            unary_math_ops.log1p(unary_math_ops.exp(neg_abs_logits)), name=scope or None)


def sparse_softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, name: str | None = None) -> Any:
    """TF2's spelling (`tf.nn.sparse_softmax_cross_entropy_with_logits`): labels and logits may be positional."""
    return sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


def sigmoid_cross_entropy_with_logits_v1(_sentinel: Any = None, labels: Any = None, logits: Any = None,
                                         name: str | None = None) -> Any:
    """TF1's spelling: named arguments only (the `_sentinel` catches positional ones)."""
    if _sentinel is not None or labels is None or logits is None:
        raise ValueError("Only call `sigmoid_cross_entropy_with_logits` with named arguments (labels=..., logits=..., "
                         f"...). Received unnamed argument: {_sentinel}")
    return sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


__all__ = ["softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2",
           "sparse_softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits_v2",
           "sigmoid_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits_v1"]
