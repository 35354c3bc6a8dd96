"""Op table rows for the core math and array ops (see tests/op_harness.py for what each row checks)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.ops.constants import placeholder_with_default
from webflow.ops.gather_ops import unique

rng = np.random.default_rng(0)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


CASES = [
    OpCase("add", lambda x, y: wf.add(x, y), [r(2, 3), r(2, 3)], np.add),
    OpCase("add_broadcast", lambda x, y: x + y, [r(4, 1, 3), r(2, 1)], np.add),
    OpCase("subtract_broadcast", lambda x, y: x - y, [r(3), r(2, 3)], np.subtract),
    OpCase("multiply_broadcast", lambda x, y: x * y, [r(2, 3), r(3)], np.multiply),
    OpCase("divide", lambda x, y: x / y, [r(2, 3), r(1, 3) + 3.0], np.divide),
    OpCase("negative", lambda x: -x, [r(5)], np.negative),
    OpCase("add_n", lambda x, y, z: wf.add_n([x, y, z]), [r(2, 2), r(2, 2), r(2, 2)], lambda a, b, c: a + b + c),
    OpCase("matmul", lambda a, b: wf.matmul(a, b), [r(3, 4), r(4, 2)], np.matmul),
    OpCase("matmul_ta", lambda a, b: wf.matmul(a, b, transpose_a=True), [r(4, 3), r(4, 2)], lambda a, b: a.T @ b),
    OpCase("matmul_tb", lambda a, b: wf.matmul(a, b, transpose_b=True), [r(3, 4), r(2, 4)], lambda a, b: a @ b.T),
    OpCase("matmul_tab", lambda a, b: wf.matmul(a, b, transpose_a=True, transpose_b=True), [r(4, 3), r(2, 4)],
           lambda a, b: a.T @ b.T),
    OpCase("matmul_batch", lambda a, b: wf.matmul(a, b), [r(2, 3, 4), r(2, 4, 5)], np.matmul),
    OpCase("matmul_batch_broadcast", lambda a, b: wf.matmul(a, b), [r(2, 3, 4), r(4, 5)], np.matmul,
           unknown_shapes=False),
    OpCase("reduce_sum_all", lambda x: wf.reduce_sum(x), [r(2, 3)], np.sum),
    OpCase("reduce_sum_axis", lambda x: wf.reduce_sum(x, axis=1), [r(2, 3, 4)], lambda x: x.sum(1)),
    OpCase("reduce_sum_neg_keepdims", lambda x: wf.reduce_sum(x, axis=-1, keepdims=True), [r(2, 3)],
           lambda x: x.sum(-1, keepdims=True)),
    OpCase("reduce_mean_axes", lambda x: wf.reduce_mean(x, axis=[0, 2]), [r(2, 3, 4)], lambda x: x.mean((0, 2))),
    OpCase("cast_float64", lambda x: wf.cast(x, wf.float64), [r(3)], lambda x: x.astype(np.float64), grad=False),
    OpCase("reshape", lambda x: wf.reshape(x, [3, -1]), [r(2, 3, 2)], lambda x: x.reshape(3, -1)),
    OpCase("concat", lambda x, y: wf.concat([x, y], axis=1), [r(2, 3), r(2, 1)],
           lambda x, y: np.concatenate([x, y], 1)),
    OpCase("stack", lambda x, y: wf.stack([x, y], axis=1), [r(2, 3), r(2, 3)], lambda x, y: np.stack([x, y], 1)),
    OpCase("unstack", lambda x: wf.unstack(x, axis=1), [r(2, 3)], lambda x: [x[:, i] for i in range(3)],
           unknown_shapes=False),
    OpCase("split_sizes", lambda x: wf.split(x, [1, 2], axis=1), [r(2, 3)], lambda x: [x[:, :1], x[:, 1:]]),
    OpCase("split_rest", lambda x: wf.split(x, [-1, 2], axis=1), [r(2, 5)], lambda x: [x[:, :3], x[:, 3:]]),
    OpCase("split_number", lambda x: wf.split(x, 2, axis=0), [r(4, 3)], lambda x: [x[:2], x[2:]],
           unknown_shapes=False),
    OpCase("broadcast_to", lambda x: wf.broadcast_to(x, [2, 3]), [r(1, 3)], lambda x: np.broadcast_to(x, (2, 3))),
    OpCase("identity", lambda x: wf.identity(x), [r(3)], lambda x: x),
    OpCase("one_hot", lambda i: wf.one_hot(i, 4), [np.array([0, 3, 1], np.int32)],
           lambda i: np.eye(4, dtype=np.float32)[i], grad=False),
    OpCase("one_hot_axis0_on_off", lambda i: wf.one_hot(i, 3, on_value=5.0, off_value=-1.0, axis=0),
           [np.array([2, 0], np.int32)], lambda i: np.where(np.eye(3)[i].T > 0, 5.0, -1.0).astype(np.float32),
           grad=False),
    OpCase("size", lambda x: wf.size(x), [r(2, 3)], lambda x: np.array(x.size, np.int32), grad=False),
    OpCase("shape", lambda x: wf.shape(x), [r(2, 3)], lambda x: np.array(x.shape, np.int32), grad=False),
    OpCase("rank", lambda x: wf.rank(x), [r(2, 3)], lambda x: np.array(x.ndim, np.int32), grad=False),
    OpCase("placeholder_with_default", lambda x: placeholder_with_default(x, [None, 3]) * 2.0, [r(2, 3)],
           lambda x: x * 2.0, fully_static=False),  # its static shape is the one it is given
    OpCase("unique", lambda x: list(unique(x)), [np.array([4, 1, 4, 2, 1], np.int32)],
           lambda x: [np.array([4, 1, 2], np.int32), np.array([0, 1, 0, 2, 1], np.int32)], grad=False,
           fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
