"""Top-k ops: TopKV2 (`tf.nn.top_k` / `tf.math.top_k`), InTopKV2 (`tf.nn.in_top_k`), and `xw_plus_b`.

TopKV2 and InTopKV2 treat ties differently, as TensorFlow does: TopKV2 returns exactly k entries, equal
values ordered by lower index first; InTopKV2 counts a target as in the top k when fewer than k
predictions are strictly greater than the target's, so every class tied at the boundary is "in".
"""

from __future__ import annotations

import collections
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import math_kernels
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops import array_ops, concat_ops, gather_ops, manip_ops, math_ops, matmul_ops, reduction_ops, sequence_ops
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.nn_ops import bias_add
from webflow.ops.registry import (
    NotDifferentiable,
    ShapeError,
    apply_op,
    op_scope,
    output_spec,
    register_gradient,
    register_op,
)
from webflow.ops.shapes import merge_dims

INDEX_TYPES = (dtypes.int16, dtypes.int32, dtypes.int64)
TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


# --- TopKV2 -----------------------------------------------------------------------------------------
def _top_k_shape(inputs: list, attrs: dict) -> list:
    values, k = inputs
    if values.shape.rank is not None and values.shape.rank < 1:
        raise ShapeError(f"Shape must be at least rank 1 but is rank {values.shape.rank}")
    if k.shape.rank is not None and k.shape.rank != 0:
        raise ShapeError(f"Shape must be rank 0 but is rank {k.shape.rank}")
    k_value = constant_value(k)
    k_value = None if k_value is None else int(k_value)
    if k_value is not None and k_value < 0:
        raise ShapeError(f"Dimension size, given by scalar input 1, must be non-negative but is {k_value}")
    if values.shape.rank is None:
        dims = None
    else:
        dims = list(values.shape.as_tuple())
        if k_value is not None and dims[-1] is not None and dims[-1] < k_value:
            raise ShapeError(f"input must have last dimension >= k = {k_value} but is {dims[-1]}")
        dims[-1] = k_value
    return [output_spec(dims, values.dtype.base_dtype), output_spec(dims, attrs["index_type"])]


@register_op("TopKV2", "TopKV2", inputs=("input", "k"), shape=_top_k_shape, allowed=dtypes.NUMERIC,
             portable=math_kernels.top_k)
