"""Op table rows for the activations beyond relu (Relu6, Elu, Selu, LeakyRelu, Softplus, Softsign and their
*Grad ops), l2_normalize, batch_normalization, fused_batch_norm (and FusedBatchNormGradV3), top_k, in_top_k and
xw_plus_b.

References are written in NumPy here, independently of the kernels; see tests/op_harness.py for the checks.
The rows for the *Grad ops check their own gradients, i.e. the activations' second derivatives.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf
from webflow.ops.nn_activation_ops import log_sigmoid
from webflow.ops.registry import apply_op

rng = np.random.default_rng(3)
SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def away_from(points, *shape, gap=0.2, spread=4.0):
    """Values in [-spread, spread] at least `gap` from every kink in `points`."""
    x = rng.uniform(-spread, spread, shape)
    for p in points:
        near = np.abs(x - p) < gap
        x[near] = p + np.where(x[near] >= p, gap, -gap)
    return x.astype(np.float32)


def as_input_dtype(function):
    """A float64 reference whose float results take the first float input's dtype."""
    def reference(*args):
        dtype = next(np.asarray(a).dtype for a in args if np.asarray(a).dtype.kind == "f")
        out = function(*[np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a for a in args])
        if isinstance(out, list):
            return [np.asarray(o, dtype) if np.asarray(o).dtype.kind == "f" else o for o in out]
        return np.asarray(out, dtype)

    return reference


def raw(op_type, **attrs):
    return lambda *inputs: apply_op(op_type, list(inputs), attrs)


# --- NumPy references ----------------------------------------------------------------------------
def np_elu(x):
    return np.where(x < 0, np.exp(x) - 1, x)


def np_selu(x):
    return SELU_SCALE * np.where(x < 0, SELU_ALPHA * (np.exp(x) - 1), x)


def np_softplus(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_l2_normalize(x, axis):
    return x / np.sqrt(np.maximum((x * x).sum(axis=axis, keepdims=True), 1e-12))


def np_batch_norm(x, mean, var, offset, scale, eps):
    return (x - mean) / np.sqrt(var + eps) * scale + offset


def np_fused_training(x, scale, offset, eps=np.float32(0.001)):
    """(y, Bessel-corrected batch variance's mean and variance) over N, H, W."""
    n = x.shape[0] * x.shape[1] * x.shape[2]
    mean = x.mean(axis=(0, 1, 2))
    var = ((x - mean) ** 2).mean(axis=(0, 1, 2))
    return [np_batch_norm(x, mean, var, offset, scale, np.float64(eps)), mean, var * n / (n - 1)]


def np_fused_grad(dy, x, scale, mean, var, eps=np.float32(0.001), training=True):
    """FusedBatchNormGradV3's [dx, dscale, doffset] (NHWC) from the batch-norm derivative written out: training,
    dx = scale s (dy - mean(dy) - xh mean(dy xh)) with s = 1 / sqrt(var + eps), xh = (x - mean) s; inference,
    dx = dy scale s. dscale = sum(dy xh), doffset = sum(dy)."""
    axes = (0, 1, 2)
    s = 1 / np.sqrt(var + np.float64(eps))
    xh = (x - mean) * s
    dx = scale * s * (dy - dy.mean(axes) - xh * (dy * xh).mean(axes)) if training else dy * scale * s
    return [dx, (dy * xh).sum(axes), dy.sum(axes)]


def batch_statistics(x):
    """The mean and biased variance over N, H, W (what FusedBatchNormV3 saves for its gradient when training)."""
    return [x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))]


def np_top_k(x, k):
    """Largest k of the last axis; equal values by increasing index (sort key: (-value, index))."""
    flat = x.reshape(-1, x.shape[-1])
    order = np.array([sorted(range(x.shape[-1]), key=lambda j, row=row: (-row[j], j))[:k] for row in flat])
    order = order.reshape(x.shape[:-1] + (k,))
    return [np.take_along_axis(x, order, -1), order.astype(np.int32)]


