"""SparseTensor features, converted at the edge: the columns here keep categorical ids dense (`[batch, k]`, -1 for
"no id"), so a `tf.sparse.SparseTensor` (or a `SparseTensorValue`) feature becomes that dense form on reading.

A sparse feature's missing entries are filled with the value a dense feature uses for "nothing here" (-1 for
integers, "" for strings), which the categorical columns drop as TensorFlow drops them; the dense outputs
(indicator counts, embedding combiners, linear weights) are then the ones TF computes from the sparse ids.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.sparse_tensor import SparseTensor, SparseTensorValue


def is_sparse(value: Any) -> bool:
    return isinstance(value, (SparseTensor, SparseTensorValue))


def as_sparse(value: Any) -> SparseTensor:
    """A SparseTensor of tensors (int64 indices and dense_shape) from a SparseTensor or a SparseTensorValue."""
    from webflow.ops.convert import convert_to_tensor
    return SparseTensor(convert_to_tensor(value.indices, dtype=dtypes.int64),
                        convert_to_tensor(value.values),
                        convert_to_tensor(value.dense_shape, dtype=dtypes.int64))


def missing_marker(dtype: Any) -> Any:
    """What marks "no value" in a dense categorical feature: "" for strings, -1 for integers."""
    return "" if dtypes.as_dtype(dtype) == dtypes.string else -1


def densify(value: Any, default: Any = None) -> Any:
    """The dense tensor of a sparse feature, `default` (the "no value" marker when None) where it has no entry."""
    from webflow.ops.sparse_ops import sparse_tensor_to_dense
    sparse = as_sparse(value)
    fill = missing_marker(sparse.dtype) if default is None else default
    return sparse_tensor_to_dense(sparse, default_value=fill)


def dense_feature(value: Any) -> Any:
    """A categorical (or weight) feature as a dense tensor: sparse ones densified, dense ones as they are."""
    return densify(value) if is_sparse(value) else value


def check_not_sparse(value: Any, key: str) -> None:
    """TF's refusal of a SparseTensor for a numeric column (and a bucketized column over it)."""
    if is_sparse(value):
        raise ValueError(f"The corresponding Tensor of numerical column must be a Tensor. SparseTensor is not "
                         f"supported. key: {key}")


def entry_mask(value: Any) -> Any:
    """int64 [batch, width]: 1 where the sparse feature has an entry, 0 elsewhere (what sequence lengths count)."""
    from webflow.ops.constants import constant
    from webflow.ops.sparse_ops import sparse_to_dense
    sparse = as_sparse(value)
    return sparse_to_dense(sparse.indices, sparse.dense_shape, constant(1, dtypes.int64),
                           constant(0, dtypes.int64))
