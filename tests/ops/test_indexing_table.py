"""Op table rows for slicing and gathering (see tests/op_harness.py for what each row checks)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case, check_forward_eager, check_gradients, run_in_graph

import webflow as wf

rng = np.random.default_rng(2)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def ids(*values):
    return np.array(values, dtype=np.int32)


def gather_nd_ref(p, i):
    return p[tuple(np.moveaxis(i, -1, 0))]


CASES = [
    OpCase("getitem_int", lambda x: x[1], [r(3, 4)], lambda x: x[1]),
    OpCase("getitem_column", lambda x: x[:, 1], [r(3, 4)], lambda x: x[:, 1]),
    OpCase("getitem_negative", lambda x: x[-1, -2:], [r(3, 4)], lambda x: x[-1, -2:]),
    OpCase("getitem_strides", lambda x: x[::2, 1::2], [r(5, 6)], lambda x: x[::2, 1::2]),
    OpCase("getitem_negative_strides", lambda x: x[::-1, 4:0:-2], [r(3, 6)], lambda x: x[::-1, 4:0:-2]),
    OpCase("getitem_ellipsis_newaxis", lambda x: x[..., None, 0], [r(2, 3, 4)], lambda x: x[..., None, 0]),
    OpCase("getitem_newaxis_front", lambda x: x[None, 1:, ...], [r(3, 2)], lambda x: x[None, 1:, ...]),
    OpCase("getitem_tensor_index", lambda x, i: x[i], [r(4, 3), np.int32(2)], lambda x, i: x[i]),
    OpCase("getitem_out_of_range_slice", lambda x: x[1:10], [r(3, 2)], lambda x: x[1:10]),
    OpCase("strided_slice_masks", lambda x: wf.strided_slice(x, [0, 1], [2, 3], [1, 1], begin_mask=1, end_mask=2,
                                                              shrink_axis_mask=0), [r(3, 4)], lambda x: x[:2, 1:]),
    OpCase("slice", lambda x: wf.slice(x, [1, 0], [2, -1]), [r(4, 3)], lambda x: x[1:3, :]),
    OpCase("slice_3d", lambda x: wf.slice(x, [0, 1, 1], [1, 2, 2]), [r(2, 3, 4)], lambda x: x[0:1, 1:3, 1:3]),
    OpCase("gather_axis0", lambda p: wf.gather(p, [2, 0, 2]), [r(4, 3)], lambda p: p[[2, 0, 2]]),
    OpCase("gather_matrix_ids", lambda p, i: wf.gather(p, i), [r(5, 2), ids(1, 4, 1, 0).reshape(2, 2)],
           lambda p, i: p[i]),
    OpCase("gather_axis1", lambda p: wf.gather(p, [1, 1, 0], axis=1), [r(2, 3, 4)], lambda p: p[:, [1, 1, 0]]),
    OpCase("gather_axis_last_matrix_ids", lambda p, i: wf.gather(p, i, axis=-1),
           [r(2, 3), ids(2, 0, 0, 1).reshape(2, 2)], lambda p, i: np.take(p, i, axis=-1)),
    OpCase("gather_nd_elements", lambda p, i: wf.gather_nd(p, i), [r(3, 4), ids(0, 1, 2, 3, 0, 1).reshape(3, 2)],
           gather_nd_ref),
    OpCase("gather_nd_rows", lambda p, i: wf.gather_nd(p, i), [r(3, 4, 2), ids(2, 0, 2).reshape(3, 1)], gather_nd_ref),
    OpCase("scatter_nd", lambda i, u: wf.scatter_nd(i, u, [4, 2]), [ids(1, 3, 1).reshape(3, 1), r(3, 2)],
           lambda i, u: np.add.at(z := np.zeros((4, 2), u.dtype), i[:, 0], u) or z),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


# boolean_mask's output length depends on the mask's values, so its static shape has one unknown dim
# (TensorFlow gives (?, 2) too): these rows check that shape instead of a fully inferred one.
# The masks are Python lists so that tests/no_numpy_tables.py runs these rows without NumPy too.
MASK_CASES = [
    OpCase("boolean_mask", lambda x: wf.boolean_mask(x, [True, False, True]), [r(3, 2)],
           lambda x: x[[0, 2]]),
    OpCase("boolean_mask_2d", lambda x: wf.boolean_mask(x, [[True, False], [True, True]]), [r(2, 2, 3)],
           lambda x: x[np.array([[True, False], [True, True]])]),
    OpCase("boolean_mask_axis1", lambda x: wf.boolean_mask(x, [False, True, True], axis=1), [r(2, 3)],
           lambda x: x[:, 1:]),
]


@pytest.mark.parametrize("case", MASK_CASES, ids=str)
def test_boolean_mask(case):
    eager_values = check_forward_eager(case)
    for known in (True, False):
        shapes, values = run_in_graph(case, known)
        for static, value, eager in zip(shapes, values, eager_values):
            assert static.is_compatible_with(np.shape(value))
            if known:
                expected = list(np.shape(value))
                expected[1 if "axis1" in case.id else 0] = None
                assert static.as_list() == expected
            np.testing.assert_allclose(value, eager)
    check_gradients(case)
