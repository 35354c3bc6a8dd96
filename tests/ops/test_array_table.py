"""Op table rows for the array ops that move elements around (see tests/op_harness.py for what each row checks)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def mirror_symmetric(x):
    return np.pad(x, [(1, 2), (2, 0)], mode="symmetric")


CASES = [
    OpCase("transpose_default", lambda x: wf.transpose(x), [r(2, 3, 4)], lambda x: x.T),
    OpCase("transpose_perm", lambda x: wf.transpose(x, [1, 0, 2]), [r(2, 3, 4)], lambda x: x.transpose(1, 0, 2)),
    OpCase("expand_dims", lambda x: wf.expand_dims(x, 1), [r(2, 3)], lambda x: x[:, None]),
    OpCase("expand_dims_neg", lambda x: wf.expand_dims(x, -1), [r(2, 3)], lambda x: x[..., None]),
    OpCase("squeeze_all", lambda x: wf.squeeze(x), [r(1, 3, 1)], lambda x: x.reshape(3), unknown_shapes=False),
    OpCase("squeeze_axis", lambda x: wf.squeeze(x, [2]), [r(1, 3, 1)], lambda x: x.reshape(1, 3)),
    OpCase("tile", lambda x: wf.tile(x, [2, 3]), [r(2, 3)], lambda x: np.tile(x, (2, 3))),
    OpCase("pad_constant", lambda x: wf.pad(x, [[1, 0], [2, 1]]), [r(2, 3)], lambda x: np.pad(x, [(1, 0), (2, 1)])),
    OpCase("pad_constant_values", lambda x: wf.pad(x, [[1, 1], [0, 2]], constant_values=3.0), [r(2, 3)],
           lambda x: np.pad(x, [(1, 1), (0, 2)], constant_values=3.0)),
    OpCase("pad_reflect", lambda x: wf.pad(x, [[1, 1], [2, 1]], "REFLECT"), [r(3, 4)],
           lambda x: np.pad(x, [(1, 1), (2, 1)], mode="reflect")),
    OpCase("pad_symmetric", lambda x: wf.pad(x, [[1, 2], [2, 0]], "SYMMETRIC"), [r(3, 4)], mirror_symmetric),
    OpCase("reverse", lambda x: wf.reverse(x, [0, 2]), [r(2, 3, 4)], lambda x: x[::-1, :, ::-1]),
    OpCase("clip_by_value", lambda x: wf.clip_by_value(x, -0.5, 0.5), [r(4, 5)], lambda x: np.clip(x, -0.5, 0.5)),
    OpCase("clip_by_value_tensor_bounds", lambda x, lo, hi: wf.clip_by_value(x, lo, hi),
           [r(3, 4), np.full((1, 4), -0.3, np.float32), np.float32(0.4)], lambda x, lo, hi: np.clip(x, lo, hi)),
    OpCase("identity_n", lambda x, y: wf.identity_n([x, y]), [r(2), r(3, 1)], lambda x, y: [x, y]),
    OpCase("shape_n", lambda x, y: wf.shape_n([x, y]), [r(2), r(3, 1)],
           lambda x, y: [np.array(x.shape, np.int32), np.array(y.shape, np.int32)], grad=False),
    OpCase("sequence_mask", lambda n: wf.sequence_mask(n, 4), [np.array([1, 3, 0], np.int32)],
           lambda n: np.arange(4) < n[:, None]),
    OpCase("sequence_mask_float", lambda n: wf.sequence_mask(n, 3, dtype=wf.float32), [np.array([[2], [1]], np.int32)],
           lambda n: (np.arange(3) < n[..., None]).astype(np.float32)),
    OpCase("zeros_like", lambda x: wf.zeros_like(x) + x, [r(2, 3)], lambda x: x),
    OpCase("ones_like", lambda x: wf.ones_like(x) * x, [r(2, 3)], lambda x: x),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
