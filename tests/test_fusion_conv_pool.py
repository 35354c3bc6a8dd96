"""runtime/fusion.py's pooling chains of a conv layer, on the C backend, with exactly the separate ops' bits:
- forward: Conv2D -> bias add -> Relu -> MaxPool as one _FusedConv2D step returning the Relu's output and its
  pooling (wf_conv2d_direct_bias_relu_pool_f32 pools each image just after computing it);
- backward: MaxPoolGrad -> ReluGrad -> (bias Sum, Conv2DBackpropFilter) as one _FusedConv2DBackpropFilter step
  when nothing else reads that gradient (a first conv layer: no input gradient), the gradient made image by
  image inside the filter gradient (wf_conv2d_direct_filter_grad_pool_f32).

Oracles: the same graph run with fusion switched off (every op on its own kernel), bit for bit; NumPy's window
maxima of the fetched Relu output; a float64 NumPy filter gradient and bias gradient from the unfused run's
fetched output gradient."""

from __future__ import annotations

import numpy as np
import pytest

import webflow.compat.v1 as tf
from tests import fusion_helpers
from tests.fusion_helpers import bits as _bits
from tests.fusion_helpers import fused_then_separate
from tests.fusion_helpers import traced as _traced

backend = fusion_helpers.backend   # the fixture: "auto" (the C kernels fuse) and "numpy" (every op on its own)

RNG = np.random.default_rng(23)
CHANNELS = 32


def _window_max(h: np.ndarray, size: int, stride: int, padding: str) -> np.ndarray:
    """NumPy's max over each pooling window's in-bounds cells (TensorFlow's SAME: the extra cell at the end)."""
    batch, height, width, channels = h.shape
    def geometry(length: int) -> tuple:
        out = -(-length // stride) if padding == "SAME" else (length - size) // stride + 1
        pad = max((out - 1) * stride + size - length, 0) // 2 if padding == "SAME" else 0
        return out, pad
    (out_h, top), (out_w, left) = geometry(height), geometry(width)
    pooled = np.empty((batch, out_h, out_w, channels), h.dtype)
    for i in range(out_h):
        for j in range(out_w):
            rows = slice(max(i * stride - top, 0), min(i * stride - top + size, height))
            cols = slice(max(j * stride - left, 0), min(j * stride - left + size, width))
            pooled[:, i, j] = h[:, rows, cols].max(axis=(1, 2))
    return pooled


@pytest.mark.parametrize("size, stride, padding, channels", [(2, 2, "SAME", CHANNELS), (3, 2, "VALID", CHANNELS),
                                                       (3, 2, "SAME", CHANNELS), (2, 2, "SAME", 4)])
def test_conv_relu_max_pool_forward(backend: str, size: int, stride: int, padding: str, channels: int,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # 4 output channels: not whole vectors for the direct convolution, so the fused step runs the separate kernels
    # (15 images: enough for the C MaxPool, chosen from 8192 elements)
    images = RNG.normal(size=(5 if channels == CHANNELS else 15, 11, 13, 3)).astype(np.float32)

    def run() -> tuple:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, images.shape)
            w = tf.constant(RNG.normal(size=(5, 5, 3, channels)).astype(np.float32))
            b = tf.constant(RNG.normal(size=channels).astype(np.float32))
            h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b)
            pooled = tf.nn.max_pool(h, [1, size, size, 1], [1, stride, stride, 1], padding)
            with tf.Session() as sess:
                values, ran = _traced(sess, [h, pooled], {x: images})
            return values, ran, h.op.name, pooled.op.name

    fused, separate = fused_then_separate(run, RNG, monkeypatch)
    (h, pooled), ran, relu_name, pool_name = fused
    assert ran[relu_name] == "_FusedConv2D" and (pool_name in ran) == (backend == "numpy")  # NumPy: no pooling
    np.testing.assert_array_equal(pooled, _window_max(h, size, stride, padding))
    (h_alone, pooled_alone), ran_alone, _, _ = separate
    assert ran_alone[pool_name] == "MaxPool"
    np.testing.assert_array_equal(_bits(h), _bits(h_alone))
    np.testing.assert_array_equal(_bits(pooled), _bits(pooled_alone))


