"""Pooling against a plain loop-per-pixel reference, and against real TensorFlow.

The reference below visits every output pixel and every cell of its window with Python loops, deciding
in-bounds-ness cell by cell (TensorFlow's SAME padding: pad_top = max((out - 1) * s + k - in, 0) // 2).
On ties it keeps the first maximum met in row-major order (a strict `>`), which is what TensorFlow's CPU
kernels do; the inputs here are small integers, so ties are everywhere. The TensorFlow half runs TF1
programs in a subprocess (tests/tf_subprocess.py) and skips without WEBFLOW_TF_PYTHON.
"""

import itertools

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow as wf
import webflow.compat.v1 as tf
from webflow.ops.registry import apply_op

rng = np.random.default_rng(11)


# --- the naive reference ---------------------------------------------------------------------------------
def out_size_and_pad(size, k, s, padding):
    if padding == "VALID":
        return (size - k) // s + 1, 0
    out = (size + s - 1) // s
    return out, max((out - 1) * s + k - size, 0) // 2


def naive_pool(x, k, s, padding, kind):
    """(y, argmax) with argmax[n, a, b, c] = (row, col) of the window's first maximum (max pooling)."""
    n_, h, w, c_ = x.shape
    out_h, top = out_size_and_pad(h, k[0], s[0], padding)
    out_w, left = out_size_and_pad(w, k[1], s[1], padding)
    y = np.zeros((n_, out_h, out_w, c_))
    argmax = {}
    for n in range(n_):
        for a in range(out_h):
            for b in range(out_w):
                for c in range(c_):
                    best, where, total, count = None, None, 0.0, 0
                    for i in range(k[0]):
                        for j in range(k[1]):
                            row, col = a * s[0] - top + i, b * s[1] - left + j
                            if 0 <= row < h and 0 <= col < w:
                                value = float(x[n, row, col, c])
                                total, count = total + value, count + 1
                                if best is None or value > best:
                                    best, where = value, (row, col)
                    y[n, a, b, c] = best if kind == "max" else total / count
                    argmax[n, a, b, c] = where
    return y, argmax


def naive_max_pool_grad(x, g, k, s, padding):
    _, argmax = naive_pool(x, k, s, padding, "max")
    dx = np.zeros(x.shape)
    for (n, a, b, c), (row, col) in argmax.items():
        dx[n, row, col, c] += g[n, a, b, c]
    return dx


def naive_max_pool_grad_grad(x, gg, k, s, padding):
    y, argmax = naive_pool(x, k, s, padding, "max")
    out = np.zeros(y.shape)
    for (n, a, b, c), (row, col) in argmax.items():
        out[n, a, b, c] = gg[n, row, col, c]
    return out


def naive_avg_pool_grad(shape, g, k, s, padding):
    """dx[cell] = sum over windows holding the cell of g[window] / count[window], one cell at a time."""
    dx = np.zeros(shape)
    _, h, w, _ = shape
    out_h, top = out_size_and_pad(h, k[0], s[0], padding)
    out_w, left = out_size_and_pad(w, k[1], s[1], padding)
    for a, b in itertools.product(range(out_h), range(out_w)):
        cells = [(a * s[0] - top + i, b * s[1] - left + j) for i in range(k[0]) for j in range(k[1])]
        cells = [(row, col) for row, col in cells if 0 <= row < h and 0 <= col < w]
        for row, col in cells:
            dx[:, row, col, :] += g[:, a, b, :] / len(cells)
    return dx


# --- webflow vs the reference on a grid of shapes, windows, strides and paddings ---------------------------
GRID = [(shape, (kh, kw), (sh, sw), padding)
        for shape in [(2, 5, 7, 3), (1, 6, 6, 2), (1, 7, 4, 1)]
        for kh, kw in [(1, 1), (2, 2), (3, 3), (2, 3)]
        for sh, sw in [(1, 1), (2, 2), (3, 3), (1, 2)]
        for padding in ["SAME", "VALID"]]


def grid_id(params):
    shape, k, s, padding = params
    return f"{'x'.join(map(str, shape))}-k{k[0]}{k[1]}-s{s[0]}{s[1]}-{padding}"


def with_ties(shape, dtype=np.float64):
    return rng.integers(0, 4, shape).astype(dtype)


