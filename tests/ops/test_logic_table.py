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


# --- stories -------------------------------------------------------------------------------------------
def test_tf2_equality_operators_are_elementwise_and_tolerate_mismatched_shapes():
    a = wf.constant([1, 2, 3])
    np.testing.assert_array_equal((a == 2).numpy(), [False, True, False])
    np.testing.assert_array_equal((a != wf.constant([1, 0, 3])).numpy(), [False, True, False])
    assert (a == wf.constant([1, 2])).numpy() is np.False_  # TF2: incompatible shapes compare unequal
    assert (a != wf.constant([1, 2])).numpy() is np.True_
    assert (a == None) is False  # noqa: E711 - the operator itself is under test
    with pytest.raises(TypeError):
        a == 1.5  # noqa: B015 - 1.5 cannot be an int32, as in TensorFlow


def test_equality_inside_a_function_builds_equal_but_a_tf1_graph_compares_identity():
    seen = []

    @wf.function
    def same(x):
        result = x == 2.0
        seen.append((result.op.type, result.name))
        return result

    np.testing.assert_array_equal(same(wf.constant([1.0, 2.0])).numpy(), [False, True])
    assert seen == [("Equal", "Equal:0")]
    tf1.disable_v2_behavior()
    x = tf1.placeholder(tf1.float32, [2])
    assert (x == x) is True and (x == tf1.identity(x)) is False


def test_where_with_one_argument_gives_int64_coordinates_of_unknown_count():
    c = np.array([[True, False, True], [False, False, True]])
    np.testing.assert_array_equal(wf.where(c).numpy(), np.argwhere(c))
    assert wf.where(wf.constant([1, 0, 2])).numpy().tolist() == [[0], [2]]  # non-zero numbers count as true
    tf1.disable_v2_behavior()
    cond = tf1.placeholder(tf1.bool, [None, 3])
    indices = tf1.where(cond)
    assert (indices.name, str(indices.shape), indices.dtype) == ("Where:0", "(?, 2)", tf1.int64)
    with tf1.Session() as session:
        np.testing.assert_array_equal(session.run(indices, {cond: c}), np.argwhere(c))


def test_where_needs_both_x_and_y_or_neither():
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None."):
        wf.where(wf.constant([True]), wf.constant([1.0]))


def test_tf1_select_shape_errors_use_tensorflow_wording():
    tf1.disable_v2_behavior()
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3\. "
                                         r"Shapes are \[2,3\] and \[3,3\]\. for '\{\{node Select\}\} = Select"):
        tf1.where(tf1.constant([True, False]), tf1.ones([2, 3]), tf1.ones([3, 3]))
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 1\. "
                                         r"Shapes are \[2,3\] and \[1,2\]\."):
        tf1.where(tf1.constant([[True, False]]), tf1.ones([2, 3]), tf1.ones([2, 3]))
    cond = tf1.placeholder(tf1.bool, [None])
    chosen = tf1.where(cond, tf1.ones([2, 3]), tf1.zeros([2, 3]))
    with tf1.Session() as session, pytest.raises(tf1.errors.InvalidArgumentError,
                                                 match="Number of batches of 'then' must match size of 'cond'"):
        session.run(chosen, {cond: [True, False, True]})


def test_select_gradients_in_a_tf1_graph():
    tf1.disable_v2_behavior()
    cond = tf1.placeholder(tf1.bool, [3])
    x = tf1.placeholder(tf1.float32, [3, 2])
    y = tf1.placeholder(tf1.float32, [3, 2])
    dx, dy = tf1.gradients(tf1.reduce_sum(tf1.where(cond, x, y) * 3.0), [x, y])
    with tf1.Session() as session:
        gx, gy = session.run([dx, dy], {cond: [True, False, True], x: np.ones((3, 2)), y: np.ones((3, 2))})
    np.testing.assert_array_equal(gx, [[3, 3], [0, 0], [3, 3]])
    np.testing.assert_array_equal(gy, [[0, 0], [3, 3], [0, 0]])
