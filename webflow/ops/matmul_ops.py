"""Matrix products: MatMul (two matrices, optionally transposed) and BatchMatMulV2 (stacks of matrices whose
batch dimensions broadcast), both behind `tf.matmul`. One stanza per op (shape rule, NumPy kernel with the
math in its docstring, gradient rule); the wrapper picks the op from the inputs' ranks.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import gemm as c_gemm
from webflow.backends.c import parallel
from webflow.framework import dtypes
from webflow.framework.scopes import name_scope_v1
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.broadcast_ops import unbroadcast
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.registry import ShapeError, apply_op, output_spec, register_gradient, register_op
from webflow.ops.shapes import merge_dims

NUMBERS = dtypes.NUMERIC


# --- MatMul -----------------------------------------------------------------------------------------
def _matmul_shape(inputs: list, attrs: dict) -> tuple:
    a, b = inputs
    for tensor in (a, b):
        if tensor.shape.rank is not None and tensor.shape.rank != 2:
            raise ShapeError(f"Shape must be rank 2 but is rank {tensor.shape.rank}")
    a_dims = a.shape.as_tuple() or (None, None)
    b_dims = b.shape.as_tuple() or (None, None)
    rows, inner_a = (a_dims[1], a_dims[0]) if attrs["transpose_a"] else a_dims
    inner_b, cols = (b_dims[1], b_dims[0]) if attrs["transpose_b"] else b_dims
    merge_dims(inner_a, inner_b, "Dimensions must be equal, but are {a} and {b}")
    return output_spec((rows, cols), a.dtype.base_dtype)


@register_op("MatMul", "MatMul", inputs=("a", "b"), shape=_matmul_shape, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_gemm.matmul)
def matmul_kernel(a: Any, b: Any, *, transpose_a: bool, transpose_b: bool) -> Any:
    """C = op(A) @ op(B), op = transpose if asked."""
    a, b = (a.T if transpose_a else a), (b.T if transpose_b else b)
    low, high = parallel.ONE_BLAS_THREAD
    if a.ndim == 2 and b.ndim == 2 and low <= a.shape[0] * a.shape[1] * b.shape[1] < high:
        return parallel.with_one_blas_thread(np.matmul, a, b)  # small: OpenBLAS's threads cost more than they give
    return np.matmul(a, b)


@register_gradient("MatMul")
def _matmul_grad(op: Any, grad: Any) -> list:
    """For C = A B: dA = G B^T, dB = A^T G (transposes follow the forward flags)."""
    a, b = op.inputs
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not t_a and not t_b:
        return [matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)]
    if not t_a and t_b:
        return [matmul(grad, b), matmul(grad, a, transpose_a=True)]
    if t_a and not t_b:
        return [matmul(b, grad, transpose_b=True), matmul(a, grad)]
    return [matmul(b, grad, transpose_a=True, transpose_b=True), matmul(grad, a, transpose_a=True, transpose_b=True)]


def _batch_matmul_shape(inputs: list, attrs: dict) -> tuple:
    from webflow.ops.shapes import broadcast_shapes

    a, b = inputs
    if a.shape.rank is None or b.shape.rank is None:
        return output_spec(None, a.dtype.base_dtype)
    if a.shape.rank < 2 or b.shape.rank < 2:
        raise ShapeError(f"In[0] and In[1] must have rank >= 2, but are {a.shape.rank} and {b.shape.rank}")
    a_dims, b_dims = a.shape.as_tuple(), b.shape.as_tuple()
    rows, inner_a = (a_dims[-1], a_dims[-2]) if attrs["adj_x"] else a_dims[-2:]
    inner_b, cols = (b_dims[-1], b_dims[-2]) if attrs["adj_y"] else b_dims[-2:]
    merge_dims(inner_a, inner_b, "Dimensions must be equal, but are {a} and {b}")
    batch = broadcast_shapes(TensorShape(a_dims[:-2]), TensorShape(b_dims[:-2]))
    return output_spec(batch.concatenate((rows, cols)), a.dtype.base_dtype)


@register_op("BatchMatMulV2", "MatMul", inputs=("x", "y"), shape=_batch_matmul_shape, same_dtype=(0, 1),
             allowed=NUMBERS, c=c_gemm.batch_matmul)
def batch_matmul_kernel(x: Any, y: Any, *, adj_x: bool, adj_y: bool) -> Any:
    """C[..] = op(A[..]) @ op(B[..]), batch dims broadcasting."""
    return np.matmul(np.swapaxes(x, -1, -2) if adj_x else x, np.swapaxes(y, -1, -2) if adj_y else y)


@register_gradient("BatchMatMulV2")
def _batch_matmul_grad(op: Any, grad: Any) -> list:
    """As MatMul per batch entry, then summed over broadcast batch dims."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x:
        grad_x = matmul(grad, y, adjoint_b=not adj_y) if not adj_y else matmul(grad, y)
    else:
        grad_x = matmul(y, grad, adjoint_b=True) if not adj_y else matmul(y, grad, adjoint_a=True, adjoint_b=True)
    if not adj_y:
        grad_y = matmul(x, grad, adjoint_a=True) if not adj_x else matmul(x, grad)
    else:
        grad_y = matmul(grad, x, adjoint_a=True) if not adj_x else matmul(grad, x, adjoint_a=True, adjoint_b=True)
    return [unbroadcast_batch(grad_x, x), unbroadcast_batch(grad_y, y)]


def unbroadcast_batch(grad: Any, x: Any) -> Any:
    return unbroadcast(grad, x)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type: Any = None, name: str | None = None) -> Any:
    """Matrix product; rank > 2 inputs are batches (BatchMatMulV2), as `tf.matmul`."""
    transpose_a = transpose_a or adjoint_a
    transpose_b = transpose_b or adjoint_b
    with name_scope_v1(name, "MatMul", [a, b]) as scope:  # Python values become MatMul/a, MatMul/b
        a = a if is_tensor_like(a) else convert_to_tensor(a, name="a")
        b = b if is_tensor_like(b) else convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        if (a.shape.rank, b.shape.rank) == (2, 2):
            return apply_op("MatMul", [a, b], {"transpose_a": transpose_a, "transpose_b": transpose_b},
                            name=scope or None)
        return apply_op("BatchMatMulV2", [a, b], {"adj_x": transpose_a, "adj_y": transpose_b}, name=scope or None)
