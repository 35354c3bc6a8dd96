"""Op table rows for reductions (Max, Min, Prod, Any, All, ArgMax, ArgMin, logsumexp, count_nonzero),
with axis / keepdims / negative axes and TF1's aliases; see tests/op_harness.py. Stories for tied
maxima and TF1 names follow the table."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1

rng = np.random.default_rng(3)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def distinct(*shape):
    """Distinct values (no ties), so max/min are differentiable where we check them."""
    return (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.37 - 2.0).astype(np.float32)


def ints(*shape):
    return rng.integers(-5, 6, shape).astype(np.int32)


def bools(*shape):
    return rng.random(shape) < 0.5


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) by the textbook formula in float64 (fine for these small inputs)."""
    return np.log(np.sum(np.exp(np.asarray(x, np.float64)), axis=axis, keepdims=keepdims)).astype(x.dtype)


CASES = [
    OpCase("reduce_max_all", lambda x: wf.reduce_max(x), [distinct(2, 3)], np.max),
    OpCase("reduce_max_axis", lambda x: wf.reduce_max(x, axis=1), [distinct(2, 3, 4)], lambda x: x.max(1)),
    OpCase("reduce_max_neg_keepdims", lambda x: wf.reduce_max(x, axis=-1, keepdims=True), [distinct(3, 4)],
           lambda x: x.max(-1, keepdims=True)),
    OpCase("reduce_max_axes_list", lambda x: wf.reduce_max(x, axis=[0, 2]), [distinct(2, 3, 4)],
           lambda x: x.max((0, 2))),
    OpCase("reduce_max_int32", lambda x: wf.reduce_max(x, 0), [ints(4, 3)], lambda x: x.max(0)),
    OpCase("reduce_min_all", lambda x: wf.reduce_min(x), [distinct(2, 3)], np.min),
    OpCase("reduce_min_axis_keepdims", lambda x: wf.math.reduce_min(x, 0, keepdims=True), [distinct(3, 2)],
           lambda x: x.min(0, keepdims=True)),
    OpCase("reduce_max_two_way_tie", lambda x: wf.reduce_max(x, 1), [np.array([[1.0, 3.0, 3.0], [2.0, 0.5, -1.0]],
                                                                              np.float32)], lambda x: x.max(1)),
    OpCase("reduce_prod_all", lambda x: wf.reduce_prod(x), [r(2, 3)], np.prod),
    OpCase("reduce_prod_axis", lambda x: wf.reduce_prod(x, 1), [r(3, 4)], lambda x: x.prod(1)),
    OpCase("reduce_prod_with_zero", lambda x: wf.reduce_prod(x, -1, keepdims=True),
           [np.array([[1.5, 0.0, -2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 0.5]], np.float32)],
           lambda x: x.prod(-1, keepdims=True)),
    OpCase("reduce_prod_inner_axes", lambda x: wf.reduce_prod(x, [1, 2]), [r(2, 3, 2)], lambda x: x.prod((1, 2))),
    OpCase("reduce_prod_outer_axes", lambda x: wf.reduce_prod(x, [0, 2]), [r(2, 3, 2)], lambda x: x.prod((0, 2))),
    OpCase("reduce_prod_int32", lambda x: wf.reduce_prod(x, 0), [ints(3, 2)], lambda x: x.prod(0, dtype=x.dtype)),
    OpCase("reduce_any", lambda x: wf.reduce_any(x, 1), [bools(3, 4)], lambda x: x.any(1)),
    OpCase("reduce_all", lambda x: wf.reduce_all(x), [bools(2, 2)], np.all),
    OpCase("reduce_all_keepdims", lambda x: wf.reduce_all(x, 0, keepdims=True), [bools(3, 2)],
           lambda x: x.all(0, keepdims=True)),
    OpCase("argmax_default_axis_0", lambda x: wf.argmax(x), [distinct(4, 3)], lambda x: x.argmax(0), grad=False),
    OpCase("argmax_axis", lambda x: wf.argmax(x, 1), [distinct(2, 5)], lambda x: x.argmax(1), grad=False),
    OpCase("argmin_neg_axis_int32", lambda x: wf.argmin(x, -1, output_type=wf.int32), [distinct(2, 3, 4)],
           lambda x: x.argmin(-1).astype(np.int32), grad=False),
    OpCase("argmax_int", lambda x: wf.math.argmax(x, 0), [ints(6)], lambda x: x.argmax(0)),
    OpCase("reduce_logsumexp_all", lambda x: wf.reduce_logsumexp(x), [r(2, 3)], logsumexp),
    OpCase("reduce_logsumexp_axis_keepdims", lambda x: wf.reduce_logsumexp(x, 1, keepdims=True), [r(3, 4)],
           lambda x: logsumexp(x, 1, keepdims=True)),
    OpCase("reduce_logsumexp_large", lambda x: wf.reduce_logsumexp(x, 0), [r(3, 2) + 500.0],
           lambda x: (np.log(np.exp(x.astype(np.float64) - 500).sum(0)) + 500).astype(x.dtype), atol=1e-4),
    OpCase("count_nonzero", lambda x: wf.math.count_nonzero(x, 1), [ints(3, 4)],
           lambda x: np.count_nonzero(x, 1).astype(np.int64)),
    # TF1 spellings
    OpCase("tf1_reduce_max_keep_dims", lambda x: tf1.reduce_max(x, reduction_indices=[1], keep_dims=True),
           [distinct(2, 3)], lambda x: x.max(1, keepdims=True)),
    OpCase("tf1_reduce_min_reduction_indices", lambda x: tf1.reduce_min(x, reduction_indices=0), [distinct(3, 2)],
           lambda x: x.min(0)),
    OpCase("tf1_reduce_prod_keep_dims", lambda x: tf1.reduce_prod(x, 0, keep_dims=True), [r(2, 3)],
           lambda x: x.prod(0, keepdims=True)),
    OpCase("tf1_reduce_logsumexp", lambda x: tf1.reduce_logsumexp(x, reduction_indices=[0]), [r(3, 2)],
           lambda x: logsumexp(x, 0)),
    OpCase("tf1_argmax_dimension", lambda x: tf1.argmax(x, dimension=1), [distinct(3, 4)], lambda x: x.argmax(1),
           grad=False),
    OpCase("tf1_arg_min", lambda x: tf1.arg_min(x, 0), [distinct(3, 4)], lambda x: x.argmin(0), grad=False),
    # found by the property tests' TensorFlow slice (tests/property): TensorFlow's arg reductions never pick a NaN
    # (NumPy's always do); a row of NaN (or NaN and -inf) gives 0
    OpCase("argmax_skips_nan", lambda x: wf.argmax(x, 1),
           [np.float32([[np.nan, 1, -np.inf, 0], [1, np.nan, 3, np.nan], [np.nan, np.nan, np.nan, np.nan],
                        [np.nan, -np.inf, -np.inf, np.nan]])], lambda x: np.int64([1, 2, 0, 0]), grad=False),
    OpCase("argmin_skips_nan", lambda x: wf.argmin(x, 0), [np.float64([[1, np.nan], [np.nan, np.nan], [0, np.nan]])],
           lambda x: np.int64([2, 0]), grad=False),
    # found by the property tests' gradients: the Prod gradient over several axes of an empty tensor failed
    OpCase("reduce_prod_empty_all_axes", lambda x: wf.reduce_prod(x[:0], [0, 1]), [np.float32([[1, 2, 3]])],
           lambda x: np.float32(1)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


def test_max_gradient_splits_equally_among_ties():
    """TF routes a max's gradient to all tied maxima in equal parts: three tied -> 1/3 each."""
    x = wf.constant([[2.0, 5.0, 5.0, 5.0], [1.0, 0.0, 1.0, -3.0]])
    with wf.GradientTape() as tape:
        tape.watch(x)
        y = wf.reduce_max(x, axis=1)
    expected = np.array([[0, 1 / 3, 1 / 3, 1 / 3], [0.5, 0, 0.5, 0]], np.float32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-6)


def test_min_gradient_in_a_tf1_graph():
    tf1.disable_v2_behavior()
    x = tf1.placeholder(tf1.float32, [None, 3])
    y = tf1.reduce_min(x, 1, keep_dims=True)
    (grad,) = tf1.gradients(y, [x])
    with tf1.Session() as session:
        value = session.run(grad, {x: [[4.0, -1.0, -1.0], [0.0, 2.0, 3.0]]})
    np.testing.assert_allclose(value, [[0, 0.5, 0.5], [1, 0, 0]])


def test_empty_reductions_give_the_identity():
    """Max of nothing is -inf (lowest int for ints), min is +inf, prod 1, any False, all True (as TF)."""
    empty = wf.zeros([0], wf.float32)
    assert wf.reduce_max(empty).numpy() == -np.inf
    assert wf.reduce_min(empty).numpy() == np.inf
    assert wf.reduce_min(wf.zeros([0], wf.int32)).numpy() == np.iinfo(np.int32).max
    assert wf.reduce_prod(empty).numpy() == 1.0
    assert not wf.reduce_any(wf.zeros([0], wf.bool)).numpy()
    assert wf.reduce_all(wf.zeros([0], wf.bool)).numpy()


def test_argmax_of_an_empty_axis_is_an_error():
    with pytest.raises(wf.errors.InvalidArgumentError, match="Reduction axis 0 is empty in shape \\[0\\]"):
        wf.argmax(wf.zeros([0], wf.float32))


def test_tf1_reduction_names_and_shapes():
    """Node names and static shapes as TensorFlow builds them (checked against TF 2.x compat.v1)."""
    tf1.disable_v2_behavior()
    x = tf1.placeholder(tf1.float32, [None, 3])
    outputs = [tf1.reduce_max(x), tf1.reduce_min(x, 1), tf1.reduce_prod(x, [0, 1]), tf1.reduce_any(x > 0),
               tf1.argmax(x), tf1.argmin(x, 1, output_type=tf1.int32), tf1.reduce_logsumexp(x, 1, keepdims=True),
               tf1.cumsum(x, 1)]
    got = [(t.name, t.op.type, str(t.shape), t.dtype.name) for t in outputs]
    assert got == [
        ("Max:0", "Max", "()", "float32"), ("Min:0", "Min", "(?,)", "float32"), ("Prod:0", "Prod", "()", "float32"),
        ("Any:0", "Any", "()", "bool"), ("ArgMax:0", "ArgMax", "(3,)", "int64"),
        ("ArgMin:0", "ArgMin", "(?,)", "int32"), ("ReduceLogSumExp:0", "AddV2", "(?, 1)", "float32"),
        ("Cumsum:0", "Cumsum", "(?, 3)", "float32")]
    names = [op.name for op in tf1.get_default_graph().get_operations()]
    assert ["Const", "Max", "Min/reduction_indices", "Min"] == names[1:5]
    assert "ArgMax/dimension" in names and "Cumsum/axis" in names
    for name in ("ReduceLogSumExp/Max", "ReduceLogSumExp/IsFinite", "ReduceLogSumExp/SelectV2/e",
                 "ReduceLogSumExp/StopGradient", "ReduceLogSumExp/Sub", "ReduceLogSumExp/Exp",
                 "ReduceLogSumExp/Sum", "ReduceLogSumExp/Log"):
        assert name in names, name


def test_reduction_axis_errors():
    tf1.disable_v2_behavior()
    x = tf1.placeholder(tf1.float32, [2, 3])
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2 dimensions"):
        tf1.reduce_max(x, 2)
    with pytest.raises(ValueError, match=r"Dimension \(2\) must be in the range \[-2, 2\), where 2 is the number"):
        tf1.argmax(x, 2)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'dimension'"):
        tf1.argmax(x, 1, dimension=1)
    with pytest.raises(ValueError, match="Cannot specify both 'axis' and 'reduction_indices'"):
        tf1.reduce_max(x, 1, reduction_indices=1)
