"""The op-building side of framework/ragged_tensor.py's RaggedTensor, composed from existing ops (graph and eager):

- `from_sparse`: row_splits = [0, cumsum(count of each row id)] of a 2-D SparseTensor's indices[:, 0];
- `to_tensor`: a [nrows, longest row] grid where cell (i, j) gathers values[row_splits[i] + j], or the default
  past the row's end (an extra last slot of the gathered vector holds it);
- `to_sparse`: the grid's (i, j) pairs where j < row length, with the values.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework import ragged_tensor as ragged
from webflow.framework.ragged_tensor import RaggedTensor
from webflow.framework.sparse_tensor import SparseTensor
from webflow.ops import array_ops, concat_ops, gather_ops, logic_ops, manip_ops, math_ops, reduction_ops
from webflow.ops.binary_math_ops import maximum
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import op_scope
from webflow.ops.sequence_ops import range as range_op


def from_row_splits(values: Any, row_splits: Any, name: str | None = None, validate: bool = True) -> RaggedTensor:
    with op_scope(name or "RaggedFromRowSplits"):
        values = convert_to_tensor(values, name="values")
        row_splits = convert_to_tensor(row_splits, dtype=dtypes.int64, name="row_splits")
    return RaggedTensor(values, row_splits)


def constant(pylist: list, dtype: Any = None, ragged_rank: Any = None, name: str | None = None) -> RaggedTensor:
    """`tf.ragged.constant` for a list of rows of scalars (one ragged dimension)."""
    if ragged_rank not in (None, 1) or any(isinstance(v, (list, tuple)) for row in pylist for v in row):
        raise NotImplementedError("webflow's tf.ragged.constant takes a list of rows of scalars (ragged_rank 1)")
    splits = [0]
    for row in pylist:
        splits.append(splits[-1] + len(row))
    values = [v for row in pylist for v in row]
    with op_scope(name or "RaggedConstant"):
        flat = convert_to_tensor(values, dtype=dtype if values or dtype is not None else dtypes.float32,
                                 name="values")
        return RaggedTensor(flat, convert_to_tensor(splits, dtype=dtypes.int64, name="row_splits"))


def from_sparse(sparse: SparseTensor, name: str | None = None) -> RaggedTensor:
    """Rows of a 2-D SparseTensor whose indices are in row-major order."""
    with op_scope(name or "RaggedFromSparse"):
        row_ids = sparse.indices[:, 0]
        counts = array_ops.unsorted_segment_sum(array_ops.ones_like(row_ids), row_ids, sparse.dense_shape[0])
        zero = convert_to_tensor([0], dtype=dtypes.int64)
        row_splits = concat_ops.concat([zero, reduction_ops.cumsum(counts)], 0)
    return RaggedTensor(sparse.values, row_splits)


def nrows(rt: RaggedTensor, out_type: Any = None, name: str | None = None) -> Any:
    with op_scope(name or "RaggedNRows"):
        count = array_ops.shape(rt.row_splits, out_type=dtypes.int64)[0] - 1
        return count if out_type is None else math_ops.cast(count, out_type)


def row_lengths(rt: RaggedTensor, name: str | None = None) -> Any:
    with op_scope(name or "RaggedRowLengths"):
        return math_ops.subtract(rt.row_splits[1:], rt.row_splits[:-1])


def _grid(rt: RaggedTensor) -> tuple:
    """(positions of cell (i, j) in values, whether j is inside row i, column numbers) of the padded grid."""
    lengths = row_lengths(rt)
    zero = convert_to_tensor([0], dtype=dtypes.int64)  # (an empty tensor has no max: 0 columns then)
    width = maximum(reduction_ops.reduce_max(concat_ops.concat([lengths, zero], 0)), 0)
    columns = range_op(0, width, 1, dtype=dtypes.int64)
    positions = manip_ops.expand_dims(rt.row_splits[:-1], 1) + manip_ops.expand_dims(columns, 0)
    inside = logic_ops.less(manip_ops.expand_dims(columns, 0), manip_ops.expand_dims(lengths, 1))
    return positions, inside, width


def to_tensor(rt: RaggedTensor, default_value: Any = None, name: str | None = None) -> Any:
    with op_scope(name or "RaggedToTensor"):
        if default_value is None:
            default_value = b"" if rt.dtype.base_dtype is dtypes.string else 0
        default = convert_to_tensor(default_value, dtype=rt.dtype.base_dtype, name="default_value")
        positions, inside, _ = _grid(rt)
        count = array_ops.shape(rt.values, out_type=dtypes.int64)[0]
        padded = concat_ops.concat([rt.values, manip_ops.expand_dims(default, 0)], 0)
        safe = logic_ops.where_v2(inside, positions, count)  # cells past a row's end read the default slot
        return gather_ops.gather(padded, safe)


def to_sparse(rt: RaggedTensor, name: str | None = None) -> SparseTensor:
    with op_scope(name or "RaggedToSparse"):
        positions, inside, width = _grid(rt)
        rows = nrows(rt)
        row_grid = manip_ops.expand_dims(range_op(0, rows, 1, dtype=dtypes.int64), 1) + 0 * positions
        column_grid = positions - manip_ops.expand_dims(rt.row_splits[:-1], 1)
        pairs = concat_ops.stack([row_grid, column_grid], axis=2)
        indices = gather_ops.boolean_mask(pairs, inside)
        return SparseTensor(indices, rt.values, concat_ops.stack([rows, width]))


ragged.install_ops({"from_row_splits": from_row_splits, "nrows": nrows, "row_lengths": row_lengths,
                    "to_tensor": to_tensor, "to_sparse": to_sparse})

__all__ = ["constant", "from_row_splits", "from_sparse", "nrows", "row_lengths", "to_tensor", "to_sparse"]
