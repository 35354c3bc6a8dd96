"""Op table rows for Assert, Print and PrintV2 (ops/logging_ops.py, through ops/assert_ops.py's tf.Assert, tf.Print and
tf.print) and EnsureShape (ops/ensure_shape_ops.py); see tests/op_harness.py for what each row checks.

Each row's output is its input passed on (an identity after the check or print), so the oracle is the input
itself; Print's gradient is the incoming one for its first input (TensorFlow's _PrintGrad), checked against central
differences like every row. Assert and PrintV2 have no output: in a graph the rows put them in control
dependencies, which the Session must run. What a failing Assert says and what the prints write are compared with
TensorFlow 2.21 in tests/debugging/.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops.assert_ops import Assert, Print, print_v2
from webflow.ops.ensure_shape_ops import ensure_shape

rng = np.random.default_rng(3)
SMALL = rng.standard_normal((2, 3)).astype(np.float32)
COUNTS = np.array([3, 1, 4, 1, 5], np.int32)


def after(check, x):
    """x, after `check` ran: a control dependency in a graph; eagerly the check already ran (and returned None)."""
    if check is None:
        return wf.identity(x)
    with wf.control_dependencies([check]):
        return wf.identity(x)


CASES = [
    # float data: TensorFlow guards the Assert (AssertGuard); the condition holds, so x passes through
    OpCase("assert_float_data", lambda x: after(Assert(wf.reduce_all(x < 100.0), ["x is", x]), x), [SMALL],
           lambda x: x),
    # int32 and string data: the Assert op directly (no guard)
    OpCase("assert_int_data", lambda n: after(Assert(wf.reduce_all(n > 0), ["counts", n], summarize=2), n),
           [COUNTS], lambda n: n, grad=False),
    # TF1's Print: an identity of its first input that writes the data to stderr when it runs
    OpCase("print_identity", lambda x: Print(x, [x, "tail"], message="x = ", summarize=2), [SMALL], lambda x: x),
    OpCase("print_first_n", lambda x: Print(x * 2.0, [x], first_n=1), [SMALL.astype(np.float64)], lambda x: x * 2.0),
    # tf.print: StringFormat + PrintV2 (stderr); no output, so a control dependency in a graph
    OpCase("print_v2", lambda x: after(print_v2("values:", x, summarize=1), x), [SMALL], lambda x: x),
    # EnsureShape: x passed on after its shape is checked (unknown dims match any); its gradient is the incoming one
    OpCase("ensure_shape_float", lambda x: ensure_shape(x * x, [2, None]), [SMALL], lambda x: x * x),
    OpCase("ensure_shape_int", lambda n: ensure_shape(n, [5]), [COUNTS], lambda n: n, grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)
