"""SparseTensors inside a tf.data pipeline: one `variant` component per sparse tensor, as TensorFlow encodes them.

A dataset element's SparseTensor travels as one scalar variant whose value is a `SparseValue` (its three arrays).
`SerializeSparse(out_type=variant)` makes that component from a SparseTensor (in a traced `map` function, in
`from_tensors` / `from_tensor_slices`); `DeserializeSparse` turns it back into the three tensors (after
`IteratorGetNext`, and for a traced function's arguments). Batching stacks sparse values as TensorFlow does: a
new leading index per row and, as dense shape, the batch size then the largest of each dimension; unbatching
cuts rows back out, each keeping the batch's dense shape (less its first dimension). TensorFlow's variant is a
vector of three serialized tensors per element; webflow's is one Python object, so the variant has shape [].
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.flat_arrays import from_flat
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.registry import output_spec, register_op


class SparseValue:
    """One SparseTensor as a scalar variant value: its entries as Python lists (index tuples, values) and its dense
    shape; lists rather than arrays so that the same code runs with and without NumPy (Pyodide)."""

    dtype = dtypes.variant
    shape = ()
    ndim = 0

    def __init__(self, index_rows: list, value_list: list, dense_shape: list):
        self.index_rows, self.value_list, self.dense_shape = index_rows, value_list, dense_shape

    @classmethod
    def from_arrays(cls, indices: Any, values: Any, dense_shape: Any) -> SparseValue:
        shape = [int(d) for d in backend_values.flat_list(dense_shape)]
        flat = [int(i) for i in backend_values.flat_list(indices)]
        value_list = backend_values.flat_list(values)
        rank = len(shape)
        rows = [tuple(flat[k * rank:(k + 1) * rank]) for k in range(len(value_list))]
        return cls(rows, value_list, shape)

    def arrays(self, dtype: Any) -> list:
        """[indices (int64 [N, rank]), values (dtype [N]), dense_shape (int64 [rank])]."""
        count, rank = len(self.value_list), len(self.dense_shape)
        return [from_flat([i for row in self.index_rows for i in row], (count, rank), dtypes.int64),
                from_flat(list(self.value_list), (count,), dtype), from_flat(list(self.dense_shape), (rank,),
                                                                             dtypes.int64)]

    @property
    def rank(self) -> int:
        return len(self.dense_shape)

    def __repr__(self) -> str:
        return f"<SparseValue dense_shape={self.dense_shape} nnz={len(self.value_list)}>"


def is_sparse(value: Any) -> bool:
    return isinstance(value, SparseValue)


def stack(rows: list) -> SparseValue:
    """Rows of one rank as one sparse value with a leading batch index; dense shape [len(rows), max of each dim]."""
    ranks = {row.rank for row in rows}
    if len(ranks) > 1:
        raise InvalidArgumentError(None, None, "Inputs must have identical ranks to be batched as a SparseTensor, "
                                   f"got ranks {sorted(ranks)}")
    rank = ranks.pop()
    largest = [max(row.dense_shape[axis] for row in rows) for axis in range(rank)]
    index_rows = [(i,) + index for i, row in enumerate(rows) for index in row.index_rows]
    return SparseValue(index_rows, [v for row in rows for v in row.value_list], [len(rows)] + largest)


def row(value: SparseValue, index: int) -> SparseValue:
    """Row `index` of a batched sparse value (rank >= 1): its entries, the first index dropped."""
    if value.rank == 0:
        raise InvalidArgumentError(None, None, "Cannot slice a scalar SparseTensor")
    picked = [k for k, entry in enumerate(value.index_rows) if entry[0] == index]
    return SparseValue([value.index_rows[k][1:] for k in picked], [value.value_list[k] for k in picked],
                       value.dense_shape[1:])


def leading_dim(value: SparseValue) -> int:
    if value.rank == 0:
        raise InvalidArgumentError(None, None, "Cannot unbatch a scalar SparseTensor")
    return value.dense_shape[0]


# --- the two ops ----------------------------------------------------------------------------------------------------
def _serialize_shape(inputs: list, attrs: dict) -> tuple:
    if attrs.get("out_type", dtypes.string) != dtypes.variant:
        raise ValueError("webflow's SerializeSparse makes only out_type=tf.variant (a tf.data component)")
    return output_spec([], dtypes.variant)


def serialize_sparse_kernel(sparse_indices: Any, sparse_values: Any, sparse_shape: Any, *, out_type: Any = None,
                            T: Any = None) -> Any:  # noqa: N803
    """The SparseTensor (indices, values, dense_shape) as one scalar variant (a tf.data element component)."""
    return SparseValue.from_arrays(sparse_indices, sparse_values, sparse_shape)


# the kernels use no NumPy (lists, then backend arrays): the same function serves Pyodide
register_op("SerializeSparse", inputs=("sparse_indices", "sparse_values", "sparse_shape"), shape=_serialize_shape,
            portable=serialize_sparse_kernel)(serialize_sparse_kernel)


def _deserialize_shape(inputs: list, attrs: dict) -> list:
    """The rank is not in the variant's type: callers set it from the element_spec (as TensorFlow's do)."""
    return [output_spec(TensorShape([None, None]), dtypes.int64), output_spec([None], attrs["dtype"]),
            output_spec([None], dtypes.int64)]


def deserialize_sparse_kernel(serialized_sparse: Any, *, dtype: Any, Tserialized: Any = None) -> list:  # noqa: N803
    """The three tensors of the SparseTensor a variant holds (SerializeSparse's inverse)."""
    value = serialized_sparse
    if not is_sparse(value) and backend_values.shape_of(value) == ():
        value = backend_values.flat_list(value)[0]  # a 0-d object array holding the SparseValue
    if not is_sparse(value):
        raise InvalidArgumentError(None, None, f"Expected a SparseTensor variant, got {type(value).__name__}")
    return value.arrays(dtype)


register_op("DeserializeSparse", inputs=("serialized_sparse",), shape=_deserialize_shape,
            portable=deserialize_sparse_kernel)(deserialize_sparse_kernel)


__all__ = ["SparseValue", "is_sparse", "stack", "row", "leading_dim"]
