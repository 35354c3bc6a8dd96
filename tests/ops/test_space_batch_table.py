"""Op table rows for SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace (ops/space_batch_ops.py).

The NumPy references are written from the ops' definitions with strided slices, one block offset at a time
(output batch entry (b_1..b_M, n) holds the padded input's positions s_i*B_i + b_i), independently of the kernels'
reshape / transpose plans; tests/op_harness.py adds the graph, unknown-shape and numerical-gradient checks.
"""

import itertools

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.framework.errors import InvalidArgumentError

rng = np.random.default_rng(11)


def r(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def _offsets(blocks):
    """Every block offset (b_1..b_M) in row-major order, with its flat index."""
    return enumerate(itertools.product(*[range(b) for b in blocks]))


def np_space_to_batch(x, blocks, pads):
    rest = x.ndim - 1 - len(blocks)
    padded = np.pad(x, [(0, 0), *pads] + [(0, 0)] * rest)
    n = x.shape[0]
    parts = [None] * int(np.prod(blocks))
    for index, offset in _offsets(blocks):
        parts[index] = padded[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(offset, blocks))]
    return np.concatenate(parts, axis=0).reshape((n * len(parts),) + parts[0].shape[1:])


def np_batch_to_space(x, blocks, crops):
    count = int(np.prod(blocks))
    n = x.shape[0] // count
    spatial = [d * b for d, b in zip(x.shape[1:1 + len(blocks)], blocks)]
    full = np.zeros((n, *spatial, *x.shape[1 + len(blocks):]), x.dtype)
    for index, offset in _offsets(blocks):
        full[(slice(None),) + tuple(slice(o, None, b) for o, b in zip(offset, blocks))] = x[index * n:(index + 1) * n]
    return full[(slice(None),) + tuple(slice(c0, s - c1) for s, (c0, c1) in zip(spatial, crops))]


