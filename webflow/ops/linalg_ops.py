"""Linear-algebra ops: QR, diagonals, identity matrices, matrix transpose (used by the orthogonal and
identity initializers). One stanza per op, TensorFlow's op types and names.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import index_kernels
from webflow.framework import context, dtypes
from webflow.ops import array_ops, concat_ops
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.shapes import require_rank_at_least


# --- Qr ------------------------------------------------------------------------------------------
def _qr_shape(inputs: list, attrs: dict) -> list:
    x = inputs[0]
    require_rank_at_least(x, 2, "Qr")
    if x.shape.rank is None:
        return [output_spec(None, x.dtype.base_dtype)] * 2
    *batch, rows, cols = x.shape.as_tuple()
    inner = cols if rows is None or cols is None else min(rows, cols)
    if attrs["full_matrices"]:
        return [output_spec(batch + [rows, rows], x.dtype), output_spec(batch + [rows, cols], x.dtype)]
    return [output_spec(batch + [rows, inner], x.dtype), output_spec(batch + [inner, cols], x.dtype)]


@register_op("Qr", "Qr", inputs=("input",), shape=_qr_shape, allowed=dtypes.FLOATING)
def qr_kernel(x: Any, *, full_matrices: bool) -> list:
    """A = Q R with orthonormal columns of Q and upper-triangular R (per matrix of a batch)."""
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return [q.astype(x.dtype), r.astype(x.dtype)]


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> list:  # noqa: A002
    return apply_op("Qr", [input], {"full_matrices": full_matrices}, name=name)


@register_gradient("Qr")
def _qr_grad(op: Any, dq: Any, dr: Any) -> Any:
    """TensorFlow's rule (linalg_grad.py _QrGrad, arXiv:2009.10071), for static matrix shapes.

    rows >= cols (reduced): with qdq = Q^T dQ, rdr = R dR^T and L = tril(qdq - qdq^T + rdr - rdr^T),
    dA = Q (dR + L R^-T) + (dQ - Q qdq) R^-T. rows < cols: A = [X, Y], R = [U, V] reduce to the square case
    (dX from Q, U and dQ + Y dV^T; dY = Q dV). Not for full_matrices with rows > cols, as in TF.
    """
    from webflow.ops.matmul_ops import matmul

    q, r = op.outputs
    dims = r.shape.as_list() if r.shape.rank is not None else [None, None]
    if None in dims[-2:]:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    rows, cols = dims[-2:]
    if rows > cols:  # R is rows x cols with rows > cols only for full_matrices=True
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. "
                                  f"Received r.shape={r.shape} with nrows={rows} and ncols={cols}.")
    if rows == cols:
        return _qr_grad_square_or_deep(q, r, dq, dr)
    y = op.inputs[0][..., :, rows:]
    dv = dr[..., :, rows:]
    dx = _qr_grad_square_or_deep(q, r[..., :, :rows], dq + matmul(y, dv, transpose_b=True), dr[..., :, :rows])
    return concat_ops.concat([dx, matmul(q, dv)], axis=-1)


def _qr_grad_square_or_deep(q: Any, r: Any, dq: Any, dr: Any) -> Any:
    from webflow.ops.matmul_ops import matmul

    qdq = matmul(q, dq, transpose_a=True)
    rdr = matmul(r, dr, transpose_b=True)
    tril = _lower_triangle(qdq - matrix_transpose(qdq) + rdr - matrix_transpose(rdr))
    grad_a = matmul(q, dr + _times_inverse_transpose(tril, r))
    return grad_a + _times_inverse_transpose(dq - matmul(q, qdq), r)


def _lower_triangle(x: Any) -> Any:
    """x with the entries above the main diagonal zeroed (TF's matrix_band_part(x, -1, 0)), static size n."""
    from webflow.ops.constants import constant

    n = x.shape.as_list()[-1]
    return x * constant([[1 if j <= i else 0 for j in range(n)] for i in range(n)], dtype=x.dtype.base_dtype)


def _times_inverse_transpose(x: Any, r: Any) -> Any:
    """x R^-T for an upper-triangular R of static size n (TF's _TriangularSolve): back substitution by columns,
    since y R^T = x gives y[:, i] = (x[:, i] - sum over j > i of y[:, j] R[i, j]) / R[i, i]."""
    from webflow.ops.manip_ops import expand_dims
    from webflow.ops.sum_mean_ops import reduce_sum

    n = r.shape.as_list()[-1]
    columns: list = [None] * n
    for i in reversed(range(n)):
        column = x[..., :, i]
        if i + 1 < n:
            later = concat_ops.stack(columns[i + 1:], axis=-1)
            column = column - reduce_sum(later * expand_dims(r[..., i, i + 1:], -2), axis=-1)
        columns[i] = column / r[..., i:i + 1, i]
    return concat_ops.stack(columns, axis=-1)


# --- DiagPart -------------------------------------------------------------------------------------
def _diag_part_shape(inputs: list, attrs: dict) -> tuple:
    x = inputs[0]
    if x.shape.rank is None:
        return output_spec(None, x.dtype.base_dtype)
    dims = x.shape.as_tuple()
    if len(dims) % 2 or not dims:
        raise ShapeError(f"Input must have even rank, got rank {len(dims)}")
    half = len(dims) // 2
    for a, b in zip(dims[:half], dims[half:]):
        if a is not None and b is not None and a != b:
            raise ShapeError(f"Dimensions must be equal, but are {a} and {b}")
    return output_spec([a if a is not None else b for a, b in zip(dims[:half], dims[half:])], x.dtype.base_dtype)


@register_op("DiagPart", "DiagPart", inputs=("input",), shape=_diag_part_shape, portable=index_kernels.diag_part)
def diag_part_kernel(x: Any) -> Any:
    """y[i...] = x[i..., i...] (the diagonal of a rank-2k tensor)."""
    half = x.ndim // 2
    size = int(math.prod(x.shape[:half])) if half else 1
    return np.diagonal(x.reshape(size, size)).reshape(x.shape[:half]).copy()


@register_gradient("DiagPart")
def _diag_part_grad(op: Any, grad: Any) -> Any:
    """dx = zeros with grad on the diagonal (rank-2 inputs)."""
    return matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad)


