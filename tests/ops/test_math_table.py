"""Op table rows for elementwise math (unary and binary), tensordot and scans; see tests/op_harness.py
for what each row checks (eager forward vs NumPy, static shapes, graph == eager, numerical gradients)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1

rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    """Positive values away from 0 (for sqrt, log, pow's exponent gradient ...)."""
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


def away_from_zero(*shape):
    """Values with |x| >= 0.3 (abs/sign/floor are not smooth at their kinks)."""
    values = rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    return values.astype(np.float32)


def ints(*shape, low=-9, high=10):
    return rng.integers(low, high, shape).astype(np.int32)


def nonzero_ints(*shape):
    values = ints(*shape)
    return np.where(values == 0, 3, values).astype(np.int32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _scan_span(i, n, exclusive, reverse):
    """Positions that output i of a scan combines: up to i (or from i, reversed), without i if exclusive."""
    if reverse:
        return range(i + 1 if exclusive else i, n)
    return range(0, i if exclusive else i + 1)


def cumsum(x, axis, exclusive=False, reverse=False):
    """Cumulative sum by explicit loops over positions (independent of the kernel's accumulate/flip)."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    out = np.zeros_like(x)
    for i in range(x.shape[0]):
        for j in _scan_span(i, x.shape[0], exclusive, reverse):
            out[i] = out[i] + x[j]
    return np.moveaxis(out, 0, axis)


def cumprod(x, axis, exclusive=False, reverse=False):
    x = np.moveaxis(np.asarray(x), axis, 0)
    out = np.ones_like(x)
    for i in range(x.shape[0]):
        for j in _scan_span(i, x.shape[0], exclusive, reverse):
            out[i] = out[i] * x[j]
    return np.moveaxis(out, 0, axis)


def truncdiv(x, y):
    return (np.trunc(x.astype(np.float64) / y)).astype(x.dtype)


SPECIAL = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32)

CASES = [
    # unary
    OpCase("abs", lambda x: wf.abs(x), [away_from_zero(2, 3)], np.abs),
    OpCase("abs_operator", lambda x: abs(x), [away_from_zero(4)], np.abs),
    OpCase("abs_int32", lambda x: wf.abs(x), [ints(5)], np.abs),
    OpCase("sign", lambda x: wf.sign(x), [away_from_zero(2, 3)], np.sign),
    OpCase("sign_int32", lambda x: wf.sign(x), [ints(6)], np.sign),
    OpCase("square", lambda x: wf.square(x), [r(2, 3)], np.square),
    OpCase("square_int32", lambda x: wf.square(x), [ints(4)], np.square),
    OpCase("sqrt", lambda x: wf.sqrt(x), [pos(3, 2)], np.sqrt),
    OpCase("rsqrt", lambda x: wf.math.rsqrt(x), [pos(3, 2)], lambda x: 1 / np.sqrt(x)),
    OpCase("exp", lambda x: wf.exp(x), [r(2, 3)], np.exp),
    OpCase("log", lambda x: wf.math.log(x), [pos(2, 3)], np.log),
    OpCase("log1p", lambda x: wf.math.log1p(x), [pos(2, 3) - 0.4], np.log1p),
    OpCase("sin", lambda x: wf.sin(x), [r(2, 3)], np.sin),
    OpCase("cos", lambda x: wf.cos(x), [r(2, 3)], np.cos),
    OpCase("tanh", lambda x: wf.tanh(x), [r(2, 3)], np.tanh),
    OpCase("sigmoid", lambda x: wf.sigmoid(x), [r(2, 3) * 3], sigmoid),
    OpCase("sigmoid_float64", lambda x: wf.sigmoid(x), [r(4).astype(np.float64)], sigmoid),
    OpCase("reciprocal", lambda x: wf.math.reciprocal(x), [away_from_zero(2, 3)], np.reciprocal),
    OpCase("round_half_to_even", lambda x: wf.round(x), [np.array([0.5, 1.5, 2.5, -0.5, -1.7, 0.2], np.float32)],
           np.round, grad=False),
    OpCase("floor", lambda x: wf.floor(x), [np.array([0.3, -0.3, 1.7, -2.2], np.float32)], np.floor),
    OpCase("ceil", lambda x: wf.math.ceil(x), [np.array([0.3, -0.3, 1.7, -2.2], np.float32)], np.ceil),
    OpCase("is_nan", lambda x: wf.math.is_nan(x), [SPECIAL], np.isnan, grad=False),
    OpCase("is_finite", lambda x: wf.math.is_finite(x), [SPECIAL], np.isfinite, grad=False),
    OpCase("is_inf", lambda x: wf.math.is_inf(x), [SPECIAL], np.isinf, grad=False),
    # binary, broadcasting
    OpCase("maximum_broadcast", lambda x, y: wf.maximum(x, y), [r(2, 3), r(3)], np.maximum),
    OpCase("minimum_broadcast", lambda x, y: wf.minimum(x, y), [r(4, 1), r(1, 3)], np.minimum),
    OpCase("maximum_int32", lambda x, y: wf.maximum(x, y), [ints(5), ints(5)], np.maximum),
    OpCase("maximum_scalar", lambda x: wf.maximum(x, 0.0), [away_from_zero(2, 3)], lambda x: np.maximum(x, 0)),
    OpCase("squared_difference", lambda x, y: wf.math.squared_difference(x, y), [r(2, 3), r(2, 1)],
           lambda x, y: (x - y) ** 2),
    OpCase("pow", lambda x, y: wf.pow(x, y), [pos(2, 3), r(2, 3)], np.power),
    OpCase("pow_broadcast", lambda x, y: wf.pow(x, y), [pos(3, 2), r(2)], np.power),
    OpCase("pow_int32", lambda x, y: wf.pow(x, y), [ints(5), ints(5, low=0, high=4)], np.power),
    OpCase("pow_operator", lambda x: x ** 2, [r(2, 3)], lambda x: x ** 2),
    OpCase("rpow_operator", lambda x: 2.0 ** x, [r(2, 3)], lambda x: (2.0 ** x).astype(x.dtype)),
    OpCase("floordiv_float", lambda x, y: wf.math.floordiv(x, y), [r(2, 3) * 5, away_from_zero(3)],
           lambda x, y: np.floor(x / y)),
    OpCase("floordiv_int32", lambda x, y: wf.math.floordiv(x, y), [ints(8), nonzero_ints(8)], np.floor_divide),
    OpCase("floordiv_operator", lambda x: x // 2, [ints(6)], lambda x: x // 2),
    OpCase("floormod_float", lambda x, y: wf.math.floormod(x, y), [r(2, 3) * 5, away_from_zero(3)], np.mod),
    OpCase("floormod_int32", lambda x, y: wf.math.mod(x, y), [ints(8), nonzero_ints(8)], np.mod),
    OpCase("mod_operator", lambda x: x % 3, [ints(6)], lambda x: x % 3),
    OpCase("truncatediv", lambda x, y: wf.truncatediv(x, y), [ints(8), nonzero_ints(8)], truncdiv),
    OpCase("truncatemod", lambda x, y: wf.truncatemod(x, y), [ints(8), nonzero_ints(8)], np.fmod),
    OpCase("realdiv", lambda x, y: wf.realdiv(x, y), [r(2, 3), away_from_zero(2, 3)], np.divide),
    OpCase("div_no_nan", lambda x, y: wf.math.divide_no_nan(x, y),
           [r(2, 3), np.array([[1.5, 0.0, -2.0], [0.0, 0.7, 3.0]], np.float32)],
           lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)).astype(x.dtype), grad=False),
    OpCase("div_no_nan_grad", lambda x, y: wf.math.divide_no_nan(x, y), [r(2, 3), away_from_zero(3)], np.divide),
    OpCase("tf1_div_float", lambda x, y: tf1.div(x, y), [r(2, 3), away_from_zero(2, 3)], np.divide),
    OpCase("tf1_div_int", lambda x, y: tf1.div(x, y), [ints(6), nonzero_ints(6)], np.floor_divide),
    # tensordot
    OpCase("tensordot_int_axes", lambda a, b: wf.tensordot(a, b, 1), [r(2, 3), r(3, 4)], lambda a, b: a @ b,
           unknown_shapes=False),
    OpCase("tensordot_two_axes", lambda a, b: wf.tensordot(a, b, 2), [r(2, 3, 4), r(3, 4, 5)],
           lambda a, b: np.tensordot(a, b, 2), unknown_shapes=False),
    OpCase("tensordot_pairs", lambda a, b: wf.tensordot(a, b, [[0, 2], [2, 0]]), [r(4, 3, 2), r(2, 5, 4)],
           lambda a, b: np.tensordot(a, b, [[0, 2], [2, 0]]), unknown_shapes=False),
    OpCase("tensordot_outer", lambda a, b: wf.tensordot(a, b, 0), [r(2), r(3)], lambda a, b: np.multiply.outer(a, b),
           unknown_shapes=False),
    # scans
    OpCase("cumsum", lambda x: wf.cumsum(x), [r(4, 3)], lambda x: cumsum(x, 0)),
    OpCase("cumsum_axis1_exclusive", lambda x: wf.cumsum(x, 1, exclusive=True), [r(2, 4)],
           lambda x: cumsum(x, 1, exclusive=True)),
    OpCase("cumsum_reverse", lambda x: wf.cumsum(x, -1, reverse=True), [r(2, 4)], lambda x: cumsum(x, 1, reverse=True)),
    OpCase("cumsum_exclusive_reverse", lambda x: wf.cumsum(x, 0, exclusive=True, reverse=True), [r(4, 2)],
           lambda x: cumsum(x, 0, exclusive=True, reverse=True)),
    OpCase("cumsum_int32", lambda x: wf.cumsum(x, 0), [ints(5)], lambda x: cumsum(x, 0)),
    OpCase("cumprod", lambda x: wf.math.cumprod(x, 1), [away_from_zero(2, 4)], lambda x: cumprod(x, 1)),
    OpCase("cumprod_exclusive_reverse", lambda x: wf.math.cumprod(x, 0, exclusive=True, reverse=True),
           [away_from_zero(4, 2)], lambda x: cumprod(x, 0, exclusive=True, reverse=True)),
    # found by the property tests (tests/property): the pure-Python kernels (no NumPy) divided floats by zero as 0
    # and raised zero to negative powers as NaN; C (and TensorFlow) give ±inf / NaN
    OpCase("floordiv_float_by_zero", lambda x, y: wf.math.floordiv(x, y),
           [np.float32([1, -1, 0, 7, -7]), np.float32([0, 0, 0, 0.5, -0.0])],
           lambda x, y: np.float32([np.inf, -np.inf, np.nan, 14, np.inf]), grad=False),
    OpCase("floormod_float_by_zero_and_inf", lambda x, y: wf.math.floormod(x, y),
           [np.float32([1, -1, 5, -5, 5, -4.5]), np.float32([0, -0.0, -np.inf, np.inf, np.inf, 2])],
           lambda x, y: np.float32([np.nan, np.nan, -np.inf, np.inf, 5, 1.5]), grad=False),
    OpCase("pow_zero_to_negative_powers", lambda x, y: wf.pow(x, y),
           [np.float32([0, -0.0, -0.0, 0, -0.0]), np.float32([-2.5, -3, -2, -1, 2])],
           lambda x, y: np.float32([np.inf, -np.inf, np.inf, np.inf, 0]), grad=False),
    # (the Prod gradient's property test): an exclusive scan along an empty axis gave one identity row
    OpCase("cumprod_exclusive_empty_axis", lambda x: wf.math.cumprod(x[:0], 0, exclusive=True, reverse=True),
           [np.float32([[1, 2, 3]])], lambda x: np.zeros((0, 3), np.float32)),
    OpCase("cumsum_exclusive_empty_axis", lambda x: wf.cumsum(x[:, :0], 1, exclusive=True),
           [np.float32([[1, 2, 3]])], lambda x: np.zeros((1, 0), np.float32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


# --- TF1 node names, types, static shapes (compared with real TensorFlow when WEBFLOW_TF_PYTHON is set) ------
NAMES_PROGRAM = """
x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [2, 3])
i = tf.placeholder(tf.int32, [4])
b = tf.placeholder(tf.bool, [2, 3])
outputs = [tf.square(x), x ** 2, 2.0 ** x, tf.pow(x, y), tf.maximum(x, y), tf.minimum(x, 0.0), abs(x), tf.abs(y),
           x // y, x % 2.0, i // 2, i % 3, tf.floordiv(x, y), tf.floormod(x, y), tf.mod(i, 2), tf.div(x, y),
           tf.div(i, i), tf.realdiv(x, y), tf.truncatediv(i, i), tf.truncatemod(i, i), tf.sign(x), tf.sqrt(x),
           tf.rsqrt(x), tf.exp(x), tf.log(x), tf.log1p(x), tf.sin(x), tf.cos(x), tf.tanh(x), tf.sigmoid(x),
           tf.reciprocal(x), tf.squared_difference(x, y), tf.round(x), tf.floor(x), tf.ceil(x), tf.is_nan(x),
           tf.is_finite(x), tf.div_no_nan(x, y), tf.cumsum(x, 1), tf.cumprod(x, exclusive=True),
           tf.tensordot(y, tf.ones([3, 4]), 1), tf.tensordot(x, tf.ones([3, 4]), [[1], [0]]),
           x < y, x <= 1.0, x > y, x >= y, tf.equal(x, y), tf.not_equal(i, 1), b & b, b | b, b ^ b, ~b,
           tf.logical_and(b, b), tf.logical_xor(b, b), tf.where(b), tf.where(b, y, y), tf.where_v2(b, y, 0.0)]
result = {"outputs": [[t.name, t.op.type, str(t.shape), t.dtype.name] for t in outputs],
          "ops": [op.name for op in tf.get_default_graph().get_operations()]}
"""


def test_tf1_names_match_tensorflow():
    from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    expected = run_tensorflow({"names": NAMES_PROGRAM})["names"]
    got = run_webflow(NAMES_PROGRAM)
    assert got["outputs"] == expected["outputs"]
    # tensordot's inner ops for partly unknown shapes differ (webflow has no Gather/ConcatV2 path there);
    # every other op, including the constants made for Python numbers, is named as in TensorFlow.
    assert [n for n in got["ops"] if "Tensordot" not in n] == [n for n in expected["ops"] if "Tensordot" not in n]


def test_a_few_tf1_names_without_tensorflow():
    """Spot checks taken from TensorFlow 2.x compat.v1: functions name ops by type, operators by symbol."""
    tf1.disable_v2_behavior()
    x = tf1.placeholder(tf1.float32, [2])
    names = [tf1.square(x).name, (x ** 2).name, tf1.maximum(x, x).name, tf1.pow(x, 2.0).name, (x // 2.0).name,
             tf1.floordiv(x, x).name, (x % 2.0).name, tf1.floormod(x, x).name, abs(x).name, tf1.div(x, x).name]
    assert names == ["Square:0", "pow:0", "Maximum:0", "Pow_1:0", "floordiv:0", "floordiv_1:0", "mod:0",
                     "FloorMod:0", "Abs:0", "div:0"]


def test_tensordot_with_partly_unknown_shapes_in_a_tf1_graph():
    tf1.disable_v2_behavior()
    a = tf1.placeholder(tf1.float32, [None, 3, 2])
    b = tf1.placeholder(tf1.float32, [2, 3, None])
    c = tf1.tensordot(a, b, [[1, 2], [1, 0]])
    assert str(c.shape) == "(?, ?)"
    a_value, b_value = r(4, 3, 2), r(2, 3, 5)
    with tf1.Session() as session:
        np.testing.assert_allclose(session.run(c, {a: a_value, b: b_value}),
                                   np.tensordot(a_value, b_value, [[1, 2], [1, 0]]), rtol=1e-5, atol=1e-5)


def test_tensordot_axes_errors():
    with pytest.raises(ValueError, match="`axes` must be at least 0"):
        wf.tensordot(wf.ones([2, 2]), wf.ones([2, 2]), -1)
    with pytest.raises(ValueError, match="Different number of contraction axes `a` and `b`, 2 != 1"):
        wf.tensordot(wf.ones([2, 2]), wf.ones([2, 2]), [[0, 1], [0]])


def test_second_derivatives_through_gradient_rules():
    """The gradient rules are webflow ops, so a tape can differentiate them again."""
    x = wf.constant([0.3, -1.2, 2.0], wf.float64)
    with wf.GradientTape() as outer:
        outer.watch(x)
        with wf.GradientTape() as inner:
            inner.watch(x)
            y = wf.reduce_sum(wf.sigmoid(x) + wf.tanh(x) + wf.math.log(x * x + 1.0))
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x).numpy()
    s, t, v = 1 / (1 + np.exp(-x.numpy())), np.tanh(x.numpy()), x.numpy()
    expected = s * (1 - s) * (1 - 2 * s) - 2 * t * (1 - t ** 2) + (2 - 2 * v ** 2) / (v ** 2 + 1) ** 2
    np.testing.assert_allclose(d2y, expected, rtol=1e-10)
