"""`tf.nn.sampled_softmax_loss` and `tf.nn.nce_loss`: a loss over the true classes plus `num_sampled` candidates
(ops/candidate_sampling_ops.py) instead of every class, built as TensorFlow's nn_impl builds them.

logits = [inputs . w_true + b_true, inputs . w_sampled + b_sampled], each minus log(expected count) (log Q);
labels = [1 / num_true ..., 0 ...]. sampled_softmax_loss = softmax cross-entropy of those (accidental hits of a
true class among the samples are pushed to -FLT_MAX first); nce_loss = the sum over a row of the sigmoid
cross-entropies.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.nn.embedding import embedding_lookup
from webflow.ops import array_ops, concat_ops, indexing_ops, manip_ops, math_ops, matmul_ops, unary_math_ops
from webflow.ops.candidate_sampling_ops import compute_accidental_hits, log_uniform_candidate_sampler
from webflow.ops.convert import convert_to_tensor
from webflow.ops.nn_cross_entropy import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2
from webflow.ops.sparse_ops import sparse_to_dense


def _sum_rows(x: Any) -> Any:
    """Row sums as x @ ones (TensorFlow's _sum_rows: a matmul, faster than reduce_sum in its gradient)."""
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(concat_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(matmul_ops.matmul(x, ones), [-1])


def _true_logits(inputs: Any, true_w: Any, true_b: Any, num_true: int) -> Any:
    """inputs[i] . true_w[i, k] + true_b[i, k] for each row i and true class k."""
    dim = array_ops.shape(true_w)[1:2]
    new_true_w_shape = concat_ops.concat([[-1, num_true], dim], 0)
    row_wise_dots = math_ops.multiply(manip_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape))
    dots_as_matrix = array_ops.reshape(row_wise_dots, concat_ops.concat([[-1], dim], 0))
    true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
    return true_logits + array_ops.reshape(true_b, [-1, num_true])  # (`+=` in TensorFlow: node "add")


def _remove_hits(sampled_logits: Any, labels: Any, sampled: Any, num_sampled: int, num_true: int) -> Any:
    indices, ids, weights = compute_accidental_hits(labels, sampled, num_true=num_true)
    sparse_indices = concat_ops.concat([array_ops.reshape(indices, [-1, 1]),
                                        array_ops.reshape(math_ops.cast(ids, dtypes.int32), [-1, 1])], 1,
                                       "sparse_indices")
    shape = concat_ops.concat([array_ops.shape(labels)[:1], manip_ops.expand_dims(num_sampled, 0)], 0)
    weights = math_ops.cast(weights, sampled_logits.dtype)
    return sampled_logits + sparse_to_dense(sparse_indices, shape, weights, default_value=0.0, validate_indices=False)


def compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                           num_true: int = 1, sampled_values: Any = None, subtract_log_q: bool = True,
                           remove_accidental_hits: bool = False, name: str | None = None,
                           seed: int | None = None) -> tuple:
    """(logits [batch, num_true + num_sampled], labels of the same shape) as described in the module doc."""
    weights = weights[0] if isinstance(weights, (list, tuple)) and len(weights) == 1 else weights
    with name_scope_v1(name, "compute_sampled_logits", [weights, biases, inputs, labels]):
        labels = convert_to_tensor(labels)
        if labels.dtype != dtypes.int64:
            labels = math_ops.cast(labels, dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed=seed)
        sampled, true_expected, sampled_expected = (array_ops.stop_gradient(s) for s in sampled_values)
        sampled = math_ops.cast(sampled, dtypes.int64)
        inputs = convert_to_tensor(inputs)
        all_ids = concat_ops.concat([labels_flat, sampled], 0)
        all_w = math_ops.cast(embedding_lookup(weights, all_ids), inputs.dtype)
        # shape(labels_flat)[0] built twice, as TensorFlow's graph does (Shape, Shape_1)
        true_w = indexing_ops.slice(all_w, [0, 0], concat_ops.stack([array_ops.shape(labels_flat)[0], -1]))
        sampled_w = indexing_ops.slice(all_w, concat_ops.stack([array_ops.shape(labels_flat)[0], 0]), [-1, -1])
        sampled_logits = matmul_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = math_ops.cast(embedding_lookup(biases, all_ids), inputs.dtype)
        true_b = indexing_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = indexing_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        true_logits = _true_logits(inputs, true_w, true_b, num_true)
        sampled_logits = sampled_logits + sampled_b
        if remove_accidental_hits:
            sampled_logits = _remove_hits(sampled_logits, labels, sampled, num_sampled, num_true)
        if subtract_log_q:
            true_logits = true_logits - unary_math_ops.log(true_expected)
            sampled_logits = sampled_logits - unary_math_ops.log(sampled_expected)
        out_logits = concat_ops.concat([true_logits, sampled_logits], 1)
        out_labels = concat_ops.concat([math_ops.truediv(array_ops.ones_like(true_logits), float(num_true)),
                                        array_ops.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
             num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = False,
             partition_strategy: str = "mod", name: str = "nce_loss") -> Any:
    """[batch] noise-contrastive estimation losses: sum over a row of sigmoid cross-entropies (TF1 signature;
    the sampler's seed comes from the graph seed, as nce_loss takes none)."""
    logits, labels = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                            sampled_values, True, remove_accidental_hits, name)
    sampled_losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                         num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = True,
                         partition_strategy: str = "mod", name: str = "sampled_softmax_loss",
                         seed: int | None = None) -> Any:
    """[batch] softmax cross-entropies over the true and sampled classes."""
    logits, labels = compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                            sampled_values, True, remove_accidental_hits, name, seed)
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)


def nce_loss_v2(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = False,
                name: str = "nce_loss") -> Any:
    """TF2's `tf.nn.nce_loss` (no partition_strategy)."""
    return nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                    remove_accidental_hits, name=name)


def sampled_softmax_loss_v2(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                            num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = True,
                            seed: int | None = None, name: str = "sampled_softmax_loss") -> Any:
    """TF2's `tf.nn.sampled_softmax_loss` (no partition_strategy)."""
    return sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                                remove_accidental_hits, name=name, seed=seed)


__all__ = ["nce_loss", "sampled_softmax_loss", "nce_loss_v2", "sampled_softmax_loss_v2"]
