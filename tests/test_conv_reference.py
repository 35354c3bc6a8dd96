"""Convolution kernels against an independent oracle, and against real TensorFlow.

1. The forward pass and both backprops, eager and in a Session, are compared on odd shapes with a convolution
   written plainly here as nested loops over output pixels and filter taps, and with its adjoints derived by
   hand from that loop (each product x[...] * w[...] sends dy * w to dx and dy * x to dw).
2. Bad inputs raise TensorFlow's exception types with its wording (build time and run time).
3. With WEBFLOW_TF_PYTHON set (tests/tf_subprocess.py), small TF1 programs run under real TensorFlow and
   under webflow.compat.v1: values, static shapes and the gradient graph's node names must agree.
"""

import itertools
import json

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow as wf
import webflow.compat.v1 as tf


# --- the oracle: a direct loop convolution and its hand-derived adjoints ------------------------------------
def geometry(size, kernel, stride, dilation, padding):
    """(output size, padding before) of one spatial dimension."""
    span = (kernel - 1) * dilation + 1
    if padding == "VALID":
        return (size - span) // stride + 1, 0
    out = (size + stride - 1) // stride
    return out, max((out - 1) * stride + span - size, 0) // 2


def taps(x_shape, w_shape, stride, dilation, padding):
    """Every (b, i, j, row, col, p, q) where output pixel (i, j) reads input pixel (row, col) through tap (p, q)."""
    n, h, width, _ = x_shape
    kh, kw = w_shape[:2]
    oh, top = geometry(h, kh, stride, dilation, padding)
    ow, left = geometry(width, kw, stride, dilation, padding)
    for b, i, j, p, q in itertools.product(range(n), range(oh), range(ow), range(kh), range(kw)):
        row, col = i * stride + p * dilation - top, j * stride + q * dilation - left
        if 0 <= row < h and 0 <= col < width:          # outside the image the input is a padding zero
            yield b, i, j, row, col, p, q


def out_shape(x_shape, w_shape, stride, dilation, padding):
    return (x_shape[0], geometry(x_shape[1], w_shape[0], stride, dilation, padding)[0],
            geometry(x_shape[2], w_shape[1], stride, dilation, padding)[0], w_shape[3])


def loop_conv2d(x, w, stride, dilation, padding):
    y = np.zeros(out_shape(x.shape, w.shape, stride, dilation, padding))
    for b, i, j, row, col, p, q in taps(x.shape, w.shape, stride, dilation, padding):
        for c in range(x.shape[3]):
            for k in range(w.shape[3]):
                y[b, i, j, k] += x[b, row, col, c] * w[p, q, c, k]
    return y


def loop_backprop_input(x_shape, w, dy, stride, dilation, padding):
    dx = np.zeros(x_shape)
    for b, i, j, row, col, p, q in taps(x_shape, w.shape, stride, dilation, padding):
        for c in range(x_shape[3]):
            for k in range(w.shape[3]):
                dx[b, row, col, c] += dy[b, i, j, k] * w[p, q, c, k]
    return dx


def loop_backprop_filter(x, w_shape, dy, stride, dilation, padding):
    dw = np.zeros(w_shape)
    for b, i, j, row, col, p, q in taps(x.shape, w_shape, stride, dilation, padding):
        for c in range(x.shape[3]):
            for k in range(w_shape[3]):
                dw[p, q, c, k] += dy[b, i, j, k] * x[b, row, col, c]
    return dw


# 7x9 images, 3x2 and 5x5 filters, 1-3 input and output channels, strides 1-3, SAME/VALID, dilation 1 and 2
CONFIGS = [((2, 7, 9, c), (kh, kw, c, k), s, d, padding)
           for (kh, kw, c, k), s, d, padding in itertools.product(
               [(3, 2, 1, 2), (5, 5, 3, 2), (3, 2, 2, 3), (5, 5, 1, 1)], [1, 2, 3], [1, 2], ["SAME", "VALID"])
           if (d == 1 or s == 1) and (padding == "SAME" or (kh - 1) * d + 1 <= 7)]


