"""runtime/fusion.py: Conv2D/MatMul -> bias add -> Relu chains run as one step (TensorFlow's _FusedConv2D and
_FusedMatMul) with exactly the unfused bits, only when the chain is private, and not at all with the switch off.

Oracles: the same graph with the intermediate tensors fetched (which keeps every op on its own) finished by
NumPy's add and maximum, bit for bit; a float64 loop convolution and NumPy matmul for the values themselves."""

from __future__ import annotations

import numpy as np
import pytest

import webflow.compat.v1 as tf
from tests import fusion_helpers
from tests.fusion_helpers import bits as _bits
from tests.fusion_helpers import fused_then_separate
from tests.fusion_helpers import traced as _traced
from tests.test_cnn_speed_paths import _conv_reference
from webflow.runtime import fusion

RNG = np.random.default_rng(11)
CHANNELS = 32
backend = fusion_helpers.backend   # the fixture: the direct C convolution's epilogue, and NumPy's in-place one


def _conv_chain(bias_op: str, relu: bool) -> tuple:
    x = tf.placeholder(tf.float32, [3, 9, 11, 5], name="x")
    w = RNG.normal(size=(5, 5, 5, CHANNELS)).astype(np.float32)
    b = tf.Variable(RNG.normal(size=CHANNELS).astype(np.float32), name="b")
    conv = tf.nn.conv2d(x, tf.constant(w), [1, 1, 1, 1], "SAME")
    summed = tf.nn.bias_add(conv, b) if bias_op == "BiasAdd" else b + conv  # the bias first: either order fuses
    return x, w, b, conv, summed, (tf.nn.relu(summed) if relu else summed)


def _image() -> np.ndarray:
    x = RNG.normal(size=(3, 9, 11, 5)).astype(np.float32)
    x[0, 4, 5, 2] = np.nan  # reaches the 5x5 output pixels around it, in every channel; Relu keeps NaN
    return x


@pytest.mark.parametrize("bias_op", ["BiasAdd", "AddV2"])
@pytest.mark.parametrize("relu", [True, False])
def test_fused_convolution_matches_the_separate_ops_bit_for_bit(backend: str, bias_op: str, relu: bool) -> None:
    with tf.Graph().as_default():
        x, w, b, conv, summed, out = _conv_chain(bias_op, relu)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            image = _image()
            fused, ran = _traced(sess, out, {x: image})
            conv_value, bias = sess.run([conv, b], {x: image})  # conv fetched: not private, so not fused
    assert ran[out.op.name] == "_FusedConv2D"
    assert {conv.op.name, summed.op.name, out.op.name} & set(ran) == {out.op.name}  # one node for the chain
    expected = conv_value + bias
    if relu:
        expected = np.maximum(expected, np.float32(0))
    np.testing.assert_array_equal(_bits(fused), _bits(expected))
    assert np.isnan(fused).sum() == 5 * 5 * CHANNELS
    reference = _conv_reference(np.nan_to_num(image, nan=0.0), w) + bias
    reference = np.maximum(reference, 0) if relu else reference
    finite = ~np.isnan(fused)
    np.testing.assert_allclose(fused[finite], reference[finite], rtol=1e-5, atol=1e-4)


def test_fused_matmul_matches_the_separate_ops_bit_for_bit(backend: str) -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [7, 40])
        w = tf.constant(RNG.normal(size=(40, 24)).astype(np.float32))
        b = tf.constant(RNG.normal(size=24).astype(np.float32))
        product = tf.matmul(x, w)
        out = tf.nn.relu(product + b)
        inputs = RNG.normal(size=(7, 40)).astype(np.float32)
        with tf.Session() as sess:
            fused, ran = _traced(sess, out, {x: inputs})
            product_value = sess.run(product, {x: inputs})
    assert ran[out.op.name] == "_FusedMatMul" and product.op.name not in ran
    np.testing.assert_array_equal(_bits(fused), _bits(np.maximum(product_value + b.op.get_attr("value"),
                                                                 np.float32(0))))
    expected = np.maximum(inputs.astype(np.float64) @ w.op.get_attr("value") + b.op.get_attr("value"), 0)
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-5)


def _op_types_that_ran(fetches: list, build_extra=None) -> dict:
    with tf.Graph().as_default():
        x, _, b, conv, summed, out = _conv_chain("AddV2", relu=True)
        fetch_list = [tensor for tensor in (conv, summed, out) if tensor.op.name in fetches]
        if build_extra is not None:
            fetch_list.append(build_extra(conv, summed))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return _traced(sess, fetch_list, {x: _image()})[1]


def test_a_fetched_intermediate_keeps_the_ops_apart() -> None:
    ran = _op_types_that_ran(["Conv2D", "add", "Relu"])
    assert (ran["Conv2D"], ran["add"], ran["Relu"]) == ("Conv2D", "AddV2", "Relu")
    ran = _op_types_that_ran(["add", "Relu"])  # the conv output is private: Conv2D and the add still fuse
    assert ran["add"] == "_FusedConv2D" and ran["Relu"] == "Relu" and "Conv2D" not in ran


def test_a_second_reader_of_the_sum_keeps_the_relu_apart() -> None:
    ran = _op_types_that_ran(["Relu"], build_extra=lambda conv, summed: tf.reduce_sum(summed))
    assert ran["add"] == "_FusedConv2D" and ran["Relu"] == "Relu"


