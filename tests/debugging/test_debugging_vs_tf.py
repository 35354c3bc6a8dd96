"""TF2 (eager and wf.function) assertions and printing against TensorFlow 2.21: the same source runs under both
(cases_driver.py, one subprocess each) and must raise the same error class with the same text, or print the same
characters to stdout and stderr. TF1 graphs are compared in tests/tf1_programs/assert_print.py.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DRIVER = os.path.join(HERE, "cases_driver.py")

SETUP = "x = tf.constant([1., 2., 3.]); y = tf.constant([1., 5., 3.]); i = tf.range(5)\n"
D = "tf.debugging."
CASES = {
    # tf.Assert eagerly: a Python check, TensorFlow's "Expected '...' to be true" text
    "Assert": "tf.Assert(tf.reduce_all(x > 1), [x, 's', 3])",
    "Assert_all": "tf.Assert(False, [i], summarize=-1)",
    "Assert_none": "tf.Assert(tf.constant(False), [i, 7], summarize=0)",
    "Assert_holds": "assert tf.Assert(True, [x]) is None",
    # the element-wise comparisons
    "equal": D + "assert_equal(x, y)",
    "equal_message": D + "assert_equal(x, y, message='custom', summarize=1)",
    "equal_scalars": D + "assert_equal(1, 2)",
    "equal_broadcast": D + "assert_equal(x, 2.0)",
    "equal_2d": D + "assert_equal(tf.constant([[1, 2], [3, 4]]), tf.constant([[1, 0], [3, 0]]))",
    "equal_all": D + "assert_equal(i, tf.zeros([5], tf.int32), summarize=-1)",
    "equal_summarize_0": D + "assert_equal(i, tf.zeros([5], tf.int32), summarize=0)",
    "equal_holds": "assert " + D + "assert_equal(x, x + 0) is None",
    "top_level_equal": "tf.assert_equal(x, y)",
    "none_equal": D + "assert_none_equal(x, y)",
    "less": D + "assert_less(x, y)",
    "top_level_less": "tf.assert_less(y, x)",
    "less_equal": D + "assert_less_equal(y, x)",
    "greater": D + "assert_greater(x, y)",
    "greater_equal": D + "assert_greater_equal(x, y)",
    "negative": D + "assert_negative(x)",
    "positive": D + "assert_positive(x - 2, message='m')",
    "non_negative": D + "assert_non_negative(x - 2)",
    "non_positive": D + "assert_non_positive(x)",
    "near_holds": D + "assert_near(x, x + 1e-7)",
    "near": D + "assert_near(x, y)",
    # ranks, types, shapes
    "rank": D + "assert_rank(x, 2)",
    "rank_message": "tf.assert_rank(x, 2, message='m')",
    "rank_holds": D + "assert_rank(x, 1)",
    "rank_at_least": D + "assert_rank_at_least(x, 2)",
    "rank_in": D + "assert_rank_in(x, [0, 2])",
    "type": D + "assert_type(x, tf.int32)",
    "type_message": D + "assert_type(x, tf.int32, message='m')",
    "integer": D + "assert_integer(x)",
    "integer_holds": "assert " + D + "assert_integer(i) is None",
    "scalar": D + "assert_scalar(x)",
    "is_numeric": "assert [" + D + "is_numeric_tensor(v) for v in (x, tf.constant('a'), 3)] == [True, False, False]",
    "proper_iterable_int": D + "assert_proper_iterable(5)",
    "proper_iterable_str": D + "assert_proper_iterable('ab')",
    "shapes_hold": D + "assert_shapes([(x, ('N',)), (y, ('N',))])",
    "shapes_symbol": D + "assert_shapes([(x, ('N',)), (tf.ones([2]), ('N',))])",
    "shapes_explicit": D + "assert_shapes([(x, (4,))])",
    "shapes_rank": D + "assert_shapes([(x, ('N', 'M'))])",
    "shapes_ellipsis": D + "assert_shapes([(tf.ones([2, 3, 4]), (..., 3, 'K')), (tf.ones([5]), ('K',))])",
    # inside a tf.function: the Assert op runs on every call
    "function_assert": "@tf.function\ndef f(v):\n    " + D + "assert_positive(v, message='must be positive')\n"
                       "f(x)\ntry:\n    f(x - 2)\nexcept tf.errors.InvalidArgumentError as e:\n"
                       "    raise RuntimeError([t for t in e.message.split('\\n') if t.startswith('assertion')])",
    # printing
    "print_stderr": "tf.print('values:', x, i, [1, 2], {'b': x, 'a': 3})",
    "print_stdout": "tf.print(tf.reshape(tf.range(12), [3, 4]), summarize=1, output_stream=sys.stdout)",
    "print_sep_end": "tf.print('a', x, sep='|', end='!\\n', output_stream=sys.stdout)",
    "print_string_scalar": "tf.print(tf.constant('just text'), output_stream=sys.stdout)",
    "print_types": "tf.print(tf.constant([True, False]), tf.constant(['a', 'b\"']), tf.constant(0.1, tf.float64), "
                   "tf.constant([1e-8, 123456789.0]), output_stream=sys.stdout)",
    "print_summarize_all": "tf.print(tf.range(10), summarize=-1, output_stream=sys.stdout)",
    "print_sparse": "tf.print('sp', tf.sparse.SparseTensor([[0, 1]], [5], [2, 3]), output_stream=sys.stdout)",
    "print_bad_stream": "tf.print(x, output_stream='stdout')",
    "print_in_function": "@tf.function\ndef f(v):\n    tf.print('got', v, output_stream=sys.stdout)\n"
                         "f(x)\nf(x * 2)",
}

# eager kernel errors: TensorFlow wraps the kernel's text in "{{function_node __wrapped__<Op>_device_/job:...}} "
# and " name: <name>", which webflow does not write; the class and the text between must be TensorFlow's
UNWRAPPED = {
    "all_finite": D + "assert_all_finite(tf.constant([1., float('nan')]), 'bad')",
    "all_finite_inf": D + "assert_all_finite(tf.constant([[1.], [float('-inf')]]), 'has inf')",
}
_WRAPPED = re.compile(r"\{\{function_node __wrapped__(\w+)_device_/job:[^}]*\}\} (.*) name: \S*", re.S)

# known differences, compared by error class only
CLASS_ONLY = {
    "proper_iterable_tensor": D + "assert_proper_iterable(x)",  # (the class's module path differs)
}


def _run(python: str, framework: str, cases: dict) -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    if framework == "webflow":
        env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    else:
        env.pop("PYTHONPATH", None)
    done = subprocess.run([python, DRIVER, framework], input=json.dumps(cases), capture_output=True, text=True,
                          timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT:")]
    assert done.returncode == 0 and lines, f"the {framework} driver failed:\n{done.stderr[-3000:]}"
    return json.loads(lines[-1][len("RESULT:"):])


@pytest.fixture(scope="module")
def outcomes() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    cases = {key: SETUP + source for key, source in {**CASES, **UNWRAPPED, **CLASS_ONLY}.items()}
    return {"tensorflow": _run(TF_PYTHON, "tensorflow", cases), "webflow": _run(sys.executable, "webflow", cases)}


@pytest.mark.parametrize("case", list(CASES))
def test_same_as_tensorflow(case: str, outcomes: dict) -> None:
    theirs, mine = outcomes["tensorflow"][case], outcomes["webflow"][case]
    assert theirs["outcome"] != ["ok"] or case.endswith(("holds", "hold")) or case.startswith(("print", "is_")), \
        f"{case}: expected TensorFlow to fail: the case is wrong"
    assert mine == theirs


@pytest.mark.parametrize("case", list(CLASS_ONLY))
def test_same_error_class(case: str, outcomes: dict) -> None:
    assert outcomes["webflow"][case]["outcome"][0] == outcomes["tensorflow"][case]["outcome"][0]


def unwrapped(outcome: dict) -> dict:
    """TensorFlow's outcome of an eager kernel error without its wrapping; AssertionError when it is not wrapped
    (then the case tests nothing) or the op named in the wrapping is not the one in the text."""
    kind, text = outcome["outcome"]
    found = _WRAPPED.fullmatch(text)
    assert found, f"not TensorFlow's wrapped eager error: {text!r}"
    assert found.group(2).endswith(f"[Op:{found.group(1)}]"), text
    return dict(outcome, outcome=[kind, found.group(2)])


@pytest.mark.parametrize("case", list(UNWRAPPED))
def test_same_as_tensorflow_unwrapped(case: str, outcomes: dict) -> None:
    assert outcomes["webflow"][case] == unwrapped(outcomes["tensorflow"][case])


def test_unwrapping_keeps_the_text_compared() -> None:
    theirs = {"outcome": ["InvalidArgumentError", "{{function_node __wrapped__CheckNumerics_device_/job:localhost/"
                          "replica:0/task:0/device:CPU:0}} bad : Tensor had NaN values [Op:CheckNumerics] name: "],
              "stdout": "", "stderr": ""}
    same = dict(theirs, outcome=["InvalidArgumentError", "bad : Tensor had NaN values [Op:CheckNumerics]"])
    assert unwrapped(theirs) == same
    for changed in ("bad : Tensor had Inf values [Op:CheckNumerics]", "bad: Tensor had NaN values [Op:CheckNumerics]"):
        assert unwrapped(theirs) != dict(same, outcome=["InvalidArgumentError", changed])
    with pytest.raises(AssertionError, match="not TensorFlow's wrapped"):
        unwrapped(same)
