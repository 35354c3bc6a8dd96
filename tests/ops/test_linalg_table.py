"""Op table rows for the linear-algebra ops (QR checked by its defining properties, not by sign)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops import linalg_ops

rng = np.random.default_rng(5)
square = rng.standard_normal((3, 3)).astype(np.float32)

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
