"""Op table rows for comparisons, logical and bitwise ops, and where/select (see tests/op_harness.py).

`==`/`!=` on tensors and one-argument `where` (a data-dependent shape) are stories in tests/test_logic_ops.py."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1

rng = np.random.default_rng(2)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def ints(*shape):
    return rng.integers(-3, 4, shape).astype(np.int32)


def bools(*shape):
    return rng.random(shape) < 0.5


def select_v1(cond, x, y):
    """TF1 Select: a vector cond picks whole rows."""
    cond = np.asarray(cond)
    if cond.ndim == 1 and np.ndim(x) > 1:
        cond = cond.reshape((-1,) + (1,) * (np.ndim(x) - 1))
    return np.where(cond, x, y)


CASES = [
    # comparisons (bool out, no gradient)
    OpCase("equal", lambda x, y: wf.equal(x, y), [ints(3, 4), ints(4)], np.equal),
    OpCase("not_equal", lambda x, y: wf.not_equal(x, y), [ints(3, 4), ints(3, 1)], np.not_equal),
    OpCase("equal_bool", lambda x, y: wf.equal(x, y), [bools(5), bools(5)], np.equal),
    OpCase("less", lambda x, y: wf.less(x, y), [r(2, 3), r(3)], np.less, grad=False),
    OpCase("less_equal", lambda x, y: wf.less_equal(x, y), [ints(2, 3), ints(2, 3)], np.less_equal),
    OpCase("greater", lambda x, y: wf.greater(x, y), [r(2, 1), r(1, 3)], np.greater, grad=False),
    OpCase("greater_equal", lambda x, y: wf.greater_equal(x, y), [ints(4), ints(4)], np.greater_equal),
    OpCase("lt_operator", lambda x: x < 0.5, [r(5)], lambda x: x < 0.5, grad=False),
    OpCase("le_gt_ge_operators", lambda x, y: [x <= y, x > y, x >= y], [ints(6), ints(6)],
           lambda x, y: [x <= y, x > y, x >= y]),
    # logical
    OpCase("logical_and", lambda x, y: wf.logical_and(x, y), [bools(2, 3), bools(3)], np.logical_and),
    OpCase("logical_or", lambda x, y: wf.logical_or(x, y), [bools(2, 3), bools(2, 3)], np.logical_or),
    OpCase("logical_not", lambda x: wf.logical_not(x), [bools(4)], np.logical_not),
    OpCase("logical_xor", lambda x, y: wf.math.logical_xor(x, y), [bools(8), bools(8)], np.logical_xor),
    OpCase("bool_operators", lambda x, y: [x & y, x | y, x ^ y, ~x], [bools(6), bools(6)],
           lambda x, y: [x & y, x | y, x ^ y, ~x]),
    OpCase("bool_operator_with_python", lambda x: True & x, [bools(4)], lambda x: True & x),
    OpCase("bitwise_operators", lambda x, y: [x & y, x | y, x ^ y, ~x], [ints(6), ints(6)],
           lambda x, y: [x & y, x | y, x ^ y, ~x]),
    # where with three arguments (TF2: SelectV2, broadcasting)
    OpCase("where_v2", lambda c, x, y: wf.where(c, x, y), [bools(2, 3), r(2, 3), r(2, 3)], np.where),
    OpCase("where_v2_broadcast", lambda c, x, y: wf.where(c, x, y), [bools(3, 1), r(1, 4), r(3, 4)], np.where),
    OpCase("where_v2_scalar_y", lambda c, x: wf.where(c, x, 0.0), [bools(2, 3), r(3)],
           lambda c, x: np.where(c, x, np.float32(0))),
    # TF1 tf.where = Select: cond same shape, scalar, or a vector over the first dimension
    OpCase("where_v1_same_shape", lambda c, x, y: tf1.where(c, x, y), [bools(2, 3), r(2, 3), r(2, 3)], select_v1),
    OpCase("where_v1_row_vector", lambda c, x, y: tf1.where(c, x, y), [bools(4), r(4, 3), r(4, 3)], select_v1),
    OpCase("where_v1_scalar", lambda c, x, y: tf1.where(c, x, y), [np.array(True), r(2, 2), r(2, 2)], select_v1),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
