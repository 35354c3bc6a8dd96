"""TF2 `tf.ensure_shape` (eagerly and in a wf.function), `tf.debugging.enable_check_numerics` and the eager
`tf.debugging.check_numerics` op (an InvalidArgumentError with TensorFlow's kernel text, "x : Tensor had NaN values
[Op:CheckNumerics]", not a Python error wrapped in one) against TensorFlow 2.21: the same case source runs under
both (cases_driver.py, one subprocess each) and must raise the same error class with the same text, or print the
same characters. TF1 graphs: tests/tf1_programs/ensure_shape.py and tests/test_run_time_messages.py.

Eager errors are compared without what TensorFlow wraps around every eager kernel error and webflow does not write:
the "{{function_node __wrapped__<Op>_device_/job:localhost/...}} " before the text and the " name: <name>" after
"[Op:<Op>]". Inside a wf.function the cases pick out the lines TensorFlow's traceback and stack trace surround.
"""

from __future__ import annotations

import re
import sys

import pytest
from test_debugging_vs_tf import _run as run_cases
from tf_subprocess import SKIP_REASON, TF_PYTHON

# a case fails with RuntimeError(lines) when only those lines of a long TensorFlow message are compared
LINES_FROM = ("def lines_from(text, start, count):\n"
              "    k = next(i for i, line in enumerate(text.split('\\n')) if line.startswith(start))\n"
              "    return text.split('\\n')[k:k + count]\n")