def np_in_top_k(predictions, targets, k):
    out = []
    for row, t in zip(predictions, targets):
        ok = 0 <= t < len(row) and np.isfinite(row[t]) and np.count_nonzero(row > row[t]) < k
        out.append(bool(ok))
    return np.array(out)


X = r(3, 4)
IMAGES = r(2, 3, 2, 3)
CHANNELS = 3
SCALE = rng.uniform(0.5, 2.0, CHANNELS).astype(np.float32)
OFFSET = r(CHANNELS)
DISTINCT = rng.permutation(24).reshape(4, 6).astype(np.float32) * 0.5 - 3   # no ties: differentiable top_k
TIES = np.array([[1, 3, 3, 2, 3], [0, 0, 0, 0, 0], [5, 4, 5, 4, 6]], np.float32)
grad_rng = np.random.default_rng(13)  # the FusedBatchNormGradV3 rows' own draws (the rows above keep theirs)
DY = grad_rng.standard_normal(IMAGES.shape).astype(np.float32)
POPULATION_MEAN = grad_rng.standard_normal(CHANNELS).astype(np.float32)
POPULATION_VAR = grad_rng.uniform(0.5, 2, CHANNELS).astype(np.float32)

CASES = [
    # activations
    OpCase("relu6", lambda x: wf.nn.relu6(x), [away_from([0, 6], 3, 5, spread=8)], lambda x: np.clip(x, 0, 6)),
    OpCase("relu6_int32", lambda x: wf.nn.relu6(x), [np.array([-3, 0, 4, 9], np.int32)],
           lambda x: np.clip(x, 0, 6).astype(np.int32), grad=False),
    OpCase("elu", lambda x: wf.nn.elu(x), [away_from([0], 3, 4)], as_input_dtype(np_elu)),
    OpCase("selu", lambda x: wf.nn.selu(x), [away_from([0], 3, 4)], as_input_dtype(np_selu)),
    OpCase("leaky_relu_default_alpha", lambda x: wf.nn.leaky_relu(x), [away_from([0], 3, 4)],
           as_input_dtype(lambda x: np.where(x > 0, x, 0.2 * x))),
    OpCase("leaky_relu_alpha", lambda x: wf.nn.leaky_relu(x, alpha=0.5), [away_from([0], 6)],
           as_input_dtype(lambda x: np.where(x > 0, x, 0.5 * x))),
    OpCase("leaky_relu_int_input_becomes_float32", lambda x: wf.nn.leaky_relu(x), [np.array([-5, 0, 3], np.int32)],
           lambda x: np.where(x > 0, x, 0.2 * x).astype(np.float32), grad=False),
    OpCase("softplus", lambda x: wf.nn.softplus(x), [r(3, 4) * 3], as_input_dtype(np_softplus)),
    OpCase("softplus_extremes", lambda x: wf.nn.softplus(x), [np.array([-100, -20, 0, 20, 100], np.float32)],
           as_input_dtype(np_softplus)),
    OpCase("softsign", lambda x: wf.nn.softsign(x), [away_from([0], 3, 4)],
           as_input_dtype(lambda x: x / (1 + np.abs(x)))),
    OpCase("sigmoid", lambda x: wf.nn.sigmoid(x), [r(2, 3)], as_input_dtype(np_sigmoid)),
    OpCase("tanh", lambda x: wf.nn.tanh(x), [r(2, 3)], as_input_dtype(np.tanh)),
    OpCase("log_sigmoid", lambda x: log_sigmoid(x), [r(3, 4) * 4],
           as_input_dtype(lambda x: -np_softplus(-x))),
    # the *Grad ops: forward = the activation's derivative; their gradients = second derivatives
    OpCase("relu6_grad_op", raw("Relu6Grad"), [r(3, 4), away_from([0, 6], 3, 4, spread=8)],
           lambda g, f: np.where((f > 0) & (f < 6), g, 0).astype(g.dtype)),
    OpCase("elu_grad_op", raw("EluGrad"), [r(3, 4), np_elu(away_from([0], 3, 4)).astype(np.float32)],
           as_input_dtype(lambda g, y: np.where(y < 0, g * (y + 1), g))),
    OpCase("selu_grad_op", raw("SeluGrad"), [r(3, 4), np_selu(away_from([0], 3, 4)).astype(np.float32)],
           as_input_dtype(lambda g, y: np.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE))),
    OpCase("leaky_relu_grad_op", raw("LeakyReluGrad", alpha=0.25), [r(3, 4), away_from([0], 3, 4)],
           as_input_dtype(lambda g, f: np.where(f > 0, g, 0.25 * g))),
    OpCase("softplus_grad_op", raw("SoftplusGrad"), [r(3, 4), r(3, 4) * 2],
           as_input_dtype(lambda g, f: g * np_sigmoid(f))),
    OpCase("softsign_grad_op", raw("SoftsignGrad"), [r(3, 4), r(3, 4)],
           as_input_dtype(lambda g, f: g / (1 + np.abs(f)) ** 2), grad=False),   # TF has no SoftsignGrad gradient
    # normalization
    OpCase("l2_normalize_axis1", lambda x: wf.nn.l2_normalize(x, axis=1), [X],
           as_input_dtype(lambda x: np_l2_normalize(x, 1))),
    OpCase("l2_normalize_all_axes", lambda x: wf.nn.l2_normalize(x), [r(2, 3, 2)],
           as_input_dtype(lambda x: np_l2_normalize(x, None))),
    OpCase("l2_normalize_dim0_v1", lambda x: tf.nn.l2_normalize(x, dim=0), [X],
           as_input_dtype(lambda x: np_l2_normalize(x, 0))),
    OpCase("l2_normalize_zero_row_uses_epsilon", lambda x: wf.nn.l2_normalize(x, 1),
           [np.array([[0, 0], [3, 4]], np.float32)], as_input_dtype(lambda x: np_l2_normalize(x, 1)), grad=False),
    OpCase("batch_normalization", lambda x, m, v, o, s: wf.nn.batch_normalization(x, m, v, o, s, 1e-3),
           [r(4, 3), r(3), rng.uniform(0.5, 2, 3).astype(np.float32), r(3), r(3)],
           as_input_dtype(lambda x, m, v, o, s: np_batch_norm(x, m, v, o, s, 1e-3))),
    OpCase("batch_normalization_no_offset_scale", lambda x, m, v: wf.nn.batch_normalization(x, m, v, None, None, 0.01),
           [r(2, 2, 3), r(3), rng.uniform(0.5, 2, 3).astype(np.float32)],
           as_input_dtype(lambda x, m, v: np_batch_norm(x, m, v, 0, 1, 0.01))),
    # FusedBatchNormV3 takes float16/float32 only (as TF): forward rows here, its gradient in a story below.
    OpCase("fused_batch_norm_training", lambda x, s, o: tf.nn.fused_batch_norm(x, s, o), [IMAGES, SCALE, OFFSET],
           as_input_dtype(np_fused_training), grad=False),
    OpCase("fused_batch_norm_inference",
           lambda x, s, o, m, v: tf.nn.fused_batch_norm(x, s, o, m, v, epsilon=0.01, is_training=False),
           [IMAGES, SCALE, OFFSET, r(3), rng.uniform(0.5, 2, 3).astype(np.float32)],
           as_input_dtype(lambda x, s, o, m, v: [np_batch_norm(x, m, v, o, s, np.float64(np.float32(0.01))), m, v]),
           grad=False),
    OpCase("fused_batch_norm_nchw", lambda x, s, o: tf.nn.fused_batch_norm(x, s, o, data_format="NCHW")[0],
           [IMAGES.transpose(0, 3, 1, 2).copy(), SCALE, OFFSET],
           as_input_dtype(lambda x, s, o: np_fused_training(x.transpose(0, 2, 3, 1), s, o)[0].transpose(0, 3, 1, 2)),
           grad=False),
    # top-k
    OpCase("top_k_values", lambda x: wf.nn.top_k(x, 3).values, [DISTINCT], lambda x: np_top_k(x, 3)[0]),
    OpCase("top_k_rank3_values", lambda x: wf.nn.top_k(x, 2)[0], [DISTINCT.reshape(2, 2, 6)],
           lambda x: np_top_k(x, 2)[0]),
    OpCase("top_k_ties_lower_index_first", lambda x: list(wf.nn.top_k(x, 3)), [TIES], lambda x: np_top_k(x, 3),
           grad=False),
    OpCase("top_k_default_k1_vector", lambda x: list(wf.nn.top_k(x)), [np.array([2, 7, 7, 1], np.float32)],
           lambda x: np_top_k(x, 1), grad=False),
    OpCase("in_top_k_ties_count", lambda p, t: tf.nn.in_top_k(p, t, 2),
           [np.array([[1, 2, 2, 3], [1, 1, 1, 1], [4, 3, 2, 1], [0, 5, 5, 5]], np.float32),
            np.array([1, 3, 2, 1], np.int32)], lambda p, t: np_in_top_k(p, t, 2), grad=False),
    OpCase("in_top_k_v2_nonfinite_and_out_of_range", lambda t, p: wf.nn.in_top_k(t, p, 1),
           [np.array([0, 0, 4, 1], np.int64),
            np.array([[np.nan, 1, 1], [np.inf, 1, 2], [1, 2, 3], [1, 9, 3]], np.float32)],
           lambda t, p: np_in_top_k(p, t, 1), grad=False),
    OpCase("xw_plus_b", lambda x, w, b: tf.nn.xw_plus_b(x, w, b), [r(3, 4), r(4, 2), r(2)],
           as_input_dtype(lambda x, w, b: x @ w + b)),
    # FusedBatchNormGradV3 itself (float16/float32 only, as TF: its gradient is a story below)
    OpCase("fused_batch_norm_grad_op_training",
           lambda dy, x, s, m, v, r3: raw("FusedBatchNormGradV3", epsilon=0.001, data_format="NHWC",
                                          is_training=True)(dy, x, s, m, v, r3)[:3],
           [DY, IMAGES, SCALE, *[v.astype(np.float32) for v in batch_statistics(IMAGES)], np.zeros(0, np.float32)],
           as_input_dtype(lambda dy, x, s, m, v, r3: np_fused_grad(dy, x, s, *batch_statistics(x))), grad=False),
    OpCase("fused_batch_norm_grad_op_inference",
           lambda dy, x, s, m, v, r3: raw("FusedBatchNormGradV3", epsilon=0.01, data_format="NHWC",
                                          is_training=False)(dy, x, s, m, v, r3)[:3],
           [DY, IMAGES, SCALE, POPULATION_MEAN, POPULATION_VAR, np.zeros(0, np.float32)],
           as_input_dtype(lambda dy, x, s, m, v, r3: np_fused_grad(dy, x, s, m, v, np.float32(0.01), training=False)),
           grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


# --- stories -------------------------------------------------------------------------------------------
def numerical_gradient(function, x, eps=1e-3):
    x = np.array(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        grad[i] = (function(plus) - function(minus)) / (2 * eps)
    return grad


@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_gradient_matches_numerical_gradient(training):
    """float32 op (as TF allows), compared with float64 central differences of the NumPy reference."""
    weights = rng.uniform(0.5, 1.5, IMAGES.shape)
    mean, var = r(3), rng.uniform(0.5, 2, 3).astype(np.float32)

    def reference(x, scale, offset):
        if training:
            return float(np.sum(weights * np_fused_training(x, scale, offset)[0]))
        return float(np.sum(weights * np_batch_norm(x, mean, var, offset, scale, np.float64(np.float32(0.001)))))

    tensors = [wf.constant(v) for v in (IMAGES, SCALE, OFFSET)]
    with wf.GradientTape() as tape:
        for t in tensors:
            tape.watch(t)
        y = tf.nn.fused_batch_norm(*tensors, mean, var, is_training=training)[0]
        objective = wf.reduce_sum(y * wf.constant(weights, dtype=wf.float32))
    grads = tape.gradient(objective, tensors)
    inputs = [IMAGES, SCALE, OFFSET]
    for i, grad in enumerate(grads):
        expected = numerical_gradient(lambda v, i=i: reference(*[v if j == i else inputs[j] for j in range(3)]),
                                      inputs[i])
        np.testing.assert_allclose(grad.numpy(), expected, atol=2e-3, rtol=2e-3, err_msg=f"input {i}")


@pytest.mark.parametrize("training", [True, False])
def test_fused_batch_norm_grad_gradient_matches_numerical_gradient(training):
    """FusedBatchNormGradV3's own gradient (float32, eager and tf.gradients) vs float64 central differences of
    sum(wa * dx + wb * dscale + wc * doffset) of the NumPy reference; when training, the reference recomputes the
    batch statistics from x, as TensorFlow's rule differentiates them."""
    weights = [grad_rng.uniform(0.5, 1.5, IMAGES.shape), grad_rng.uniform(0.5, 1.5, 3), grad_rng.uniform(0.5, 1.5, 3)]
    stats = batch_statistics(IMAGES) if training else [POPULATION_MEAN, POPULATION_VAR]
    stats = [v.astype(np.float32) for v in stats]
    eps = 0.001 if training else 0.01

    def reference(dy, x, scale):
        m, v = batch_statistics(x) if training else stats
        outputs = np_fused_grad(dy, x, scale, m, v, np.float32(eps), training)
        return float(sum(np.sum(w * o) for w, o in zip(weights, outputs)))

    def objective(dy, x, scale):
        outputs = raw("FusedBatchNormGradV3", epsilon=eps, data_format="NHWC", is_training=training)(
            dy, x, scale, *stats, np.zeros(0, np.float32))[:3]
        return wf.add_n([wf.reduce_sum(o * wf.constant(w, dtype=wf.float32)) for o, w in zip(outputs, weights)])

    inputs = [DY, IMAGES, SCALE]
    tensors = [wf.constant(v) for v in inputs]
    with wf.GradientTape() as tape:
        tape.watch(tensors)
        value = objective(*tensors)
    grads = [g.numpy() for g in tape.gradient(value, tensors)]
    for i, grad in enumerate(grads):
        expected = numerical_gradient(lambda v, i=i: reference(*[v if j == i else inputs[j] for j in range(3)]),
                                      inputs[i])
        np.testing.assert_allclose(grad, expected, atol=2e-3, rtol=2e-3, err_msg=f"input {i}")
    graph = wf.Graph()
    with graph.as_default():
        holders = [tf.placeholder(tf.float32, v.shape) for v in inputs]
        graph_grads = tf.gradients(objective(*holders), holders)
        with tf.Session() as session:
            values = session.run(graph_grads, dict(zip(holders, inputs)))
    for value, grad in zip(values, grads):
        np.testing.assert_allclose(value, grad, atol=1e-5, rtol=1e-5)


def test_second_derivatives_through_the_grad_ops():
    """d2/dx2 of elu, selu, softplus and leaky_relu by nested tapes vs the closed forms."""
    x = wf.constant(away_from([0], 7).astype(np.float64))
    xs = x.numpy()
    expected = {
        "elu": np.where(xs < 0, np.exp(xs), 0), "selu": np.where(xs < 0, SELU_SCALE * SELU_ALPHA * np.exp(xs), 0),
        "softplus": np_sigmoid(xs) * (1 - np_sigmoid(xs)), "leaky_relu": np.zeros_like(xs),
        "relu6": np.zeros_like(xs)}
    for name, value in expected.items():
        with wf.GradientTape() as outer:
            outer.watch(x)
            with wf.GradientTape() as inner:
                inner.watch(x)
                y = getattr(wf.nn, name)(x)
            dy = inner.gradient(y, x)
        np.testing.assert_allclose(outer.gradient(dy, x).numpy(), value, atol=1e-10, err_msg=name)


def test_gradients_use_tensorflows_grad_ops(graph_mode):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    types = {}
    for fn in (tf.nn.relu6, tf.nn.elu, tf.nn.selu, tf.nn.leaky_relu, tf.nn.softsign):
        types[fn.__name__] = tf.gradients(fn(x), x)[0].op.type
    assert types == {"relu6": "Relu6Grad", "elu": "EluGrad", "selu": "SeluGrad", "leaky_relu": "LeakyReluGrad",
                     "softsign": "SoftsignGrad"}
    images = tf.placeholder(tf.float32, [None, 3, 3, 2])
    y, _, _ = tf.nn.fused_batch_norm(images, tf.ones([2]), tf.zeros([2]))
    assert tf.gradients(y, images)[0].op.type == "FusedBatchNormGradV3"


@pytest.mark.parametrize("build, error, message", [
    (lambda: tf.nn.top_k(tf.placeholder(tf.float32, [None, 4]), 5), ValueError,
     r"input must have last dimension >= k = 5 but is 4 for '\{\{node TopKV2\}\}"),
    (lambda: tf.nn.top_k(tf.placeholder(tf.float32, [None, 4]), -1), ValueError,
     "Dimension size, given by scalar input 1, must be non-negative but is -1"),
    (lambda: tf.nn.in_top_k(tf.placeholder(tf.float32, [3, 4]), tf.placeholder(tf.int32, [2]), 1), ValueError,
     r"Dimensions must be equal, but are 3 and 2 for '\{\{node in_top_k/InTopKV2\}\}"),
    (lambda: tf.nn.in_top_k(tf.placeholder(tf.float64, [3, 4]), tf.placeholder(tf.int32, [3]), 1), TypeError,
     "Input 'predictions' of 'InTopKV2' Op has type float64 that does not match expected type of float32."),
    (lambda: tf.nn.fused_batch_norm(tf.placeholder(tf.float32, [None, 4]), tf.ones([4]), tf.zeros([4])),
     ValueError, "Shape must be rank 4 but is rank 2"),
    (lambda: tf.nn.fused_batch_norm(tf.placeholder(tf.float32, [2, 3, 3, 2]), tf.ones([3]), tf.zeros([2])),
     ValueError, "Dimensions must be equal, but are 2 and 3"),
    (lambda: tf.nn.fused_batch_norm(tf.placeholder(tf.float32, [2, 3, 3, 2]), tf.ones([2]), tf.zeros([2]),
                                    is_training=False), ValueError, "Both `mean` and `variance` must be a 1D tensor"),
    (lambda: tf.nn.elu(tf.placeholder(tf.int32, [2])), TypeError,
     "Value passed to parameter 'features' has DataType int32 not in list of allowed values"),
    (lambda: tf.nn.l2_normalize(tf.placeholder(tf.float32, [2]), axis=0, dim=0), ValueError,
     "Cannot specify both 'dim' and 'axis'."),
    (lambda: tf.nn.xw_plus_b(tf.placeholder(tf.float32, [None, 4]), tf.ones([3, 2]), tf.zeros([2])), ValueError,
     "Dimensions must be equal, but are 4 and 3"),
])
def test_build_time_errors(graph_mode, build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_top_k_run_time_errors(graph_mode):
    values = tf.placeholder(tf.float32, [None, None])
    k = tf.placeholder(tf.int32, [])
    top = tf.nn.top_k(values, k)
    with tf.Session() as session:
        with pytest.raises(tf.errors.InvalidArgumentError, match="input must have at least k columns. Had 3, needed 4"):
            session.run(top, {values: np.ones((2, 3)), k: 4})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Need k >= 0, got -1"):
            session.run(top, {values: np.ones((2, 3)), k: -1})