def _first_layer(images: np.ndarray, optimizer: bool, fetch_gradient: bool = False) -> tuple:
    """conv 5x5x1 -> 32 + bias -> Relu -> 2x2 max pool of placeholder images, the loss the pooled values times
    fixed weights: (filter gradient, bias gradient[, the conv's output gradient]) and the op types that ran.
    With `optimizer`, the gradients come from GradientDescentOptimizer.compute_gradients (gated by Identity ops,
    as minimize's are); else from tf.gradients."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, images.shape)
        w = tf.Variable(RNG.normal(size=(5, 5, 1, CHANNELS)).astype(np.float32) * 0.3)
        b = tf.Variable(RNG.normal(size=CHANNELS).astype(np.float32) * 0.1)
        h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b)
        pooled = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = tf.reduce_sum(pooled * tf.constant(RNG.normal(size=pooled.shape.as_list()).astype(np.float32)))
        if optimizer:
            pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, [w, b])
            grads = [gradient for gradient, _ in pairs]
        else:
            grads = tf.gradients(loss, [w, b])
        filter_grad = grads[0]
        while filter_grad.op.type == "Identity":  # the optimizer's gate
            filter_grad = filter_grad.op.inputs[0]
        conv_grad = filter_grad.op.inputs[2]
        fetches = grads + ([conv_grad, h] if fetch_gradient else [])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return _traced(sess, fetches, {x: images})


@pytest.mark.parametrize("optimizer", [False, True])
def test_first_conv_layer_gradient(backend: str, optimizer: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # 8 x 16 x 16 x 32 floats of output gradient: enough for the C bias Sum (below 64k elements NumPy's runs)
    images = RNG.normal(size=(8, 16, 16, 1)).astype(np.float32)
    fused, separate = fused_then_separate(lambda: _first_layer(images, optimizer), RNG, monkeypatch,
                                          lambda: _first_layer(images, optimizer, fetch_gradient=True))
    (d_filter, d_bias), ran = fused
    assert ("_FusedConv2DBackpropFilter" in ran.values()) == (backend == "auto")
    assert "Conv2DBackpropFilter" not in ran.values() or backend == "numpy"
    (d_filter_alone, d_bias_alone, conv_grad, h), ran_alone = separate
    assert "_FusedConv2DBackpropFilter" not in ran_alone.values()
    np.testing.assert_array_equal(_bits(d_filter), _bits(d_filter_alone))
    np.testing.assert_array_equal(_bits(d_bias), _bits(d_bias_alone))
    # the values: float64 NumPy sums of windows x output gradient, and the gradient's channel sums
    padded = np.pad(images.astype(np.float64), ((0, 0), (2, 2), (2, 2), (0, 0)))
    expected = np.empty((5, 5, 1, CHANNELS))
    for a in range(5):
        for b in range(5):
            expected[a, b, 0] = np.einsum("nhw,nhwk->k", padded[:, a:a + 16, b:b + 16, 0], conv_grad)
    np.testing.assert_allclose(d_filter, expected, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(d_bias, conv_grad.astype(np.float64).sum(axis=(0, 1, 2)), rtol=1e-5, atol=1e-4)
    assert np.all(conv_grad[h <= 0] == 0)  # ReluGrad's mask, with the Relu output as features


def test_a_gradient_read_elsewhere_keeps_its_own_step() -> None:
    # fetching the conv's output gradient pins it: the pooling gradient runs as _FusedMaxPoolGrad, apart
    images = RNG.normal(size=(8, 16, 16, 1)).astype(np.float32)
    _, ran = _first_layer(images, optimizer=False, fetch_gradient=True)
    assert "_FusedConv2DBackpropFilter" not in ran.values() and "_FusedMaxPoolGrad" in ran.values()
    assert "Conv2DBackpropFilter" in ran.values()
