"""Op table rows for variables (ops/state_ops.py, ops/resource_variable_ops.py). Each row makes a `wf.Variable`
from its first input, as a learner does: in the harness's graph that is a TF1 RefVariable (VariableV2, its Assign
initializer, Assign / AssignAdd / AssignSub, IsVariableInitialized), eagerly a ResourceVariable (AssignVariableOp,
AssignAddVariableOp, AssignSubVariableOp, ReadVariableOp). Graph and eager runs must both give the NumPy reference
(see tests/op_harness.py). No gradients: assignments are not differentiable, in TensorFlow either.
"""

import numpy as np
import pytest
from op_harness import OpCase, after_initializers, check_case

import webflow as wf

rng = np.random.default_rng(6)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def assigned(method):
    """The variable's value after `variable.<method>(value)` (the op's output in a graph, a read eagerly)."""
    def build(initial, value):
        variable = wf.Variable(initial)
        with after_initializers(variable):
            return wf.identity(getattr(variable, method)(value))

    return build


def initialized_from_another(initial):
    """TF1's idiom for a variable whose initial value is computed from another's: `initialized_value()` (a cond
    on IsVariableInitialized). An eager variable holds its value from the start, so reading it does."""
    first = wf.Variable(initial)
    if wf.executing_eagerly():
        second = wf.Variable(first * 2.0)
    else:
        second = wf.Variable(first.initialized_value() * 2.0)
    with after_initializers(second):
        return second.read_value()


STATE = {"unknown_shapes": False, "grad": False}  # a variable needs a known shape; no gradients through state

CASES = [
    OpCase("assign", assigned("assign"), [r(2, 3), r(2, 3)], lambda x, y: y, **STATE),
    OpCase("assign_add", assigned("assign_add"), [r(2, 3), r(2, 3)], lambda x, y: x + y, **STATE),
    OpCase("assign_sub", assigned("assign_sub"), [r(4), r(4)], lambda x, y: x - y, **STATE),
    OpCase("assign_add_int32", assigned("assign_add"), [np.array([1, -2, 3], np.int32), np.array([5, 5, -5], np.int32)],
           lambda x, y: x + y, **STATE),
    OpCase("assign_scalar", assigned("assign"), [np.float32(1.5), np.float32(-0.25)], lambda x, y: np.asarray(y),
           **STATE),
    OpCase("initialized_value", initialized_from_another, [r(2, 2)], lambda x: x * 2, **STATE),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
