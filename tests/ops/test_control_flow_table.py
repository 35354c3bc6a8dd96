"""Op table rows for control flow and function calls: cond (If), while_loop (While, and WhileGrad in its
gradient), wf.function calls (PartitionedCall, StatefulPartitionedCall) and tf.tuple's group (NoOp).

Eagerly these run as plain Python (a wf.function still runs its call op); in a graph they build the functional
ops of ops/functional_ops.py. References are plain NumPy; see tests/op_harness.py for the four checks.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.ops import optional_ops

rng = np.random.default_rng(4)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def cube(x):
    """x * x * x by a counted while_loop (three iterations)."""
    return wf.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x), [wf.constant(0), wf.ones_like(x)])[1]


def double_until(x):
    """Doubles x until its sum reaches 10: the trip count depends on the values."""
    return wf.while_loop(lambda acc: wf.reduce_sum(acc) < 10.0, lambda acc: [acc * 2.0], [x])[0]


def np_double_until(x):
    while x.sum() < 10:
        x = x * 2
    return x


@wf.function
def product_plus_sine(x, y):
    return x * y + wf.sin(x)


@wf.function
def draws(logits):
    """A call whose graph holds a stateful (random) op; one finite logit per row makes the draws certain."""
    return wf.random.categorical(logits, 4, seed=3)


ONE_CLASS_PER_ROW = np.array([[-np.inf, 0.0, -np.inf], [0.0, -np.inf, -np.inf]], np.float32)

CASES = [
    OpCase("cond_true", lambda p, x, y: wf.cond(p, lambda: x * y, lambda: x - y), [np.array(True), r(2, 3), r(2, 3)],
           lambda p, x, y: x * y if p else x - y),
    OpCase("cond_false", lambda p, x, y: wf.cond(p, lambda: x * y, lambda: x - y), [np.array(False), r(2, 3), r(3)],
           lambda p, x, y: x * y if p else x - y),
    OpCase("cond_two_outputs_one_capture", lambda p, x, y: list(wf.cond(p, lambda: (x, 2.0 * x), lambda: (y, x + y))),
           [np.array(False), r(4), r(4)], lambda p, x, y: [x, 2 * x] if p else [y, x + y]),
    OpCase("while_loop_counted", cube, [r(2, 3)], lambda x: x * x * x),
    OpCase("while_loop_value_dependent", double_until, [np.array([0.3, 0.9, 0.5], np.float32)], np_double_until),
    OpCase("function_call", lambda x, y: product_plus_sine(x, y), [r(3, 2), r(3, 2)], lambda x, y: x * y + np.sin(x)),
    OpCase("function_call_stateful", lambda logits: draws(logits), [ONE_CLASS_PER_ROW],
           lambda logits: np.repeat(np.argmax(logits, axis=1)[:, None], 4, axis=1).astype(np.int64), grad=False),
    OpCase("tuple_groups_its_inputs", lambda x, y: tf1.tuple([x * 2.0, y + 1.0]), [r(3), r(2, 2)],
           lambda x, y: [x * 2, y + 1]),
    # Optionals (what TensorFlow's cond_v2 hands a gradient; ops/optional_ops.py): packed, unpacked, and asked
    OpCase("optional_from_and_get_value", lambda x, y: optional_ops.optional_get_value(
               optional_ops.optional_from_value([x, 3.0 * y]), [x.dtype, y.dtype], [x.shape, y.shape]),
           [r(2, 3), r(4)], lambda x, y: [x, 3 * y]),
    OpCase("optional_has_value", lambda x: [optional_ops.optional_has_value(optional_ops.optional_none()),
                                            optional_ops.optional_has_value(optional_ops.optional_from_value([x]))],
           [r(2)], lambda x: [np.array(False), np.array(True)], grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