def config_id(config):
    x_shape, w_shape, s, d, padding = config
    return f"w{'x'.join(map(str, w_shape))}-s{s}-d{d}-{padding}"


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_forward_and_backprops_match_the_loop_oracle(config):
    x_shape, w_shape, s, d, padding = config
    rng = np.random.default_rng(sum(x_shape + w_shape) + s + 10 * d)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    y_shape = out_shape(x_shape, w_shape, s, d, padding)
    dy = rng.standard_normal(y_shape)
    y = wf.nn.conv2d(wf.constant(x), wf.constant(w), s, padding, dilations=d)
    np.testing.assert_allclose(y.numpy(), loop_conv2d(x, w, s, d, padding), atol=1e-10)
    dx = tf.nn.conv2d_backprop_input(list(x_shape), wf.constant(w), wf.constant(dy), [1, s, s, 1], padding,
                                     dilations=[1, d, d, 1])
    np.testing.assert_allclose(dx.numpy(), loop_backprop_input(x_shape, w, dy, s, d, padding), atol=1e-10)
    dw = tf.nn.conv2d_backprop_filter(wf.constant(x), list(w_shape), wf.constant(dy), [1, s, s, 1], padding,
                                      dilations=[1, d, d, 1])
    np.testing.assert_allclose(dw.numpy(), loop_backprop_filter(x, w_shape, dy, s, d, padding), atol=1e-10)


@pytest.mark.parametrize("config", CONFIGS[::5], ids=config_id)
def test_graph_gradients_of_conv2d_match_the_loop_oracle_in_float32(config):
    x_shape, w_shape, s, d, padding = config
    rng = np.random.default_rng(7)
    x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
    dy = rng.standard_normal(out_shape(x_shape, w_shape, s, d, padding)).astype(np.float32)
    graph = tf.Graph()
    with graph.as_default():
        xs, ws = tf.placeholder(tf.float32, [None, *x_shape[1:]]), tf.placeholder(tf.float32, w_shape)
        y = tf.nn.conv2d(xs, ws, [1, s, s, 1], padding, dilations=[1, d, d, 1])
        grads = tf.gradients(y, [xs, ws], grad_ys=tf.constant(dy))
        with tf.Session() as session:
            y_value, dx, dw = session.run([y] + grads, {xs: x, ws: w})
    np.testing.assert_allclose(y_value, loop_conv2d(x, w, s, d, padding), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dx, loop_backprop_input(x_shape, w, dy, s, d, padding), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, loop_backprop_filter(x, w_shape, dy, s, d, padding), rtol=1e-4, atol=1e-4)


def test_deep_mnist_sized_layers_match_the_oracle_at_a_few_pixels():
    """The fast paths at real sizes (28x28x1 -> 32, 14x14x32 -> 64), checked at sampled outputs."""
    rng = np.random.default_rng(0)
    for x_shape, w_shape in [((3, 28, 28, 1), (5, 5, 1, 32)), ((2, 14, 14, 32), (5, 5, 32, 64))]:
        x, w = rng.standard_normal(x_shape).astype(np.float32), rng.standard_normal(w_shape).astype(np.float32)
        y = wf.nn.conv2d(x, w, 1, "SAME").numpy()
        padded = np.pad(x.astype(np.float64), ((0, 0), (2, 2), (2, 2), (0, 0)))
        for b, i, j, k in [(0, 0, 0, 0), (1, 13, 5, 7), (x_shape[0] - 1, 13, 13, w_shape[3] - 1)]:
            expected = np.sum(padded[b, i:i + 5, j:j + 5, :] * w[:, :, :, k])
            np.testing.assert_allclose(y[b, i, j, k], expected, rtol=1e-4, atol=1e-4)


