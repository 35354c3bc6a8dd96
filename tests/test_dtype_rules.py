"""TensorFlow's dtype rules for math ops, checked against real TensorFlow (via WEBFLOW_TF_PYTHON) and,
without it, against the rules as TensorFlow states them:

- inputs sharing a type attr must agree: `int32 + float32` is a TypeError naming the op, both inputs
  and both dtypes; a Python number takes the dtype of the tensor it meets (`float64_t + 1.0`);
- float-only ops (Sqrt, Exp, Log ...) reject integers with "Value passed to parameter 'x' has DataType
  int32 not in list of allowed values: ..."; bool-only ops (LogicalAnd, Any) name the expected type;
- integer division by zero and integers to negative powers fail when run (InvalidArgumentError).
"""

import re

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow as wf
import webflow.compat.v1 as tf

# Build-time cases: (id, expression). Each runs in a fresh TF1 graph, under TensorFlow and under webflow.
BUILD_CASES = {
    "add_int_float": "tf.constant(1) + tf.constant(1.0)",
    "maximum_int_float": "tf.maximum(tf.constant([1]), tf.constant([1.0]))",
    "tf_add_python_int_first": "tf.add(1, tf.constant(1.0))",
    "tf_add_python_float_first": "tf.add(1.5, tf.constant(1))",
    "int_tensor_plus_python_float": "tf.constant([1, 2]) + 1.5",
    "sqrt_int": "tf.sqrt(tf.constant([1, 2]))",
    "log_int": "tf.log(tf.constant([1, 2]))",
    "exp_int": "tf.exp(tf.constant([1, 2]))",
    "sigmoid_int": "tf.sigmoid(tf.constant([1, 2]))",
    "tanh_int": "tf.tanh(tf.constant([1, 2]))",
    "rsqrt_int": "tf.rsqrt(tf.constant([1, 2]))",
    "floor_int": "tf.floor(tf.constant([1]))",
    "abs_bool": "tf.abs(tf.constant([True]))",
    "square_bool": "tf.square(tf.constant([True]))",
    "logical_and_int": "tf.logical_and(tf.constant([1]), tf.constant([1]))",
    "logical_not_float": "tf.logical_not(tf.constant([1.0]))",
    "reduce_any_int": "tf.reduce_any(tf.constant([1]))",
    "less_bool": "tf.less(tf.constant([True]), tf.constant([True]))",
    "floordiv_bool": "tf.floordiv(tf.constant([True]), tf.constant([True]))",
    "cumsum_bool": "tf.cumsum(tf.constant([True]))",
    "reduce_max_bool": "tf.reduce_max(tf.constant([True]))",
    "pow_uint8": "tf.pow(tf.constant([2], tf.uint8), tf.constant([2], tf.uint8))",
    "squared_difference_int8": "tf.squared_difference(tf.constant([1], tf.int8), tf.constant([1], tf.int8))",
    "where_int_float": "tf.where(tf.constant([True]), tf.constant([1]), tf.constant([1.0]))",
    "equal_int_float": "tf.equal(tf.constant([1]), tf.constant([1.0]))",
    "sqrt_float16": "tf.sqrt(tf.constant([4.0], tf.float16))",
    "maximum_float64_python": "tf.maximum(tf.constant([1.0], tf.float64), 2.0)",
    "rpow_float64": "2 ** tf.constant([1.0], tf.float64)",
    "rsub_float64": "1.0 - tf.constant([1.0], tf.float64)",
    "floordiv_operator_int": "tf.constant([7]) // 2",
    "truediv_int32": "tf.constant([7]) / 2",
    "argmax_bool": "tf.argmax(tf.constant([True, False]))",
    "div_int": "tf.div(tf.constant([7]), 2)",
    "reduce_sum_bool": "tf.reduce_sum(tf.constant([True, False]))",
    "reduce_mean_bool": "tf.reduce_mean(tf.constant([True, False]))",
    "add_bool": "tf.add(tf.constant([True]), tf.constant([True]))",
    "add_operator_bool": "tf.constant([True]) + tf.constant([True])",
    "subtract_bool": "tf.subtract(tf.constant([True]), tf.constant([True]))",
    "multiply_bool": "tf.constant([True]) * tf.constant([True])",
    "negative_uint8": "tf.negative(tf.constant([1], tf.uint8))",
    "add_strings": "tf.add(tf.constant(['a']), tf.constant(['b']))",
}

PROGRAM = """
try:
    tensor = {expression}
    result = ["ok", tensor.op.type, tensor.dtype.name]
except Exception as error:
    result = [type(error).__name__, str(error)]
"""

# Types TensorFlow lists that webflow does not have; allowed-type lists are compared without them.
_ABSENT = {"bfloat16", "complex64", "complex128", "qint8", "quint8", "qint16", "quint16", "qint32"}


