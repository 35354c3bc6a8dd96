"""Op table rows for the row scatters (ops/scatter_ops.py): `tf.scatter_add / scatter_sub / scatter_update` on a
`wf.Variable` made from the first input, as a learner does: in the harness's graph a TF1 RefVariable (ScatterAdd,
ScatterSub, ScatterUpdate), eagerly a ResourceVariable (ResourceScatterAdd, ResourceScatterSub, ResourceScatterUpdate).
Graph and eager runs must both give the NumPy reference (np.add.at / np.subtract.at: each index's rows in turn). No
gradients: they update state, in TensorFlow too. tests/train/test_sparse_updates.py has the stories.
"""

import numpy as np
import pytest
from op_harness import OpCase, after_initializers, check_case

import webflow as wf
from webflow.ops import scatter_ops

rng = np.random.default_rng(26)


def r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def scattered(function):
    """The variable's value after `function(variable, indices, updates)` (the op's output in a graph, a read
    eagerly)."""
    def build(initial, indices, updates):
        variable = wf.Variable(initial)
        with after_initializers(variable):
            result = function(variable, indices, updates)
            return variable.read_value() if wf.executing_eagerly() else wf.identity(result)

    return build


def np_scatter(ufunc):
    def reference(initial, indices, updates):
        out = np.array(initial, copy=True)
        ufunc.at(out, indices, updates)
        return out

    return reference


def np_scatter_update(initial, indices, updates):
    out = np.array(initial, copy=True)
    out[indices] = updates
    return out


STATE = {"unknown_shapes": False, "grad": False}
REPEATED = np.array([2, 0, 2], np.int32)

CASES = [
    OpCase("scatter_add", scattered(scatter_ops.scatter_add), [r(4, 3), REPEATED, r(3, 3)], np_scatter(np.add),
           **STATE),
    OpCase("scatter_sub", scattered(scatter_ops.scatter_sub), [r(4, 3), REPEATED, r(3, 3)], np_scatter(np.subtract),
           **STATE),
    OpCase("scatter_sub_float64_int64_indices", scattered(scatter_ops.scatter_sub),
           [r(5, 2, dtype=np.float64), np.array([4, 1], np.int64), r(2, 2, dtype=np.float64)],
           np_scatter(np.subtract), **STATE),
    OpCase("scatter_add_vector", scattered(scatter_ops.scatter_add), [r(6), np.array([5, 5, 0], np.int32), r(3)],
           np_scatter(np.add), **STATE),
    OpCase("scatter_update", scattered(scatter_ops.scatter_update), [r(4, 3), np.array([3, 0], np.int32), r(2, 3)],
           np_scatter_update, **STATE),
    OpCase("scatter_sub_embedding_rows", scattered(scatter_ops.scatter_sub),
           [r(50, 16), rng.integers(0, 50, 40).astype(np.int32), r(40, 16)], np_scatter(np.subtract), **STATE),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
