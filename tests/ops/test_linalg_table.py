"""Op table rows for the linear-algebra ops. QR's signs are the kernel's choice, so its rows compare the factors
made unique (R's diagonal positive) with Gram-Schmidt, and a story checks the defining properties."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops import linalg_ops

rng = np.random.default_rng(5)
square = rng.standard_normal((3, 3)).astype(np.float32)


def qr_row(name, a):
    """Q and R of linalg_ops.qr with R's diagonal made positive (each column of Q and row of R times the sign of
    R's diagonal entry): the unique QR of a full-rank matrix, whatever signs the kernel picked. The gradient
    check takes TF's rule down its three paths: square, tall (rows > cols) and wide inputs."""
    def positive_qr(x):
        q, r = linalg_ops.qr(x)
        signs = wf.sign(wf.stack([r[i, i] for i in range(min(a.shape))]))
        return [q * signs, r * wf.expand_dims(signs, 1)]

    return OpCase(name, positive_qr, [a], gram_schmidt_qr)


def gram_schmidt_qr(a):
    """The reference: Q's columns by classical Gram-Schmidt on a's first min(rows, cols) columns, R = Q^T a."""
    q = np.zeros((a.shape[0], min(a.shape)))
    for j in range(q.shape[1]):
        v = a[:, j] - q[:, :j] @ (q[:, :j].T @ a[:, j])
        q[:, j] = v / np.sqrt(v @ v)
    return [q.astype(a.dtype), np.triu(q.T @ a).astype(a.dtype)]


CASES = [
    OpCase("diag_part", lambda x: linalg_ops.diag_part(x), [square], np.diag),
    OpCase("matrix_set_diag", lambda x, d: linalg_ops.matrix_set_diag(x, d),
           [square, rng.standard_normal(3).astype(np.float32)],
           lambda x, d: x - np.diag(np.diag(x)) + np.diag(d)),
    OpCase("matrix_transpose", lambda x: linalg_ops.matrix_transpose(x),
           [rng.standard_normal((2, 3, 4)).astype(np.float32)], lambda x: np.swapaxes(x, -1, -2),
           unknown_shapes=False),  # needs the rank, as TF's does
    OpCase("eye", lambda x: linalg_ops.eye(2, 3, dtype=x.dtype) * x, [np.float32(2.0) * np.ones((2, 3), np.float32)],
           lambda x: np.eye(2, 3, dtype=np.float32) * x),
    qr_row("qr_square", square),
    qr_row("qr_tall", rng.standard_normal((5, 3)).astype(np.float32)),
    qr_row("qr_wide", rng.standard_normal((2, 4)).astype(np.float32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_qr_reconstructs_with_orthonormal_q(shape):
    a = rng.standard_normal(shape).astype(np.float64)
    q, r = linalg_ops.qr(wf.constant(a))
    q, r = q.numpy(), r.numpy()
    np.testing.assert_allclose(q @ r, a, atol=1e-10)
    np.testing.assert_allclose(q.T @ q, np.eye(q.shape[1]), atol=1e-10)
    assert np.allclose(r, np.triu(r)) and q.shape == (shape[0], min(shape)) and r.shape == (min(shape), shape[1])


def test_qr_gradient_is_not_implemented_where_tensorflows_is_not():
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tall = tf.placeholder(tf.float32, [4, 3])
    with pytest.raises(NotImplementedError, match="nrows > ncols and full_matrices is true"):
        tf.gradients(tf.reduce_sum(linalg_ops.qr(tall, full_matrices=True)[1]), tall)
    unknown = tf.placeholder(tf.float32, [None, None])
    with pytest.raises(NotImplementedError, match="QrGrad not implemented with dynamic shapes"):
        tf.gradients(tf.reduce_sum(linalg_ops.qr(unknown)[0]), unknown)