def np_space_to_depth(x, b):
    n, h, w, c = x.shape
    out = np.zeros((n, h // b, w // b, b * b * c), x.dtype)
    for p, q in itertools.product(range(b), range(b)):
        out[..., (p * b + q) * c:(p * b + q + 1) * c] = x[:, p::b, q::b, :]
    return out


def np_depth_to_space(x, b):
    n, h, w, c = x.shape
    depth = c // (b * b)
    out = np.zeros((n, h * b, w * b, depth), x.dtype)
    for p, q in itertools.product(range(b), range(b)):
        out[:, p::b, q::b, :] = x[..., (p * b + q) * depth:(p * b + q + 1) * depth]
    return out


def s2b_row(name, x, blocks, pads, block_dtype=wf.int32):
    return OpCase(name, lambda t: wf.space_to_batch_nd(t, wf.constant(blocks, block_dtype), pads),
                  [x], lambda t: np_space_to_batch(t, blocks, pads), grad=x.dtype.kind == "f")


def b2s_row(name, x, blocks, crops):
    return OpCase(name, lambda t: tf1.batch_to_space_nd(t, blocks, wf.constant(crops, wf.int64)),
                  [x], lambda t: np_batch_to_space(t, blocks, crops), grad=x.dtype.kind == "f")


CASES = [
    s2b_row("space_to_batch_2d", r(2, 4, 4, 3), [2, 2], [[0, 0], [0, 0]]),
    s2b_row("space_to_batch_2d_padded", r(1, 5, 3, 2), [2, 3], [[1, 0], [1, 2]], block_dtype=wf.int64),
    s2b_row("space_to_batch_1d_two_rest_axes", r(3, 4, 2, 2), [2], [[1, 1]]),
    s2b_row("space_to_batch_int32", r(1, 4, 2, dtype=np.int32), [2, 2], [[0, 0], [0, 0]]),
    b2s_row("batch_to_space_2d_cropped", r(8, 2, 3, 2), [2, 2], [[0, 1], [1, 0]]),
    b2s_row("batch_to_space_1d", r(6, 2, 3), [3], [[1, 2]]),
    OpCase("space_to_batch_v1_square", lambda t: tf1.space_to_batch(t, [[1, 1], [0, 0]], block_size=2),
           [r(2, 2, 4, 1)], lambda t: np_space_to_batch(t, [2, 2], [[1, 1], [0, 0]])),
    OpCase("batch_to_space_v2_int_block", lambda t: wf.batch_to_space(t, 2, [[0, 0], [1, 1]]),
           [r(4, 2, 2, 3)], lambda t: np_batch_to_space(t, [2, 2], [[0, 0], [1, 1]])),
    OpCase("space_to_depth_b2", lambda t: wf.nn.space_to_depth(t, 2), [r(2, 4, 6, 3)],
           lambda t: np_space_to_depth(t, 2)),
    OpCase("space_to_depth_b3", lambda t: tf1.space_to_depth(t, 3), [r(1, 6, 3, 2)],
           lambda t: np_space_to_depth(t, 3)),
    OpCase("depth_to_space_b2", lambda t: wf.nn.depth_to_space(t, 2), [r(2, 2, 3, 8)],
           lambda t: np_depth_to_space(t, 2)),
    OpCase("depth_to_space_int32", lambda t: tf1.depth_to_space(t, 2), [r(1, 2, 2, 4, dtype=np.int32)],
           lambda t: np_depth_to_space(t, 2), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


@pytest.mark.parametrize("build, message", [
    (lambda x: wf.space_to_batch_nd(x, [2, 2], [[0, 0], [1, 0]]),
     "Dimension size must be evenly divisible by 2 but is 5"),
    (lambda x: wf.space_to_batch_nd(x, [2, 2], [[0, -1], [0, 0]]), "paddings cannot be negative"),
    (lambda x: wf.space_to_batch_nd(x, [0, 2], [[0, 0], [0, 0]]), "block_shape must be positive"),
    (lambda x: wf.space_to_batch_nd(x, [2, 2, 2, 2], [[0, 0]] * 4), "Shape must be at least rank 5 but is rank 4"),
    (lambda x: wf.batch_to_space(x, [3, 1], [[0, 0], [0, 0]]), "Dimension size must be evenly divisible by 3 but is 2"),
    (lambda x: wf.nn.space_to_depth(x, 3), "Dimension size must be evenly divisible by 3 but is 4"),
    (lambda x: wf.nn.depth_to_space(x, 2), "Dimension size must be evenly divisible by 4 but is 3"),
    (lambda x: wf.nn.depth_to_space(x, 1), "Attr 'block_size' of 'DepthToSpace' Op passed 1 less than minimum 2."),
])
def test_build_time_errors(build, message):
    """TensorFlow's words (checked against TF 2.21 by hand; tests/test_space_batch_tf.py runs them in TF)."""
    with wf.Graph().as_default():
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            build(tf1.placeholder(wf.float32, [2, 4, 4, 3]))


@pytest.mark.parametrize("op, shape, message", [
    ("s2b", [2, 5, 4, 3], "padded_shape[0]=5 is not divisible by block_shape[0]=2"),
    ("b2s", [6, 4, 4, 3], "Input batch dimension (6) is not divisible by product of block sizes (4)"),
    ("s2d", [2, 5, 4, 3], "Image width 4 and height 5 should be divisible by block_size: 2"),
    ("d2s", [2, 4, 4, 3], "Input depth dimension 3 should be divisible by: 4"),
    ("s2d", [2, 4, 4], "Input rank should be 4 instead of 3"),
])
def test_run_time_errors(op, shape, message):
    with wf.Graph().as_default():
        x = tf1.placeholder(wf.float32, None)
        y = {"s2b": lambda: wf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
             "b2s": lambda: wf.batch_to_space(x, [2, 2], [[0, 0], [0, 0]]),
             "s2d": lambda: wf.nn.space_to_depth(x, 2), "d2s": lambda: wf.nn.depth_to_space(x, 2)}[op]()
        with tf1.Session() as session, pytest.raises(InvalidArgumentError) as caught:
            session.run(y, {x: np.zeros(shape, np.float32)})
        assert caught.value.message.split("\n")[0] == message
