"""Op table rows for the ops under recurrent networks: tf.TensorArray (ops/tensor_array_ops.py: TensorArrayV3 and
its Write, Read, Gather, Scatter, Concat, Split, Size, Close and Grad ops) and tf.reverse_sequence
(ops/reverse_sequence_ops.py, what bidirectional_dynamic_rnn reverses its inputs with), and map_fn / scan / foldl /
foldr (ops/functional_loops.py: while_loop over TensorArrays).

Eagerly a TensorArray is a Python list of tensors (ops/tensor_array.py), so the eager check and the tape's
gradient are an independent second computation; in a graph the rows build the TensorArray*V3 ops, and their
gradients (TensorArrayGradV3 and the paired ops) are checked against central differences and against the tape.
References are plain NumPy; see tests/op_harness.py for the four checks.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(26)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def write_read_stack(x, y):
    ta = wf.TensorArray(x.dtype, size=3, clear_after_read=False).write(0, x).write(2, y * 2.0)
    return [ta.stack(), ta.read(2) + 1.0]


def unstack_gather(x):
    return wf.TensorArray(x.dtype, size=4).unstack(x).gather([3, 0, 3 - 1])


def scatter_concat(x):
    return wf.TensorArray(x.dtype, size=2, infer_shape=True).scatter([1, 0], x).concat()


def split_read(x):
    ta = wf.TensorArray(x.dtype, size=2, infer_shape=False).split(x * 3.0, [1, 2])
    return [ta.read(0), ta.read(1)]


def dynamic_stack(x):
    return wf.TensorArray(x.dtype, size=0, dynamic_size=True).write(2, x).write(0, x * x).stack()


def size_and_close(x):
    """The size a dynamic array grew to; the array closed after it is read."""
    ta = wf.TensorArray(x.dtype, size=0, dynamic_size=True).write(4, x)
    size = ta.size()
    if wf.executing_eagerly():
        return size
    with wf.control_dependencies([size]):
        close = ta.close()
    with wf.control_dependencies([close]):
        return wf.identity(size)


def rnn_by_while_loop(x, w):
    """h_t = tanh(x_t w + h_{t-1}) over x's rows, each h_t written to a TensorArray and stacked."""
    steps = 4
    inputs = wf.TensorArray(x.dtype, size=steps).unstack(x)

    def body(t, h, outputs):
        h = wf.tanh(wf.matmul(wf.reshape(inputs.read(t), [1, 3]), w) + h)
        return t + 1, h, outputs.write(t, wf.reshape(h, [3]))

    start = [wf.constant(0), wf.zeros([1, 3], x.dtype), wf.TensorArray(x.dtype, size=steps)]
    _, h, outputs = wf.while_loop(lambda t, h, o: t < steps, body, start)
    return [outputs.stack(), h]


def np_rnn(x, w):
    h, rows = np.zeros((1, 3), x.dtype), []
    for t in range(4):
        h = np.tanh(x[t:t + 1] @ w + h)
        rows.append(h[0])
    return [np.stack(rows), h]


def np_reverse_sequence(x, lengths):
    """Batch entry b's first lengths[b] steps (axis 1) reversed."""
    y = x.copy()
    for b, n in enumerate(lengths):
        y[b, :n] = x[b, :n][::-1]
    return y


def cond_writes(p, x):
    """A TensorArray returned by both branches of a cond (it travels as its flow), then written again."""
    ta = wf.TensorArray(x.dtype, size=2)
    ta = wf.cond(p, lambda: ta.write(0, x * 2.0), lambda: ta.write(0, wf.sin(x)))
    return ta.write(1, x).stack()


def np_cond_writes(p, x):
    return np.stack([2 * x if p else np.sin(x), x])


def np_scan(x):
    rows = [x[0]]
    for e in x[1:]:
        rows.append(rows[-1] * 0.5 + np.sin(e))
    return np.stack(rows)


CASES = [
    OpCase("write_read_stack", write_read_stack, [r(2, 3), r(2, 3)],
           lambda x, y: [np.stack([x, np.zeros_like(x), 2 * y]), 2 * y + 1]),
    OpCase("unstack_gather", unstack_gather, [r(4, 2)], lambda x: x[[3, 0, 2]], fully_static=False),
    OpCase("scatter_concat", scatter_concat, [r(2, 3)], lambda x: np.concatenate([x[1], x[0]]), fully_static=False),
    OpCase("split_read", split_read, [r(3, 2)], lambda x: [3 * x[:1], 3 * x[1:]], fully_static=False),
    OpCase("dynamic_stack", dynamic_stack, [r(2)], lambda x: np.stack([x * x, np.zeros_like(x), x]),
           fully_static=False),
    OpCase("size_and_close", size_and_close, [r(2)], lambda x: np.array(5, np.int32), grad=False),
    OpCase("reverse_sequence", lambda x, n: wf.reverse_sequence(x, n, seq_axis=1, batch_axis=0),
           [r(3, 4, 2), np.array([4, 0, 2], np.int64)], np_reverse_sequence),
    OpCase("reverse_sequence_time_major", lambda x, n: wf.reverse_sequence(x, n, seq_axis=0, batch_axis=1),
           [r(3, 2), np.array([1, 3], np.int32)], lambda x, n: np_reverse_sequence(x.T, n).T),
    OpCase("map_fn", lambda x: wf.map_fn(lambda row: wf.reduce_sum(row * row) * row, x), [r(3, 2)],
           lambda x: (x * x).sum(1, keepdims=True) * x),
    OpCase("map_fn_nested", lambda x, y: wf.map_fn(lambda e: (e[0] * e[1], e[0] - 1.0), (x, y),
                                                   fn_output_signature=(x.dtype, x.dtype)),
           [r(4), r(4)], lambda x, y: [x * y, x - 1]),
    OpCase("scan", lambda x: wf.scan(lambda a, e: a * 0.5 + wf.sin(e), x), [r(4, 2)], np_scan),
    OpCase("scan_reverse_initializer", lambda x, a: wf.scan(lambda acc, e: acc * e, x, initializer=a, reverse=True),
           [r(3, 2), r(2)], lambda x, a: np.stack([a * x[2] * x[1] * x[0], a * x[2] * x[1], a * x[2]])),
    OpCase("foldl", lambda x: wf.foldl(lambda a, e: a * e + 1.0, x), [r(4, 2)],
           lambda x: ((x[0] * x[1] + 1) * x[2] + 1) * x[3] + 1),
    OpCase("foldr_initializer", lambda x, a: wf.foldr(lambda acc, e: acc - e * acc, x, initializer=a), [r(3), r()],
           lambda x, a: np.asarray(a * (1 - x[2]) * (1 - x[1]) * (1 - x[0]))),
    # no gradient rows: the If gradient's function holds a copy of the branch's write, which TensorFlow would run
    # again when tests/io/test_graph_def.py runs the row's gradient graph there (webflow prunes it); the cond
    # gradient is checked in tests/rnn/test_tensor_array_eager.py
    OpCase("cond_writes", cond_writes, [np.array(False), r(2)], np_cond_writes, grad=False),
    OpCase("cond_writes_true", cond_writes, [np.array(True), r(2)], np_cond_writes, grad=False),
    OpCase("rnn_by_while_loop", rnn_by_while_loop, [r(4, 3), r(3, 3)], np_rnn, unknown_shapes=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
