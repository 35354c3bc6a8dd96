"""SparseTensor inputs of `fit` / `evaluate` / `predict` (DenseFeatures' categorical features), batched by rows.

tf_keras hands data holding a SparseTensor to its CompositeTensorDataAdapter, `from_tensor_slices(data)
.shuffle(n).batch(batch_size)` with a new iterator each epoch (the order: data_order.py, `composite=True`). A
batch of a SparseTensor is its rows `index` (in that order) renumbered 0, 1, ...: each row's entries keep their
order, and the batch's dense_shape is [len(index), *dense_shape[1:]], as batching the sliced rows gives.

    rows 2, 0 of  indices [[0, 0], [0, 1], [2, 0]]  values [a, b, c]  dense_shape [3, 2]
               -> indices [[0, 0], [1, 0], [1, 1]]  values [c, a, b]  dense_shape [2, 2]
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework.sparse_tensor import SparseTensor
from webflow.ops.control_flow_ops import flatten
from webflow.ops.convert import convert_to_tensor


def has_sparse(*data: Any) -> bool:
    """Whether any leaf of x or y is a SparseTensor (tf_keras's CompositeTensorDataAdapter.can_handle)."""
    return any(isinstance(leaf, SparseTensor) for leaf in flatten(list(data)))


def check_splittable(x: Any, y: Any) -> None:
    """`validation_split` slices arrays only: tf_keras's ValueError (train_validation_split) for a SparseTensor."""
    unsplittable = [type(leaf) for leaf in flatten([x, y]) if isinstance(leaf, SparseTensor)]
    if unsplittable:
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, found following types "
                         f"in the input: {unsplittable}")


def row_count(data: Any) -> int:
    """The number of examples in an array or a SparseTensor (its dense_shape's first dimension)."""
    if isinstance(data, SparseTensor):
        return int(_numpy(data.dense_shape)[0])
    return len(data)


def take_rows(data: Any, index: Any) -> Any:
    """Rows `index` (a slice or an index vector) of an array, or of a SparseTensor as the module shows."""
    if not isinstance(data, SparseTensor):
        return data[index]
    indices, values, dense_shape = (_numpy(part) for part in (data.indices, data.values, data.dense_shape))
    rows = np.arange(int(dense_shape[0]))[index] if isinstance(index, slice) else np.asarray(index)
    by_row = np.argsort(indices[:, 0], kind="stable")   # entry numbers grouped by row, in their order within it
    starts = np.searchsorted(indices[by_row, 0], rows, side="left")
    stops = np.searchsorted(indices[by_row, 0], rows, side="right")
    picked = [by_row[start:stop] for start, stop in zip(starts, stops)]
    taken = np.concatenate(picked) if picked else np.zeros([0], np.int64)
    new_rows = np.repeat(np.arange(len(rows), dtype=np.int64), [len(entries) for entries in picked])
    batch_indices = np.concatenate([new_rows[:, None], indices[taken, 1:]], axis=1).astype(np.int64)
    batch_shape = np.asarray([len(rows), *dense_shape[1:]], np.int64)
    return SparseTensor(*(convert_to_tensor(part) for part in (batch_indices, values[taken], batch_shape)))


def _numpy(value: Any) -> Any:
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


__all__ = ["check_splittable", "has_sparse", "row_count", "take_rows"]