# --- errors: TensorFlow's types and wording ----------------------------------------------------------------
@pytest.mark.parametrize("x_shape, w_shape, kwargs, error, message", [
    ([2, 7, 9, 3], [3, 3, 2, 4], {}, ValueError,
     r"Depth of input \(3\) is not a multiple of input depth of filter \(2\) for '\{\{node Conv2D\}\} = Conv2D\[\]"
     r"\(Placeholder, Placeholder_1\)' with input shapes: \[2,7,9,3\], \[3,3,2,4\]"),
    ([2, 7, 9, 3], [3, 3, 3], {}, ValueError, "Shape must be rank 4 but is rank 3"),
    ([7, 9, 3], [3, 3, 3, 4], {}, ValueError, "Shape must be rank 4 but is rank 3"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"padding": "FULL"}, ValueError,
     "Attr 'padding' of 'Conv2D' Op passed string 'FULL' not in: \"SAME\", \"VALID\", \"EXPLICIT\"."),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"padding": "same"}, ValueError, "passed string 'same' not in"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"strides": [1, 1, 1]}, ValueError,
     r"strides should be of length 1, 2 or 4. Received: strides=\[1, 1, 1\] of length 3"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"strides": [1, 0, 1, 1]}, ValueError, "Stride must be > 0, but got 0"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"dilations": 0}, ValueError, "Dilation rate must be >= 1, but got 0"),
    ([2, 2, 9, 3], [3, 3, 3, 4], {"padding": "VALID"}, ValueError,
     "Negative dimension size caused by subtracting 3 from 2"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"data_format": "HWNC"}, ValueError,
     "Attr 'data_format' of 'Conv2D' Op passed string 'HWNC' not in: \"NHWC\", \"NCHW\"."),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"padding": [[1, 0], [1, 2], [0, 3], [0, 0]]}, ValueError,
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    ([2, 7, 9, 3], [3, 3, 3, 4], {"padding": [[0, 0], [1, 1], [1, 1]]}, ValueError,
     "When padding is a list, it must be of size 4"),
])
def test_build_time_errors(graph_mode, x_shape, w_shape, kwargs, error, message):
    args = {"strides": [1, 1, 1, 1], "padding": "SAME", **kwargs}
    with pytest.raises(error, match=message):
        tf.nn.conv2d(tf.placeholder(tf.float32, x_shape), tf.placeholder(tf.float32, w_shape), **args)


def test_filter_and_filters_together_and_dtype_mismatch(graph_mode):
    x, w = tf.placeholder(tf.float32, [1, 4, 4, 1]), tf.placeholder(tf.float32, [2, 2, 1, 1])
    with pytest.raises(ValueError, match="Cannot specify both 'filter' and 'filters'."):
        tf.nn.conv2d(x, w, 1, "SAME", filters=w)
    with pytest.raises(TypeError):
        tf.nn.conv2d(x, tf.placeholder(tf.float64, [2, 2, 1, 1]), 1, "SAME")


def test_backprop_shape_rules_use_the_sizes_input(graph_mode):
    w, dy = tf.placeholder(tf.float32, [3, 3, 3, 4]), tf.placeholder(tf.float32, [2, 7, 9, 4])
    assert tf.nn.conv2d_backprop_input(tf.placeholder(tf.int32, [4]), w, dy, [1, 1, 1, 1], "SAME").shape.as_list() \
        == [2, None, None, None]
    assert tf.nn.conv2d_backprop_input([7, 9], w, dy, [1, 1, 1, 1], "SAME").shape.as_list() == [2, 7, 9, 3]
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 2"):
        tf.nn.conv2d_backprop_input([5, 7, 9, 3], w, dy, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="requires input_sizes to contain 4 values or 2 values, but got: 3"):
        tf.nn.conv2d_backprop_input([7, 9, 3], w, dy, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 4"):
        tf.nn.conv2d_transpose(tf.placeholder(tf.float32, [2, 7, 9, 5]), w, [2, 14, 18, 3], 2)
    x = tf.placeholder(tf.float32, [2, 7, 9, 3])
    assert tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, [1, 1, 1, 1], "SAME").shape.as_list() == [3, 3, 3, 4]
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.nn.conv2d_backprop_filter(x, [3, 3, 3], dy, [1, 1, 1, 1], "SAME")
    with pytest.raises(TypeError, match="Expected list for 'strides'"):
        tf.nn.conv2d_backprop_filter(x, [3, 3, 3, 4], dy, 1, "SAME")