def top_k_kernel(values: Any, k: Any, *, sorted: bool = True, index_type: Any = dtypes.int32) -> list:  # noqa: A002
    """The k largest entries of the last axis, in descending order (ties: lower index first), and their indices."""
    k = int(k)
    if k < 0:
        raise InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
    columns = values.shape[-1]
    if columns < k:
        raise InvalidArgumentError(None, None, f"input must have at least k columns. Had {columns}, needed {k}")
    # A stable ascending sort of the reversed row, read backwards, is a descending sort that keeps equal
    # values in increasing index order (negating would overflow for the smallest integer).
    ascending = np.argsort(values[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    indices = (columns - 1 - ascending)[..., :k]
    return [np.take_along_axis(values, indices, axis=-1),
            indices.astype(dtypes.as_dtype(index_type).as_numpy_dtype)]


@register_gradient("TopKV2")
def _top_k_grad(op: Any, grad: Any, _: Any) -> list:
    """dinput = grad scattered back to the positions the indices name (zero elsewhere); none for k."""
    in_shape = array_ops.shape(op.inputs[0])
    indices = op.outputs[1]
    index_shape = array_ops.shape(indices)
    index_last = gather_ops.gather(index_shape, array_ops.size(index_shape) - 1)
    rows = array_ops.reshape(math_ops.cast(indices, dtypes.int32), concat_ops.stack([-1, index_last]))
    in_last = gather_ops.gather(in_shape, array_ops.size(in_shape) - 1)
    outer = gather_ops.gather(array_ops.shape(rows), 0)
    # flat position of row r, column j = r * last_dim + j
    row_starts = manip_ops.expand_dims(sequence_ops.range(0, outer * in_last, in_last), -1)
    flat = array_ops.reshape(rows + row_starts, [-1])
    scattered = gather_ops.scatter_nd(manip_ops.expand_dims(flat, -1), array_ops.reshape(grad, [-1]),
                                      manip_ops.expand_dims(reduction_ops.reduce_prod(in_shape), 0))
    return [array_ops.reshape(scattered, in_shape), None]


def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32,  # noqa: A002
          name: str | None = None) -> TopKV2:
    """`tf.nn.top_k`: (values, indices) of the k largest entries along the last axis."""
    index_type = dtypes.as_dtype(index_type).base_dtype
    if index_type not in INDEX_TYPES:
        raise TypeError(f"Value for attr 'index_type' of {index_type.name} is not in the list of allowed values: "
                        "int16, int32, int64")
    values, indices = apply_op("TopKV2", [input, k], {"sorted": bool(sorted), "index_type": index_type}, name=name)
    return TopKV2(values, indices)


# --- InTopKV2 ---------------------------------------------------------------------------------------
def _in_top_k_shape(inputs: list, attrs: dict) -> tuple:
    predictions, targets, k = inputs
    if predictions.dtype.base_dtype != dtypes.float32:
        raise TypeError(f"Input 'predictions' of 'InTopKV2' Op has type {predictions.dtype.base_dtype.name} "
                        "that does not match expected type of float32.")
    for tensor, rank in ((predictions, 2), (targets, 1), (k, 0)):
        if tensor.shape.rank is not None and tensor.shape.rank != rank:
            raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank}")
    batch = predictions.shape.as_tuple()[0] if predictions.shape.rank == 2 else None
    target_batch = targets.shape.as_tuple()[0] if targets.shape.rank == 1 else None
    return output_spec([merge_dims(batch, target_batch, "Dimensions must be equal, but are {a} and {b}")],
                       dtypes.bool)


@register_op("InTopKV2", "InTopKV2", inputs=("predictions", "targets", "k"), shape=_in_top_k_shape,
             same_dtype=(1, 2), allowed=(dtypes.int32, dtypes.int64), portable=math_kernels.in_top_k)
def in_top_k_kernel(predictions: Any, targets: Any, k: Any) -> Any:
    """out_i = predictions[i, targets_i] is finite and fewer than k entries of row i are greater than it."""
    classes = predictions.shape[1]
    valid = (targets >= 0) & (targets < classes)
    safe_targets = np.where(valid, targets, 0).astype(np.int64)
    target_values = np.take_along_axis(predictions, safe_targets[:, None], axis=1)
    greater = np.sum(predictions > target_values, axis=1)
    return valid & np.isfinite(target_values[:, 0]) & (greater < int(k))


NotDifferentiable("InTopKV2")


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Any:
    """TF1 `tf.nn.in_top_k`: whether each target's prediction is among the top k of its row (ties count)."""
    with op_scope(name or "in_top_k"):
        dtype = getattr(predictions, "dtype", None)
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != dtypes.float32:
            raise TypeError(f"Input 'predictions' of 'InTopKV2' Op has type {dtypes.as_dtype(dtype).base_dtype.name} "
                            "that does not match expected type of float32.")
        return apply_op("InTopKV2", [predictions, targets, k], name=name)


def in_top_k_v2(targets: Any, predictions: Any, k: Any, name: str | None = None) -> Any:
    """TF2 `tf.nn.in_top_k` / `tf.math.in_top_k`: the same, with targets first."""
    return in_top_k(predictions, targets, k, name)


# --- xw_plus_b --------------------------------------------------------------------------------------
def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Any:
    """TF1 `tf.nn.xw_plus_b`: matmul(x, weights) + biases (MatMul then BiasAdd, under `xw_plus_b`)."""
    with op_scope(name or "xw_plus_b") as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return bias_add(matmul_ops.matmul(x, weights), biases, name=scope or None)


__all__ = ["top_k", "TopKV2", "in_top_k", "in_top_k_v2", "xw_plus_b"]
