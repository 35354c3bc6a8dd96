"""Op table rows for the ops of ops/nn_loss_ops.py (see tests/op_harness.py for what each row checks).

The fused optimizer ops (ops/training_ops.py) are stateful and are checked by tests/test_optimizers.py."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = [
    OpCase("l2_loss_matrix", lambda t: wf.nn.l2_loss(t), [r(3, 4)], lambda t: np.sum(t * t) / 2),
    OpCase("l2_loss_scalar", lambda t: wf.nn.l2_loss(t), [np.float32(1.5)], lambda t: np.asarray(np.sum(t * t) / 2)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)