@pytest.mark.parametrize("params", GRID, ids=map(grid_id, GRID))
def test_max_pool_forward_backward_and_second_order_match_the_loop_reference(params):
    shape, k, s, padding = params
    x = with_ties(shape)
    expected_y, _ = naive_pool(x, k, s, padding, "max")
    g = rng.standard_normal(expected_y.shape)
    xt = wf.constant(x)
    with wf.GradientTape() as tape:
        tape.watch(xt)
        y = wf.nn.max_pool2d(xt, list(k), list(s), padding)
    np.testing.assert_array_equal(y.numpy(), expected_y)
    dx = tape.gradient(y, xt, output_gradients=wf.constant(g))
    np.testing.assert_allclose(dx.numpy(), naive_max_pool_grad(x, g, k, s, padding), atol=1e-12)
    gg = rng.standard_normal(shape)
    pool_attrs = {"ksize": [1, *k, 1], "strides": [1, *s, 1], "padding": padding, "data_format": "NHWC"}
    second = apply_op("MaxPoolGradGrad", [x, expected_y, gg], pool_attrs)
    np.testing.assert_array_equal(second.numpy(), naive_max_pool_grad_grad(x, gg, k, s, padding))


@pytest.mark.parametrize("params", GRID, ids=map(grid_id, GRID))
def test_avg_pool_forward_and_backward_match_the_loop_reference(params):
    shape, k, s, padding = params
    x = rng.standard_normal(shape)
    expected_y, _ = naive_pool(x, k, s, padding, "avg")
    g = rng.standard_normal(expected_y.shape)
    xt = wf.constant(x)
    with wf.GradientTape() as tape:
        tape.watch(xt)
        y = wf.nn.avg_pool2d(xt, list(k), list(s), padding)
    np.testing.assert_allclose(y.numpy(), expected_y, atol=1e-12)
    dx = tape.gradient(y, xt, output_gradients=wf.constant(g))
    np.testing.assert_allclose(dx.numpy(), naive_avg_pool_grad(shape, g, k, s, padding), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_outputs_and_gradients_keep_the_input_dtype(dtype):
    x = wf.constant(with_ties((2, 5, 5, 3), dtype))
    with wf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        outputs = [wf.nn.max_pool2d(x, 2, 2, "SAME"), wf.nn.avg_pool2d(x, 3, 2, "SAME")]
    for y in outputs:
        assert y.dtype == wf.as_dtype(dtype) and tape.gradient(y, x).dtype == wf.as_dtype(dtype)
    expected, _ = naive_pool(x.numpy().astype(np.float64), (3, 3), (2, 2), "SAME", "avg")
    np.testing.assert_allclose(outputs[1].numpy(), expected, rtol=2e-3 if dtype == np.float16 else 1e-6)


def test_nchw_equals_nhwc_transposed_forward_and_backward():
    x = with_ties((2, 5, 7, 3))
    for pool in (wf.nn.max_pool2d, wf.nn.avg_pool2d):
        nhwc, nchw = wf.constant(x), wf.constant(x.transpose(0, 3, 1, 2).copy())
        with wf.GradientTape(persistent=True) as tape:
            tape.watch([nhwc, nchw])
            y1 = pool(nhwc, 3, 2, "SAME")
            y2 = pool(nchw, 3, 2, "SAME", data_format="NCHW")
        np.testing.assert_array_equal(y2.numpy(), y1.numpy().transpose(0, 3, 1, 2))
        g = rng.standard_normal(y1.shape)
        d1 = tape.gradient(y1, nhwc, output_gradients=wf.constant(g)).numpy()
        d2 = tape.gradient(y2, nchw, output_gradients=wf.constant(g.transpose(0, 3, 1, 2).copy())).numpy()
        np.testing.assert_allclose(d2, d1.transpose(0, 3, 1, 2), atol=1e-12)


def test_max_pool_never_picks_padding_and_follows_tensorflow_on_minus_infinity():
    x = -np.arange(1.0, 10.0).reshape(1, 3, 3, 1)     # all negative: a zero pad would win if it were used
    np.testing.assert_array_equal(wf.nn.max_pool2d(x, 2, 2, "SAME").numpy().ravel(), [-1, -3, -7, -9])
    np.testing.assert_array_equal(wf.nn.avg_pool2d(x, 2, 2, "SAME").numpy().ravel(), [-3, -4.5, -7.5, -9])
    # TensorFlow starts each max at the lowest finite float: a window of -inf gives -3.4028235e38 (checked in TF)
    ninf = wf.constant(np.full((1, 2, 2, 1), -np.inf, np.float32))
    with wf.GradientTape() as tape:
        tape.watch(ninf)
        y = wf.nn.max_pool2d(ninf, 2, 2, "VALID")
    assert y.numpy().ravel()[0] == np.finfo(np.float32).min
    np.testing.assert_array_equal(tape.gradient(y, ninf).numpy().ravel(), [1, 0, 0, 0])


# --- errors ----------------------------------------------------------------------------------------------
def test_bad_inputs_raise_clear_errors(graph_mode):
    x = tf.placeholder(tf.float32, [None, 28, 28, 32])
    with pytest.raises(ValueError, match=r"Negative dimension size caused by subtracting 30 from 28 for "
                                         r"'\{\{node MaxPool\}\} = MaxPool.*with input shapes: \[\?,28,28,32\]"):
        tf.nn.max_pool(x, [1, 30, 2, 1], [1, 2, 2, 1], "VALID")
    with pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 3 for '\{\{node AvgPool\}\}"):
        tf.nn.avg_pool(tf.placeholder(tf.float32, [2, 3, 4]), 2, 2, "VALID")
    with pytest.raises(ValueError, match="ksize should be of length 1, 2 or 4. Received: ksize=.1, 2, 2. of length 3"):
        tf.nn.max_pool(x, [1, 2, 2], 2, "VALID")
    with pytest.raises(ValueError, match="Attr 'padding' of 'AvgPool' Op passed string 'FOO' not in: \"SAME\", "):
        tf.nn.avg_pool(x, 2, 2, "FOO")
    with pytest.raises(ValueError, match=r"`ksize` cannot be zero. Received: ksize=\[1, 0, 2, 1\]"):
        tf.nn.max_pool(x, [1, 0, 2, 1], 2, "VALID")
    with pytest.raises(TypeError, match="parameter 'value' has DataType int32 not in list of allowed values"):
        tf.nn.avg_pool(tf.placeholder(tf.int32, [1, 4, 4, 1]), 2, 2, "VALID")
    pooled = tf.nn.max_pool(x, [2, 2, 2, 1], [1, 2, 2, 1], "SAME")    # builds, as in TF; fails when run
    with tf.Session() as session:
        with pytest.raises(tf.errors.UnimplementedError, match="Pooling is not yet supported on the batch dimension"):
            session.run(pooled, {x: np.zeros((2, 28, 28, 32))})


def test_eager_errors_name_the_op_and_shapes():
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match=r"Computed output size would be negative: -2 \[input_size: 4, effective_filter_size: 10"):
        wf.nn.max_pool2d(wf.ones([1, 4, 4, 1]), [10, 2], 2, "VALID")
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match=r"Expected grad shape to be \[1,2,2,1\], but got \[1,3,2,1\]"):
        apply_op("MaxPoolGrad", [wf.ones([1, 4, 4, 1]), wf.ones([1, 2, 2, 1]), wf.ones([1, 3, 2, 1])],
                 {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME", "data_format": "NHWC"})
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match=r"MaxPool: input must be 4-dimensional, got shape \[4, 4, 1\]"):
        apply_op("MaxPool", [wf.ones([4, 4, 1])], {"ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": "SAME",
                                                   "data_format": "NHWC"})
    with pytest.raises(ValueError, match=r"`input.shape.rank` must be 3, 4 or 5. Received: input.shape=\(2, 3\)"):
        wf.nn.max_pool(wf.ones([2, 3]), 2, 2, "SAME")


# --- against real TensorFlow -----------------------------------------------------------------------------
TIES = np.array([[1, 1, 0, 2, 2], [1, 1, 2, 2, 0], [0, 2, 2, 1, 1], [3, 0, 3, 3, 0]], np.float32)

TF_PROGRAMS = {
    "max_pool_ties_values_and_gradient_names": f"""
x = tf.constant(np.array({TIES.tolist()}, np.float32).reshape(1, 4, 5, 1))
result = []
for k, s, padding in [(2, 1, "SAME"), (3, 1, "SAME"), (2, 2, "SAME"), (3, 2, "VALID"), ([2, 3], [1, 2], "SAME")]:
    y = tf.nn.max_pool(x, k, s, padding)
    g = tf.gradients(y, x, grad_ys=tf.reshape(tf.range(1.0, 1.0 + tf.cast(tf.size(y), tf.float32)), tf.shape(y)))[0]
    with tf.Session() as session:
        result.append([y.name, str(y.shape), g.name, g.op.type, [t.name for t in g.op.inputs[:2]], session.run([y, g])])
""",
    "avg_pool_values_and_gradient_names": """
x = tf.constant(np.arange(2 * 5 * 7 * 3, dtype=np.float32).reshape(2, 5, 7, 3) % 11)
p = tf.placeholder(tf.float32, [None, None, 7, 3])
result = []
for k, s, padding in [(2, 2, "SAME"), (3, 2, "SAME"), (3, 3, "VALID"), ([3, 2], [1, 3], "SAME")]:
    y = tf.nn.avg_pool(x, k, s, padding)
    g = tf.gradients(y, x, grad_ys=tf.ones_like(y) * 3.0)[0]
    with tf.Session() as session:
        result.append([y.name, g.name, g.op.type, g.op.inputs[0].op.type, session.run([y, g]),
                       str(tf.nn.avg_pool(p, k, s, padding).shape)])
""",
    "second_order_max_pool": """
x = tf.constant(np.array([[1, 1, 0], [1, 1, 2], [0, 2, 2]], np.float32).reshape(1, 3, 3, 1))
result = []
for k, s, padding in [(2, 1, "SAME"), (3, 1, "SAME"), (2, 2, "SAME"), (2, 1, "VALID")]:
    y = tf.nn.max_pool(x, k, s, padding)
    v = tf.ones_like(y) * 2.0
    g = tf.gradients(y, x, grad_ys=v)[0]
    u = tf.constant(np.arange(1, 10, dtype=np.float32).reshape(1, 3, 3, 1))
    gx, gv = tf.gradients(g, [x, v], grad_ys=u)     # MaxPoolGrad is linear in v: gv = MaxPoolGradGrad(x, y, u)
    with tf.Session() as session:
        result.append([g.name, gv.op.type, session.run([g, gx, gv])])
result.append(sorted(op.type for op in tf.get_default_graph().get_operations() if "Pool" in op.type))
""",
    "tf2_wrappers_names_and_shapes": """
x = tf.placeholder(tf.float32, [2, 5, 5, 3])
v = tf.placeholder(tf.float32, [2, 7, 3])
outs = [tf.nn.max_pool_v2(x, 2, 2, "SAME"), tf.nn.avg_pool_v2(x, [2, 3], [1, 2], "SAME"),
        tf.nn.max_pool2d(x, 2, 2, "SAME", name="p"), tf.nn.avg_pool2d(x, 2, 2, "SAME"),
        tf.nn.max_pool_v2(v, 3, 2, "SAME"), tf.nn.avg_pool_v2(v, 2, 1, "VALID"), tf.nn.max_pool1d(v, 2, 2, "SAME"),
        tf.nn.max_pool_v2(tf.placeholder(tf.float32, [None, 3, 5, 5]), 2, 2, "VALID", data_format="NCHW")]
names = sorted(op.name for op in tf.get_default_graph().get_operations() if op.type != "Placeholder")
data = np.arange(2 * 7 * 3, dtype=np.float32).reshape(2, 7, 3) % 5
with tf.Session() as session:
    result = [[(o.name, str(o.shape)) for o in outs], names, session.run(outs[4:7], {v: data})]
""",
    "build_errors": """
x = tf.placeholder(tf.float32, [None, 28, 28, 32])
result = []
for build in [lambda: tf.nn.max_pool(x, [1, 30, 2, 1], [1, 2, 2, 1], "VALID"),
              lambda: tf.nn.avg_pool(x, [1, 2, 29, 1], [1, 2, 2, 1], "VALID"),
              lambda: tf.nn.max_pool(tf.placeholder(tf.float32, [2, 3, 4]), 2, 2, "VALID"),
              lambda: tf.nn.max_pool(x, [1, 2, 2, 1, 1], 2, "SAME"),
              lambda: tf.nn.avg_pool(x, 2, [1, 1, 1], "SAME"),
              lambda: tf.nn.max_pool(x, 2, 2, "FOO"),
              lambda: tf.nn.avg_pool(x, 2, [1, -1, 1, 1], "SAME"),
              lambda: tf.nn.avg_pool(tf.placeholder(tf.float64, [1, 4, 4]), 2, 2, "SAME")]:
    try:
        build()
        result.append("built")
    except ValueError as error:
        result.append(str(error).split(" for '")[0])
""",
}


@pytest.fixture(scope="module")
def tf_results():
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    return run_tensorflow(TF_PROGRAMS)


@pytest.mark.parametrize("program_id", sorted(TF_PROGRAMS))
def test_matches_tensorflow(program_id, tf_results):
    expected = tf_results[program_id]
    got = run_webflow(TF_PROGRAMS[program_id])
    assert_same(got, expected, program_id)


def assert_same(got, expected, where):
    if isinstance(expected, list) and expected and isinstance(expected[0], (int, float)):
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(expected, np.float64), rtol=1e-6,
                                   err_msg=where)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got} vs {expected}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    else:
        assert got == expected, f"{where}: {got!r} vs TensorFlow's {expected!r}"
