"""Op table rows for CheckNumerics (ops/numerics_ops.py); see tests/op_harness.py for what each row checks. Its
failures (NaN, Inf, both) are compared with TensorFlow's words in tests/test_run_time_messages.py."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

from webflow.ops.numerics_ops import check_numerics

rng = np.random.default_rng(0)

CASES = [
    # finite values pass through unchanged; the gradient is the incoming one (itself checked)
    OpCase("check_numerics", lambda x: check_numerics(x, "x"), [rng.standard_normal((2, 3)).astype(np.float32)],
           lambda x: x),
    OpCase("check_numerics_float64", lambda x: check_numerics(x * 2.0, "twice x"),
           [rng.standard_normal(4).astype(np.float64)], lambda x: x * 2.0),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)
