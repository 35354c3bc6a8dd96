"""SparseCross (ops/sparse_cross_ops.py): the crosses of sparse and dense columns, hashed or joined as strings.

The hashed rows' expected ids are TensorFlow 2.15's, from `tf.raw_ops.SparseCross` on the same inputs (run by
hand: sparse string column x/y | z | -, sparse int64 column 5 | 6 | 1 2, dense int64 column 3 | 7 | 9,
hash_key 0xDECAFCAFFE); the string row's reference is the crosses written out in NumPy. The outputs' sizes
depend on the values, so the static shapes are partly unknown, as in TensorFlow. Not differentiable, as in TF.
tests/estimator/test_canned_vs_tf215.py checks crossed_column, built on this op, against TF 2.15.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from op_harness import OpCase, check_case

from webflow.ops import registry
from webflow.ops.sparse_cross_ops import sparse_cross

A_INDICES = np.array([[0, 0], [0, 1], [1, 0]], np.int64)
A_VALUES = np.array([b"x", b"y", b"z"], object)
C_INDICES = np.array([[0, 0], [1, 1], [2, 0], [2, 1]], np.int64)
C_VALUES = np.array([5, 6, 1, 2], np.int64)
SHAPE = np.array([3, 2], np.int64)
DENSE = np.array([[3], [7], [9]], np.int64)
INPUTS = [A_INDICES, A_VALUES, SHAPE, C_INDICES, C_VALUES, SHAPE, DENSE]
OUT_INDICES = np.array([[0, 0], [0, 1], [1, 0]], np.int64)  # row 2 has no string value: no cross


def _cross(hashed, buckets):
    def build(ai, av, ash, ci, cv, csh, dense):
        columns = [SimpleNamespace(indices=ai, values=av, dense_shape=ash),
                   SimpleNamespace(indices=ci, values=cv, dense_shape=csh)]
        return sparse_cross(columns, [dense], hashed, buckets)
    return build


def _expected(values):
    return lambda *inputs: [OUT_INDICES, np.asarray(values), np.array([3, 2], np.int64)]


CASES = [
    OpCase("sparse_cross_hashed", _cross(True, 0), INPUTS,
           _expected(np.array([4525109815877713398, 6853153486422556558, 7645540037542487720], np.int64)),
           grad=False, fully_static=False),
    OpCase("sparse_cross_hashed_buckets", _cross(True, 10), INPUTS, _expected(np.array([5, 5, 7], np.int64)),
           grad=False, fully_static=False),
    OpCase("sparse_cross_strings", _cross(False, 0), INPUTS,
           _expected(np.array([b"x_X_5_X_3", b"y_X_5_X_3", b"z_X_6_X_7"], object)), grad=False,
           fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


def test_sparse_cross_is_not_differentiable():
    assert "SparseCross" in registry._NOT_DIFFERENTIABLE
