"""Sparse tensors to dense and back in order: SparseToDense (`tf.sparse.to_dense`, TF1's `tf.sparse_tensor_to_dense`
and `tf.sparse_to_dense`) and SparseReorder (`tf.sparse.reorder`). A SparseTensor (framework/sparse_tensor.py)
is three tensors: int64 indices [N, rank], values [N] and dense_shape [rank].
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.flat_arrays import from_flat
from webflow.backends.arrays.numpy_arrays import np
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from webflow.ops.array_ops import shape as shape_of
from webflow.ops.array_ops import zeros_like
from webflow.ops.constants import constant
from webflow.ops.convert import constant_value, constant_value_as_shape, convert_to_tensor, is_tensor_like
from webflow.ops.gather_ops import gather_nd_v2, gather_v2
from webflow.ops.manip_ops import invert_permutation
from webflow.ops.registry import apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.sequence_ops import range as range_op
from webflow.ops.sum_mean_ops import reduce_sum

_INDEX_TYPES = (dtypes.int32, dtypes.int64)


def _text(index: Any) -> str:
    return "[" + ",".join(str(int(i)) for i in index) + "]"


# --- SparseToDense ----------------------------------------------------------------------------------------------
def _sparse_to_dense_shape(inputs: list, attrs: dict) -> tuple:
    known = constant_value(inputs[1])
    if known is not None:
        return output_spec([int(d) for d in backend_values.flat_list(known)], inputs[2].dtype)
    return output_spec(constant_value_as_shape(inputs[1]), inputs[2].dtype)  # (partly known: TF's shape function)


def sparse_to_dense_portable(sparse_indices: Any, output_shape: Any, sparse_values: Any, default_value: Any,
                             validate_indices: bool = True, T: Any = None, Tindices: Any = None) -> Any:  # noqa: N803
    """SparseToDense without NumPy: the same checks, on flat lists."""
    shape = [int(d) for d in backend_values.flat_list(output_shape)]
    flat_indices = [int(i) for i in backend_values.flat_list(sparse_indices)]
    rank = backend_values.shape_of(sparse_indices)[1] if len(backend_values.shape_of(sparse_indices)) == 2 else 1
    indices = [tuple(flat_indices[k:k + rank]) for k in range(0, len(flat_indices), rank)]
    values = backend_values.flat_list(sparse_values)
    if len(backend_values.shape_of(sparse_values)) > 1 or (
            backend_values.shape_of(sparse_values) and len(values) != len(indices)):
        raise InvalidArgumentError(None, None, f"sparse_values has incorrect shape "
                                               f"{_text(backend_values.shape_of(sparse_values))}, should be [] or "
                                               f"[{len(indices)}]")
    if rank != len(shape):
        raise InvalidArgumentError(None, None, f"output_shape has incorrect number of elements: {len(shape)} should "
                                               f"be: {rank}")
    _check_index_tuples(indices, shape, validate_indices)
    dense = [backend_values.flat_list(default_value)[0]] * math.prod(shape)
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    for n, index in enumerate(indices):
        dense[sum(i * s for i, s in zip(index, strides))] = values[n] if len(values) == len(indices) else values[0]
    return from_flat(dense, shape, sparse_values.dtype)


def _check_index_tuples(indices: list, shape: list, validate: bool) -> None:
    for i, index in enumerate(indices):
        outside = any(v < 0 or v >= d for v, d in zip(index, shape))
        if validate:
            if outside:
                raise InvalidArgumentError(None, None, f"indices[{i}] = {_text(index)} is out of bounds: need 0 <= "
                                                       f"index < {_text(shape)}")
            if i and index == indices[i - 1]:
                raise InvalidArgumentError(None, None, f"indices[{i}] = {_text(index)} is repeated")
            if i and index < indices[i - 1]:
                raise InvalidArgumentError(None, None, f"indices[{i}] = {_text(index)} is out of order. Many sparse "
                                                       "ops require sorted indices.\n    Use `tf.sparse.reorder` to "
                                                       "create a correctly ordered copy.\n\n")
        elif outside:
            raise InvalidArgumentError(None, None, f"Indices are not valid (out of bounds).  Shape: {_text(shape)}")


@register_op("SparseToDense", "SparseToDense",
             inputs=("sparse_indices", "output_shape", "sparse_values", "default_value"), shape=_sparse_to_dense_shape,
             portable=sparse_to_dense_portable)
def sparse_to_dense_kernel(sparse_indices: Any, output_shape: Any, sparse_values: Any, default_value: Any,
                           validate_indices: bool = True, T: Any = None, Tindices: Any = None) -> Any:  # noqa: N803
    """dense = default_value everywhere, then dense[sparse_indices[i]] = sparse_values[i] (or the scalar value)."""
    shape = np.asarray(output_shape, np.int64).reshape(-1)
    indices = np.asarray(sparse_indices, np.int64)
    indices = indices.reshape(-1, 1) if indices.ndim < 2 else indices
    values = np.asarray(sparse_values)
    if values.ndim > 1 or (values.ndim == 1 and values.shape[0] != indices.shape[0]):
        raise InvalidArgumentError(None, None, f"sparse_values has incorrect shape {_text(values.shape)}, should be "
                                               f"[] or [{indices.shape[0]}]")
    if indices.shape[1] != shape.size:
        raise InvalidArgumentError(None, None, f"output_shape has incorrect number of elements: {shape.size} should "
                                               f"be: {indices.shape[1]}")
    _check_index_tuples([tuple(i) for i in indices.tolist()], shape.tolist(), validate_indices)
    dense = np.full(tuple(shape.tolist()), np.asarray(default_value)[()], dtype=values.dtype)
    if indices.shape[0]:
        dense[tuple(indices.T)] = values
    return dense


@register_gradient("SparseToDense")
def _sparse_to_dense_grad(op: Any, grad: Any) -> list:
    """d/dvalues = grad at the indices; d/ddefault = sum(grad) - the part the values took."""
    indices, output_shape = op.inputs[0], op.inputs[1]
    values_grad = gather_nd_v2(grad, indices)
    return [zeros_like(indices), zeros_like(output_shape), values_grad, reduce_sum(grad) - reduce_sum(values_grad)]


def _default_for(dtype: Any) -> Any:
    return constant(b"" if dtype == dtypes.string else 0, dtype=dtype, name="zeros")


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any, default_value: Any = 0,
                    validate_indices: bool = True, name: str | None = None) -> Any:
    """TF1's `tf.sparse_to_dense`: a dense tensor from indices, shape and values (Python values become Consts named
    by the inputs, inside the op's scope: "SparseToDense/default_value", as TensorFlow's op builder names them)."""
    with op_scope(name or "SparseToDense") as scope:
        indices = convert_to_tensor(sparse_indices, name="sparse_indices")
        if indices.dtype not in _INDEX_TYPES:
            indices = convert_to_tensor(sparse_indices, dtype=dtypes.int32, name="sparse_indices")
        shape = convert_to_tensor(output_shape, dtype=indices.dtype, name="output_shape")
        values = convert_to_tensor(sparse_values, name="sparse_values")
        default = convert_to_tensor(default_value, dtype=values.dtype, name="default_value")
        return apply_op("SparseToDense", [indices, shape, values, default],
                        {"validate_indices": bool(validate_indices)}, name=scope or None)


def _as_sparse(sp_input: Any) -> SparseTensor:
    if isinstance(sp_input, SparseTensorValue):
        return SparseTensor(convert_to_tensor(sp_input.indices, dtype=dtypes.int64), convert_to_tensor(
            sp_input.values), convert_to_tensor(sp_input.dense_shape, dtype=dtypes.int64))
    if not isinstance(sp_input, SparseTensor):
        raise TypeError("Input must be a SparseTensor.")
    if is_tensor_like(sp_input.values):
        return sp_input
    # a SparseTensor made of Python lists (framework/ cannot convert them): converted as TensorFlow's constructor does
    with op_scope("SparseTensor"):
        return SparseTensor(convert_to_tensor(sp_input.indices, dtype=dtypes.int64, name="indices"),
                            convert_to_tensor(sp_input.values, name="values"),
                            convert_to_tensor(sp_input.dense_shape, dtype=dtypes.int64, name="dense_shape"))


def sparse_tensor_to_dense(sp_input: Any, default_value: Any = None, validate_indices: bool = True,
                           name: str | None = None) -> Any:
    """`tf.sparse.to_dense` (TF1: `tf.sparse_tensor_to_dense`): the dense tensor, `default_value` (zero) elsewhere."""
    sp_input = _as_sparse(sp_input)
    default = _default_for(sp_input.dtype) if default_value is None else convert_to_tensor(
        default_value, dtype=sp_input.dtype)
    return apply_op("SparseToDense", [sp_input.indices, sp_input.dense_shape, sp_input.values, default],
                    {"validate_indices": bool(validate_indices)}, name=name)


# --- SparseReorder ----------------------------------------------------------------------------------------------
def _sparse_reorder_shape(inputs: list, attrs: dict) -> list:
    return [output_spec(inputs[0].shape, dtypes.int64), output_spec(inputs[1].shape, inputs[1].dtype)]


def sparse_reorder_portable(input_indices: Any, input_values: Any, input_shape: Any, T: Any = None) -> list:  # noqa: N803
    """SparseReorder without NumPy: a stable sort of the entries by their index tuples."""
    shape = backend_values.shape_of(input_indices)
    rank = shape[1] if len(shape) == 2 else 1
    flat = [int(i) for i in backend_values.flat_list(input_indices)]
    rows = [tuple(flat[k:k + rank]) for k in range(0, len(flat), rank)]
    values = backend_values.flat_list(input_values)
    order = sorted(range(len(rows)), key=lambda n: rows[n])
    return [from_flat([v for n in order for v in rows[n]], list(shape), dtypes.int64),
            from_flat([values[n] for n in order], [len(order)], input_values.dtype)]


@register_op("SparseReorder", "SparseReorder", inputs=("input_indices", "input_values", "input_shape"),
             shape=_sparse_reorder_shape, portable=sparse_reorder_portable)
def sparse_reorder_kernel(input_indices: Any, input_values: Any, input_shape: Any, T: Any = None) -> list:  # noqa: N803
    """The entries sorted into row-major (lexicographic) order of their indices; equal indices keep their order."""
    indices = np.asarray(input_indices, np.int64)
    shape = np.asarray(input_shape, np.int64)
    if indices.shape[0] == 0:
        return [indices.reshape(0, shape.size), np.asarray(input_values)]
    order = np.lexsort(indices.T[::-1])
    return [indices[order], np.asarray(input_values)[order]]


@register_gradient("SparseReorder")
def _sparse_reorder_grad(op: Any, output_indices_grad: Any, output_values_grad: Any) -> list:
    """d/dvalues = the output's value gradients put back in the input's order (the inverse permutation)."""
    indices, shape = op.inputs[0], op.inputs[2]
    entries = range_op(0, shape_of(indices, out_type=dtypes.int64)[0], dtype=dtypes.int64)
    order = apply_op("SparseReorder", [indices, entries, shape])[1]
    return [None, gather_v2(output_values_grad, invert_permutation(order)), None]


def sparse_reorder(sp_input: Any, name: str | None = None) -> SparseTensor:
    """`tf.sparse.reorder`: the same SparseTensor with its entries in row-major order."""
    sp_input = _as_sparse(sp_input)
    indices, values = apply_op("SparseReorder", [sp_input.indices, sp_input.values, sp_input.dense_shape], name=name)
    return SparseTensor(indices, values, sp_input.dense_shape)


__all__ = ["SparseTensor", "sparse_reorder", "sparse_tensor_to_dense", "sparse_to_dense"]