def test_run_time_errors_name_the_op_and_shapes(graph_mode):
    x, w = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    ones = np.ones((2, 7, 9, 3), np.float32)
    with tf.Session() as session:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="input depth must be evenly divisible by filter depth: 3 vs 2"):
            session.run(tf.nn.conv2d(x, w, 1, "SAME"), {x: ones, w: np.ones((3, 3, 2, 4))})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"filter must be 4-dimensional .*\[3, 3, 3\]"):
            session.run(tf.nn.conv2d(x, w, 1, "SAME"), {x: ones, w: np.ones((3, 3, 3))})
        with pytest.raises(tf.errors.UnimplementedError, match="does not yet support strides in the batch and depth"):
            session.run(tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME"), {x: ones, w: np.ones((3, 3, 3, 4))})
        dy = tf.placeholder(tf.float32)
        grad = tf.nn.conv2d_backprop_input([2, 7, 9, 3], w, dy, [1, 1, 1, 1], "SAME")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 6, "
                                 "computed = 7"):
            session.run(grad, {w: np.ones((3, 3, 3, 4)), dy: np.ones((2, 6, 9, 4))})


def test_eager_errors_are_invalid_argument_with_shapes():
    with pytest.raises(wf.errors.InvalidArgumentError,
                       match=r"^input depth must be evenly divisible by filter depth: 3 vs 2$"):  # TF's words
        wf.nn.conv2d(wf.ones([1, 4, 4, 3]), wf.ones([2, 2, 2, 1]), 1, "SAME")


# --- real TensorFlow --------------------------------------------------------------------------------------
TF_PROGRAMS = {
    "gradient_graph_names": """
x = tf.placeholder(tf.float32, [None, 9, 7, 2], name="x")
w = tf.constant(np.linspace(-1, 1, 3 * 2 * 2 * 4, dtype=np.float32).reshape(3, 2, 2, 4), name="w")
y = tf.nn.relu(tf.nn.conv2d(x, w, strides=[1, 2, 1, 1], padding="SAME"))
t = tf.nn.conv2d_transpose(y, w, output_shape=[2, 9, 7, 2], strides=[1, 2, 1, 1])
loss = tf.reduce_sum(tf.square(t))
grads = tf.gradients(loss, [x, w])
names = sorted(op.name + ":" + op.type for op in tf.get_default_graph().get_operations()
               if op.type.startswith("Conv2D") or op.type == "ShapeN")
with tf.Session() as s:
    values = s.run([y, t] + grads, {x: np.sin(np.arange(2 * 9 * 7 * 2, dtype=np.float32)).reshape(2, 9, 7, 2)})
result = {"names": names, "shapes": [str(v.shape) for v in [y, t] + grads], "values": values}
""",
    "dilated_valid_and_second_order": """
x = tf.constant(np.cos(np.arange(1 * 7 * 9 * 3, dtype=np.float32)).reshape(1, 7, 9, 3))
w = tf.constant(np.sin(np.arange(3 * 2 * 3 * 2, dtype=np.float32)).reshape(3, 2, 3, 2))
y = tf.nn.conv2d(x, w, strides=1, padding="VALID", dilations=2)
gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
ggx = tf.gradients(tf.reduce_sum(gw * gw), x)[0]
with tf.Session() as s:
    result = {"shape": str(y.shape), "values": s.run([y, gx, gw, ggx])}
""",
}


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
@pytest.mark.parametrize("program", sorted(TF_PROGRAMS))
def test_same_as_tensorflow(program, tensorflow_results):
    ours, theirs = run_webflow(TF_PROGRAMS[program]), tensorflow_results[program]
    for key in theirs:
        if key == "values":
            for a, b in zip(ours[key], theirs[key]):
                np.testing.assert_allclose(np.array(a), np.array(b), rtol=2e-4, atol=2e-4, err_msg=program)
        else:
            assert json.dumps(ours[key]) == json.dumps(theirs[key]), f"{program}: {key}"


@pytest.fixture(scope="module")
def tensorflow_results():
    return run_tensorflow(TF_PROGRAMS)