ENSURE_SHAPE = {
    "mismatch": "tf.ensure_shape(tf.zeros([3, 2]), [3, 3])",
    "named": "tf.ensure_shape(tf.zeros([3, 2]), [3, 3], name='foo')",
    "partial": "tf.ensure_shape(tf.zeros([3, 2]), [None, 3])",
    "scalar": "tf.ensure_shape(tf.zeros([]), [1])",
    "strings": "tf.ensure_shape(tf.constant(['a', 'b']), [3])",
    "holds": "r = tf.ensure_shape(tf.constant([[1, 2, 3]]), [None, 3])\nprint(r.shape, r.dtype.name, r.numpy())\n"
             "print(tf.ensure_shape(r, None).shape, tf.ensure_shape(r, tf.TensorShape([1, 3])).shape)",
    "gradient": "v = tf.constant([[1.0, 2.0]])\nwith tf.GradientTape() as tape:\n    tape.watch(v)\n"
                "    r = tf.ensure_shape(v * v, [1, None])\nprint(tape.gradient(r, v).numpy())",
    "function_static_shape": "@tf.function(input_signature=[tf.TensorSpec([None, None])])\ndef f(t):\n"
                             "    r = tf.ensure_shape(t, [None, 3])\n    print('traced', r.shape)\n    return r\n"
                             "print(f(tf.ones([2, 3])).numpy())",
    "function_build_error": "@tf.function\ndef f(t):\n    return tf.ensure_shape(t, [None, 3])\ntry:\n"
                            "    f(tf.zeros([3, 2]))\nexcept ValueError as e:\n"
                            "    raise RuntimeError(str(e)[str(e).index('Dimension'):str(e).index(' for ')])",
    "function_argument": LINES_FROM + "@tf.function(input_signature=[tf.TensorSpec([None, None])])\ndef f(t):\n"
                         "    return tf.ensure_shape(t, [3, 3])\ntry:\n    f(tf.zeros([3, 2]))\n"
                         "except tf.errors.InvalidArgumentError as e:\n"
                         "    raise RuntimeError(lines_from(e.message, 'Shape of', 1))",
    "function_inner_tensor": LINES_FROM + "@tf.function(input_signature=[tf.TensorSpec(None)])\ndef g(t):\n"
                             "    return tf.ensure_shape(t * 2, [2])\ntry:\n    g(tf.zeros([3]))\n"
                             "except tf.errors.InvalidArgumentError as e:\n"
                             "    raise RuntimeError(lines_from(e.message, 'Shape of', 1))",
}
ON, OFF = "tf.debugging.enable_check_numerics()\ntry:\n", "finally:\n    tf.debugging.disable_check_numerics()\n"
CHECK_NUMERICS = {
    "log": ON + "    tf.math.log(tf.constant([-1.0, 0.0, 1.0]))\n" + OFF,
    "divide": ON + "    tf.constant([1.0]) / tf.constant([0.0])\n" + OFF,
    "three_kinds": ON + "    tf.constant([-1.0, 0.0, 1.0]) / tf.constant([0.0, 0.0, 0.0])\n" + OFF,
    "float64_sqrt": ON + "    tf.sqrt(tf.constant([4.0, -4.0], tf.float64))\n" + OFF,
    "finite_passes": ON + "    print(tf.math.log(tf.constant([1.0, 2.0])).numpy(), (tf.range(3) * 2).numpy())\n" + OFF,
    "disabled_passes": ON + "    pass\n" + OFF + "print(tf.math.log(tf.constant([-1.0])).numpy())",
    "function": LINES_FROM + ON + "    @tf.function\n    def h(t):\n        return tf.math.log(t) * 2.0\n"
                "    print(h(tf.constant([1.0])).numpy())\n    try:\n        h(tf.constant([-1.0, 1.0]))\n"
                "    except tf.errors.InvalidArgumentError as e:\n"
                "        raise RuntimeError(lines_from(e.message, '!!!', 6))\n" + OFF,
}
CHECK_NUMERICS_OP = {
    "nan": "tf.debugging.check_numerics(tf.constant([1.0, float('nan'), 2.0]), 'bad value')",
    "inf": "tf.debugging.check_numerics(tf.constant([float('inf'), 1.0]), 'bad value')",
    "minus_inf_and_nan": "tf.debugging.check_numerics(tf.constant([-float('inf'), float('nan')]), 'both')",
    "float64": "tf.debugging.check_numerics(tf.constant([1.0, float('nan')], tf.float64), 'm')",
    "float16": "tf.debugging.check_numerics(tf.constant([65504.0, float('inf')], tf.float16), 'half')",
    "named": "tf.debugging.check_numerics(tf.math.log(tf.constant([-1.0])), 'log of x', name='checked')",
    "zero_over_zero": "tf.debugging.check_numerics(tf.constant([0.0]) / tf.constant([0.0]), 'ratio')",
    "finite_holds": "print(tf.debugging.check_numerics(tf.constant([1.0, -2.0]), 'fine').numpy())",
    "gradient": "v = tf.constant([0.0, 1.0])\nwith tf.GradientTape() as tape:\n    tape.watch(v)\n"
                "    r = tf.debugging.check_numerics(tf.sqrt(v), 'root')\nprint(tape.gradient(r, v).numpy())",
    "caught_as_op_error": "try:\n    tf.debugging.check_numerics(tf.constant([float('nan')]), 'x')\n"
                          "except tf.errors.OpError as e:\n    print(type(e).__name__, e.op, e.node_def)",
}
CASES = {**{f"ensure_shape_{k}": v for k, v in ENSURE_SHAPE.items()},
         **{f"check_numerics_{k}": v for k, v in CHECK_NUMERICS.items()},
         **{f"check_numerics_op_{k}": v for k, v in CHECK_NUMERICS_OP.items()}}


def _without_wrapping(outcome: dict) -> dict:
    """The outcome with TensorFlow's eager-error prefix and " name: ..." suffix cut (see the module docstring)."""
    if len(outcome["outcome"]) == 2:
        kind, text = outcome["outcome"]
        text = re.sub(r"^\{\{function_node __wrapped__\w+_device_[^}]*\}\} ", "", text)
        text = re.sub(r"(\[Op:\w+\]) name: \S*$", r"\1", text)
        outcome = dict(outcome, outcome=[kind, text])
    return outcome


@pytest.fixture(scope="module")
def outcomes() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return {"tensorflow": run_cases(TF_PYTHON, "tensorflow", CASES),
            "webflow": run_cases(sys.executable, "webflow", CASES)}


@pytest.mark.parametrize("case", list(CASES))
def test_same_as_tensorflow(case: str, outcomes: dict) -> None:
    theirs, mine = _without_wrapping(outcomes["tensorflow"][case]), _without_wrapping(outcomes["webflow"][case])
    expected_to_pass = case.endswith(("holds", "passes", "gradient", "static_shape", "op_error"))
    assert (theirs["outcome"] == ["ok"]) == expected_to_pass, f"{case}: TensorFlow's outcome is not the expected one"
    assert mine == theirs
