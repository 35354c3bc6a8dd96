"""Op table rows for DynamicStitch (`tf.dynamic_stitch`, ops/dynamic_stitch_ops.py): rows of several tensors put
in place by index lists; a repeated index keeps the later row. Oracle: a NumPy loop over the index lists in order.
The gradient of each data tensor gathers the rows of the upstream gradient its indices name (TensorFlow's rule),
checked against central differences where no index repeats."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

from webflow.ops.dynamic_stitch_ops import dynamic_stitch

rng = np.random.default_rng(41)


def r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def stitched(indices, data):
    """The NumPy oracle: merged[indices[m][i]] = data[m][i], in order (later writes win)."""
    flat = [np.asarray(i).reshape(-1) for i in indices]
    tail = np.shape(data[0])[np.ndim(indices[0]):]
    rows = max((int(i.max()) + 1 for i in flat if i.size), default=0)
    out = np.zeros((rows,) + tail, np.asarray(data[0]).dtype)
    for index, value in zip(flat, data):
        for position, row in enumerate(index):
            out[row] = np.asarray(value).reshape((index.size,) + tail)[position]
    return out


def two_way(i0, i1, d0, d1):
    return dynamic_stitch([i0, i1], [d0, d1])


CASES = [
    OpCase("interleave_rows", two_way, [np.array([0, 2], np.int32), np.array([1, 3], np.int32), r(2, 3), r(2, 3)],
           lambda i0, i1, d0, d1: stitched([i0, i1], [d0, d1]), fully_static=False),
    OpCase("matrix_indices", two_way, [np.array([[0, 4], [2, 1]], np.int32), np.array([3], np.int32), r(2, 2, 2),
                                       r(1, 2)], lambda i0, i1, d0, d1: stitched([i0, i1], [d0, d1]),
           fully_static=False),
    # a shape vector as reduced_shape builds it: range(rank) with the dims, then the reduced axes with 1s
    OpCase("reduced_shape_int32", two_way, [np.arange(3, dtype=np.int32), np.array([1], np.int32),
                                            np.array([4, 5, 6], np.int32), np.array([1], np.int32)],
           lambda i0, i1, d0, d1: stitched([i0, i1], [d0, d1]), grad=False, fully_static=False),
    # index 1 twice: the later list's row wins (a gradient still reaches the overwritten row, as in TensorFlow)
    OpCase("repeated_index_later_wins", two_way, [np.array([0, 1], np.int32), np.array([1], np.int32), r(2),
                                                  r(1, dtype=np.float64).astype(np.float32)],
           lambda i0, i1, d0, d1: stitched([i0, i1], [d0, d1]), grad=False, fully_static=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case: OpCase) -> None:
    check_case(case)