def _normalise(result):
    kind, *rest = result
    if kind == "ok":
        return result
    message = rest[0]
    match = re.match(r"(Value passed to parameter '\w+' has DataType \w+ not in list of allowed values: )(.*)", message)
    if match:
        allowed = {name.strip() for name in match.group(2).split(",")} - _ABSENT
        return [kind, match.group(1), sorted(allowed)]
    return [kind, message]


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
def test_build_time_dtype_rules_match_tensorflow():
    programs = {key: PROGRAM.format(expression=expression) for key, expression in BUILD_CASES.items()}
    expected = run_tensorflow(programs)
    for key, source in programs.items():
        assert _normalise(run_webflow(source)) == _normalise(expected[key]), key


# --- the same rules, stated directly (these run without TensorFlow) ---------------------------------------
def test_mixed_dtypes_raise_type_error_naming_op_inputs_and_dtypes():
    tf.disable_v2_behavior()
    with pytest.raises(TypeError, match=r"Input 'y' of 'AddV2' Op has type float32 that does not match "
                                        r"type int32 of argument 'x'\."):
        tf.constant(1) + tf.constant(1.0)
    with pytest.raises(TypeError, match=r"Input 'e' of 'Select' Op has type float32 that does not match "
                                        r"type int32 of argument 't'\."):
        tf.where(tf.constant([True]), tf.constant([1]), tf.constant([1.0]))


def test_mixed_dtypes_raise_eagerly_too():
    # TensorFlow raises InvalidArgumentError here when eager; webflow keeps the graph-mode TypeError.
    with pytest.raises(TypeError, match="Maximum"):
        wf.maximum(wf.constant([1]), wf.constant([1.0]))


@pytest.mark.parametrize("op", ["sqrt", "exp", "log", "sigmoid", "tanh", "rsqrt", "log1p", "sin", "cos"])
def test_float_only_ops_reject_integers(op):
    function = getattr(wf.math, op)
    with pytest.raises(TypeError, match=r"Value passed to parameter 'x' has DataType int32 not in list of "
                                        r"allowed values: float16, bfloat16, float32, float64"):
        function(wf.constant([1, 2]))


def test_bool_only_ops_name_the_expected_type():
    with pytest.raises(TypeError, match=r"Input 'x' of 'LogicalAnd' Op has type int32 that does not match "
                                        r"expected type of bool\."):
        wf.logical_and(wf.constant([1]), wf.constant([1]))
    with pytest.raises(TypeError, match=r"Input 'input' of 'Any' Op has type int32"):
        wf.reduce_any(wf.constant([1]))


def test_python_numbers_take_the_tensor_dtype_on_either_side():
    t64 = wf.constant([1.0, 2.0], wf.float64)
    for result in (t64 + 1.0, 1.0 - t64, 2 ** t64, t64 ** 2, wf.maximum(t64, 0.5), t64 // 1.5, 3.0 % t64):
        assert result.dtype == wf.float64
    with pytest.raises(TypeError):
        wf.constant([1, 2]) + 1.5  # 1.5 cannot be an int32


def test_integer_true_division_gives_float64_and_floor_division_stays_int():
    assert (wf.constant([7]) / 2).dtype == wf.float64
    assert (wf.constant([7]) // 2).dtype == wf.int32
    assert tf.div(wf.constant([-7]), 2).numpy().tolist() == [-4]  # TF1 div on ints is floor division


@pytest.mark.parametrize("build, message", [
    (lambda: tf.floordiv(tf.constant([1]), tf.constant([0])), "Integer division by zero"),
    (lambda: tf.floormod(tf.constant([1]), tf.constant([0])), "Integer division by zero"),
    (lambda: tf.truncatediv(tf.constant([1]), tf.constant([0])), "Integer division by zero"),
    (lambda: tf.pow(tf.constant([2]), tf.constant([-1])), "Integers to negative integer powers are not allowed"),
])
def test_integer_arithmetic_errors_at_run_time(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        build()  # eager
    tf.disable_v2_behavior()
    tensor = build()  # graph: builds fine, fails when run
    with tf.Session() as session, pytest.raises(tf.errors.InvalidArgumentError, match=message):
        session.run(tensor)


def test_float_division_by_zero_is_inf_not_an_error():
    np.testing.assert_array_equal(wf.math.floordiv(wf.constant([1.0, -1.0]), 0.0).numpy(), [np.inf, -np.inf])
    assert np.isnan(wf.math.floormod(wf.constant([1.0]), 0.0).numpy()[0])


def test_matmul_converts_numpy_arrays_and_lists_like_tensorflow():
    import webflow as wf

    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(wf.matmul(a, b).numpy(), a @ b)
    np.testing.assert_array_equal(wf.matmul([[1.0, 2.0]], [[3.0], [4.0]]).numpy(), [[11.0]])
