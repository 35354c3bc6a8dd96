"""TF2's eager `tf.debugging.check_numerics` (the CheckNumerics op run now) against TensorFlow 2.21: the same error
class and text, an InvalidArgumentError whose message is TensorFlow's kernel text ("x : Tensor had NaN values
[Op:CheckNumerics]"), not a Python error wrapped inside one. Compared as test_ensure_shape_check_numerics_vs_tf.py
compares: without the "{{function_node ...}} " prefix and the " name: " suffix TensorFlow puts around every eager
error. TF1 graphs (the node in the message): tests/test_run_time_messages.py."""

from __future__ import annotations

import sys

import pytest
from test_debugging_vs_tf import _run as run_cases
from test_ensure_shape_check_numerics_vs_tf import _without_wrapping
from tf_subprocess import SKIP_REASON, TF_PYTHON

CASES = {
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


@pytest.fixture(scope="module")
def outcomes() -> dict:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return {"tensorflow": run_cases(TF_PYTHON, "tensorflow", CASES),
            "webflow": run_cases(sys.executable, "webflow", CASES)}


@pytest.mark.parametrize("case", list(CASES))
def test_same_as_tensorflow(case: str, outcomes: dict) -> None:
    theirs, mine = _without_wrapping(outcomes["tensorflow"][case]), _without_wrapping(outcomes["webflow"][case])
    expected_to_pass = case.endswith(("holds", "gradient", "op_error"))
    assert (theirs["outcome"] == ["ok"]) == expected_to_pass, f"{case}: TensorFlow's outcome is not the expected one"
    assert mine == theirs