def diag_part(input: Any, name: str | None = None) -> Any:  # noqa: A002
    return apply_op("DiagPart", [input], name=name)


# --- MatrixSetDiagV3 (main diagonal) and eye --------------------------------------------------------
def _set_diag_shape(inputs: list, attrs: dict) -> tuple:
    x = inputs[0]
    require_rank_at_least(x, 2, "MatrixSetDiagV3")
    return output_spec(x.shape, x.dtype.base_dtype)


@register_op("MatrixSetDiagV3", "MatrixSetDiagV3", inputs=("input", "diagonal", "k"), shape=_set_diag_shape,
             same_dtype=(0, 1), portable=index_kernels.matrix_set_diag)
def matrix_set_diag_kernel(x: Any, diagonal: Any, k: Any, *, align: str = "RIGHT_LEFT") -> Any:
    """y = x with its main diagonal (k = 0) replaced by `diagonal` (per matrix of a batch)."""
    if int(k) != 0:
        raise ValueError("only the main diagonal (k=0) is supported")
    result = np.array(x)
    n = min(x.shape[-2], x.shape[-1])
    index = np.arange(n)
    result[..., index, index] = diagonal
    return result


@register_gradient("MatrixSetDiagV3")
def _set_diag_grad(op: Any, grad: Any) -> list:
    """dx = grad with a zero diagonal; d diagonal = the diagonal of grad."""
    return [matrix_set_diag(grad, array_ops.zeros_like(_main_diagonal(grad))), _main_diagonal(grad), None]


def _main_diagonal(x: Any) -> Any:
    from webflow.ops.indexing_ops import strided_slice  # noqa: F401 - keeps the module loaded

    n = min(x.shape.as_list()[-2:])
    return concat_ops.stack([x[..., i, i] for i in range(n)], axis=-1)


def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: int = 0) -> Any:  # noqa: A002
    graph = None if context.executing_eagerly() else context.get_default_graph()
    if graph is None:
        k_value = backend_values.array(k, dtypes.int32)
        return apply_op("MatrixSetDiagV3", [input, diagonal, k_value], {"align": "RIGHT_LEFT"})
    with graph.name_scope(name) as scope:
        k_tensor = convert_to_tensor(backend_values.array(k, dtypes.int32), name="k")
        return apply_op("MatrixSetDiagV3", [input, diagonal, k_tensor], {"align": "RIGHT_LEFT"}, name=scope)


def eye(num_rows: int, num_columns: int | None = None, batch_shape: Any = None, dtype: Any = dtypes.float32,
        name: str | None = None) -> Any:
    """The identity matrix (num_rows x num_columns), built as TF does: zeros with a diagonal of ones."""
    from webflow.ops.constants import constant

    num_columns = num_rows if num_columns is None else num_columns
    batch = list(batch_shape or [])
    dtype = dtypes.as_dtype(dtype)
    with op_scope(name or "eye"):
        ones = constant(backend_values.full(batch + [min(num_rows, num_columns)], 1, dtype), name="ones")
        zeros = constant(backend_values.full(batch + [num_rows, num_columns], 0, dtype), name="zeros")
        return matrix_set_diag(zeros, ones)


def matrix_transpose(a: Any, name: str = "matrix_transpose") -> Any:
    """Swaps the last two dimensions."""
    from webflow.ops.manip_ops import transpose

    with op_scope(name):
        a = convert_to_tensor(a, name="a")
        rank = a.shape.rank
        if rank is None:
            raise ValueError("matrix_transpose needs a known rank")
        return transpose(a, list(range(rank - 2)) + [rank - 1, rank - 2])