def test_a_bias_that_broadcasts_the_value_up_is_not_fused() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 24])
        product = tf.matmul(x, tf.ones([24, 24]))
        out = tf.nn.relu(product + tf.ones([5, 24]))  # [1, 24] + [5, 24]: a new shape, not a bias add
        with tf.Session() as sess:
            value, ran = _traced(sess, out, {x: np.ones((1, 24), np.float32)})
    assert ran[product.op.name] == "MatMul" and value.shape == (5, 24)


def test_the_switch_runs_every_op_on_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fusion, "ENABLED", False)
    ran = _op_types_that_ran(["Relu"])
    assert (ran["Conv2D"], ran["add"], ran["Relu"]) == ("Conv2D", "AddV2", "Relu")


def test_a_training_step_is_unchanged_by_fusion(monkeypatch: pytest.MonkeyPatch) -> None:
    # the gradients read the Relu's output (ReluGrad) and the conv's inputs, never the fused intermediates
    def train_once() -> list:
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            x, _, b, conv, summed, out = _conv_chain("BiasAdd", relu=True)
            loss = tf.reduce_mean(tf.square(out))
            step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                image = np.nan_to_num(_image())
                sess.run(step, {x: image})
                return sess.run([loss, b], {x: image})

    fused, separate = fused_then_separate(train_once, RNG, monkeypatch)
    for a, b in zip(fused, separate):
        np.testing.assert_array_equal(_bits(a), _bits(b))


def test_max_pool_grad_and_relu_grad_fuse_bit_for_bit(backend: str) -> None:
    # a conv layer's gradient: ReluGrad(MaxPoolGrad(..), features = the pooling's input, the Relu output)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4, 8, 8, 32])
        hidden = tf.nn.relu(x)
        pooled = tf.nn.max_pool(hidden, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        upstream = tf.constant(RNG.normal(size=(4, 4, 4, 32)).astype(np.float32))
        (dx,) = tf.gradients(pooled, [x], grad_ys=upstream)
        pool_grad = dx.op.inputs[0]
        assert (dx.op.type, pool_grad.op.type) == ("ReluGrad", "MaxPoolGrad")
        inputs = RNG.normal(size=(4, 8, 8, 32)).astype(np.float32)
        with tf.Session() as sess:
            fused, ran = _traced(sess, dx, {x: inputs})
            pool_grad_value, features = sess.run([pool_grad, hidden], {x: inputs})  # fetched: kept apart
    assert ran[dx.op.name] == "_FusedMaxPoolGrad" and pool_grad.op.name not in ran
    np.testing.assert_array_equal(_bits(fused), _bits(np.where(features > 0, pool_grad_value, np.float32(0))))
    # the values: each 2x2 window's gradient lands on its maximum, if that input is positive
    windows = inputs.reshape(4, 4, 2, 4, 2, 32).transpose(0, 1, 3, 5, 2, 4).reshape(4, 4, 4, 32, 4)
    first_max = windows.argmax(axis=-1)
    expected = np.zeros_like(windows)
    np.put_along_axis(expected, first_max[..., None], upstream.op.get_attr("value")[..., None], axis=-1)
    expected = expected.reshape(4, 4, 4, 32, 2, 2).transpose(0, 1, 4, 2, 5, 3).reshape(4, 8, 8, 32)
    np.testing.assert_array_equal(fused, np.where(inputs > 0, expected, 0))


def test_a_conv_layers_bias_gradient_joins_the_fused_pool_gradient(backend: str) -> None:
    # the bias of relu(x + b) -> max_pool: its gradient is Sum(ReluGrad(MaxPoolGrad(..)), [0, 1, 2]); 8 x 16 x 16 x
    # 32 floats, enough for the C Sum (below 64k elements NumPy sums, and nothing joins)
    shape = (8, 16, 16, 32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape)
        b = tf.Variable(RNG.normal(size=32).astype(np.float32))
        pooled = tf.nn.max_pool(tf.nn.relu(x + b), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        upstream = tf.constant(RNG.normal(size=(8, 8, 8, 32)).astype(np.float32))
        dx, db = tf.gradients(pooled, [x, b], grad_ys=upstream)
        bias_sum = db.op.inputs[0]
        assert bias_sum.op.type == "Sum" and bias_sum.op.inputs[0] is dx
        inputs = RNG.normal(size=shape).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            (gradient, bias_gradient), ran = _traced(sess, [dx, db], {x: inputs})
            alone = sess.run(dx, {x: inputs})  # without the Sum: the one-output fused step
    assert ran[dx.op.name] == "_FusedMaxPoolGrad"
    assert (bias_sum.op.name in ran) == (backend == "numpy")  # NumPy's Sum runs on its own
    np.testing.assert_array_equal(gradient, alone)
    np.testing.assert_allclose(bias_gradient, gradient.astype(np.float64).sum(axis=(0, 1, 2)), rtol=1e-5, atol=1e-5)


def test_the_fused_bias_gradient_has_the_separate_sums_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    def bias_gradient() -> np.ndarray:
        rng = np.random.default_rng(5)
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, (8, 16, 16, 32))
            b = tf.Variable(rng.normal(size=32).astype(np.float32))
            pooled = tf.nn.max_pool(tf.nn.relu(x + b), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            (db,) = tf.gradients(pooled, [b], grad_ys=tf.constant(rng.normal(size=(8, 8, 8, 32)).astype(np.float32)))
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run(db, {x: rng.normal(size=(8, 16, 16, 32)).astype(np.float32)})

    fused = bias_gradient()
    monkeypatch.setattr(fusion, "ENABLED", False)
    np.testing.assert_array_equal(_bits(fused), _bits(bias_gradient()))
