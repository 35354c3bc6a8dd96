"""Op table rows for tf.nn.moments (mean and variance against NumPy, gradients numerically)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(3)
x = rng.standard_normal((4, 3)).astype(np.float32)

CASES = [
    OpCase("moments_axis0", lambda t: list(wf.nn.moments(t, [0])), [x], lambda a: [a.mean(0), a.var(0)]),
    OpCase("moments_all_keepdims", lambda t: list(wf.nn.moments(t, [0, 1], keep_dims=True)), [x],
           lambda a: [a.mean(keepdims=True), a.var(keepdims=True)]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_moments(case):
    check_case(case)
