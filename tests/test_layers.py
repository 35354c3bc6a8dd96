"""Stories for tf.layers (webflow.compat.v1.layers): names, collections, reuse, and every layer's numbers
checked against NumPy computed from the variables' fetched values.

TensorFlow itself is the oracle in tests/tf1_programs/layers_*.py (same names, same seeded initial
values, same losses after SGD steps); here the references are NumPy formulas.
"""

import numpy as np
import pytest

import webflow.compat.v1 as tf

RNG = np.random.RandomState(0)


pytestmark = pytest.mark.usefixtures("graph_mode")  # every test in TF1 graph mode (tests/conftest.py)


def names(variables):
    return [v.name for v in variables]


def run(fetches, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feed)


# --- dense ------------------------------------------------------------------------------------------
def test_dense_names_shapes_and_numbers():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.layers.dense(x, 4, activation=tf.nn.relu)
    z = tf.layers.dense(y, 2)
    assert y.name == "dense/Relu:0" and z.name == "dense_1/BiasAdd:0"
    assert str(y.shape) == "(?, 4)"
    assert names(tf.global_variables()) == ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]
    assert names(tf.trainable_variables()) == names(tf.global_variables())
    ops = [op.name for op in tf.get_default_graph().get_operations()]
    assert {"dense/MatMul", "dense/BiasAdd", "dense/Relu", "dense_1/MatMul"} <= set(ops)
    data = RNG.randn(5, 3).astype(np.float32)
    k1, b1, k2, b2, out = run(tf.global_variables() + [z], {x: data})
    limit = np.sqrt(6.0 / (3 + 4))  # glorot uniform: U(-sqrt(6 / (fan_in + fan_out)), +...)
    assert np.all(np.abs(k1) <= limit) and k1.std() > 0 and not b1.any()
    expected = np.maximum(data @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)


def test_dense_on_rank_3_contracts_the_last_axis():
    x = tf.placeholder(tf.float32, [None, 4, 3])
    y = tf.layers.dense(x, 2, use_bias=False)
    assert str(y.shape) == "(?, 4, 2)" and names(tf.global_variables()) == ["dense/kernel:0"]
    data = RNG.randn(2, 4, 3).astype(np.float32)
    kernel, out = run([tf.global_variables()[0], y], {x: data})
    np.testing.assert_allclose(out, np.einsum("bij,jk->bik", data, kernel), rtol=1e-5, atol=1e-6)


def test_seeded_kernels_follow_the_graph_seed():
    def kernels():
        tf.reset_default_graph()
        tf.set_random_seed(5)
        x = tf.placeholder(tf.float32, [None, 3])
        tf.layers.dense(tf.layers.dense(x, 3), 3)
        return run(tf.trainable_variables())

    first, second = kernels(), kernels()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[2])  # each kernel draws from its own op seed


# --- names and reuse --------------------------------------------------------------------------------
def test_layer_objects_are_named_from_one_and_scoped_from_zero():
    x = tf.placeholder(tf.float32, [None, 3])
    layer = tf.layers.Dense(2)
    assert layer.name == "dense_1"  # Keras numbers layer names from 1 ...
    first, second = layer(x), layer(x)
    assert layer.scope_name == "dense"  # ... while variable scopes start at "dense"
    assert (first.name, second.name) == ("dense/BiasAdd:0", "dense/BiasAdd_1:0")
    assert names(layer.weights) == ["dense/kernel:0", "dense/bias:0"] == names(tf.global_variables())


def test_reuse_by_name_and_auto_reuse_in_an_outer_scope():
    x = tf.placeholder(tf.float32, [None, 3])
    a = tf.layers.dense(x, 2, name="fc")
    b = tf.layers.dense(x, 2, name="fc", reuse=True)
    with tf.variable_scope("outer"):
        c = tf.layers.dense(x, 2, reuse=tf.AUTO_REUSE)
        d = tf.layers.dense(x, 2, reuse=tf.AUTO_REUSE)
        e = tf.layers.dense(x, 2)
    assert [t.name for t in (a, b, c, d, e)] == ["fc/BiasAdd:0", "fc_1/BiasAdd:0", "outer/dense/BiasAdd:0",
                                                 "outer/dense_1/BiasAdd:0", "outer/dense_2/BiasAdd:0"]
    assert names(tf.global_variables()) == ["fc/kernel:0", "fc/bias:0", "outer/dense/kernel:0",
                                            "outer/dense/bias:0", "outer/dense_1/kernel:0", "outer/dense_1/bias:0"]
    ra, rb, rc, rd = run([a, b, c, d], {x: np.ones((1, 3), np.float32)})
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(rc, rd)


def test_reuse_errors():
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.dense(x, 2, name="fc")
    with pytest.raises(ValueError, match="Variable fc/kernel already exists"):
        tf.layers.dense(x, 2, name="fc")
    with pytest.raises(ValueError, match="Variable other/kernel does not exist"):
        tf.layers.dense(x, 2, name="other", reuse=True)
    with pytest.raises(ValueError, match="Trying to share variable fc/kernel"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, 5]), 2, name="fc", reuse=True)


def test_input_checks():
    layer = tf.layers.Dense(2)
    layer(tf.placeholder(tf.float32, [None, 3]))
    with pytest.raises(ValueError, match='layer "dense_1" is incompatible with the layer: expected axis -1 of input '
                                         r"shape to have value 3, but received input with shape \(None, 4\)"):
        layer(tf.placeholder(tf.float32, [None, 4]))
    with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
        tf.layers.dense(tf.placeholder(tf.float32, [3]), 2)
    with pytest.raises(ValueError, match="The last dimension of the inputs to a Dense layer should be defined"):
        tf.layers.dense(tf.placeholder(tf.float32, [None, None]), 2)
    with pytest.raises(ValueError, match="Invalid value 1.5 received for `rate`"):
        tf.layers.Dropout(1.5)


# --- collections ------------------------------------------------------------------------------------
def test_trainable_false_and_regularizers():
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.dense(x, 2, trainable=False, name="frozen")
    tf.layers.dense(x, 2, kernel_regularizer=lambda w: 0.5 * tf.reduce_sum(tf.square(w)), name="reg")
    assert names(tf.trainable_variables()) == ["reg/kernel:0", "reg/bias:0"]
    assert len(tf.global_variables()) == 4
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and losses[0].name.startswith("reg/kernel/Regularizer/")
    kernel, loss = run([tf.trainable_variables()[0], losses[0]])
    np.testing.assert_allclose(loss, 0.5 * np.sum(kernel ** 2), rtol=1e-6)


# --- conv2d, pooling, flatten ----------------------------------------------------------------------
def numpy_conv2d(x, w, stride, padding):
    kh, kw = w.shape[:2]
    if padding == "same":
        out_h, out_w = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        pad_h = max((out_h - 1) * stride + kh - x.shape[1], 0)
        pad_w = max((out_w - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2), (0, 0)])
    out_h, out_w = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], out_h, out_w, w.shape[3]))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("padding,stride", [("valid", 1), ("same", 1), ("same", 2), ("valid", 2)])
def test_conv2d_against_numpy(padding, stride):
    x = tf.placeholder(tf.float32, [None, 7, 6, 2])
    y = tf.layers.conv2d(x, 3, (3, 2), strides=stride, padding=padding, activation=tf.nn.relu)
    kernel, bias = tf.global_variables()
    assert (kernel.name, kernel.shape.as_list(), bias.shape.as_list()) == ("conv2d/kernel:0", [3, 2, 2, 3], [3])
    assert y.op.name == "conv2d/Relu" and y.op.inputs[0].op.name == "conv2d/BiasAdd"
    data = RNG.randn(2, 7, 6, 2).astype(np.float32)
    k, b, out = run([kernel, bias, y], {x: data})
    expected = np.maximum(numpy_conv2d(data, k, stride, padding) + b, 0)
    assert out.shape[1:] == tuple(y.shape.as_list()[1:])
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)


def test_pooling_and_flatten_against_numpy():
    x = tf.placeholder(tf.float32, [None, 4, 6, 2])
    max_pool = tf.layers.max_pooling2d(x, 2, 2)
    avg_pool = tf.layers.average_pooling2d(x, (2, 3), (2, 3))
    flat = tf.layers.flatten(max_pool)
    assert [t.op.name for t in (max_pool, avg_pool, flat)] == [
        "max_pooling2d/MaxPool", "average_pooling2d/AvgPool", "flatten/Reshape"]
    assert str(flat.shape) == "(?, 12)"
    data = RNG.randn(3, 4, 6, 2).astype(np.float32)
    out_max, out_avg, out_flat = run([max_pool, avg_pool, flat], {x: data})
    windows = data.reshape(3, 2, 2, 3, 2, 2)
    np.testing.assert_allclose(out_max, windows.max(axis=(2, 4)))
    np.testing.assert_allclose(out_avg, data.reshape(3, 2, 2, 2, 3, 2).mean(axis=(2, 4)), rtol=1e-6)
    np.testing.assert_allclose(out_flat, out_max.reshape(3, -1))


# --- dropout ----------------------------------------------------------------------------------------
def test_dropout_with_python_bool_and_bool_tensor():
    x = tf.placeholder(tf.float32, [None, 50])
    training = tf.placeholder(tf.bool, [])
    off = tf.layers.dropout(x, 0.4)
    on = tf.layers.dropout(x, 0.4, training=True)
    switched = tf.layers.dropout(x, 0.4, training=training)
    assert off.op.type == "Identity" and off.name == "dropout/Identity:0"
    data = RNG.rand(4, 50).astype(np.float32) + 1.0
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(off, {x: data}), data)
        for result in (sess.run(on, {x: data}), sess.run(switched, {x: data, training: True})):
            kept = result != 0
            assert 0 < kept.mean() < 1
            np.testing.assert_allclose(result[kept], data[kept] / 0.6, rtol=1e-6)
        np.testing.assert_array_equal(sess.run(switched, {x: data, training: False}), data)


def test_dropout_gradient_under_a_training_placeholder_uses_the_forward_mask():
    x = tf.placeholder(tf.float32, [None, 40])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.dropout(x, 0.5, training=training)
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    with tf.Session() as sess:
        out, g = sess.run([y, grad], {x: np.ones((4, 40), np.float32), training: True})
    np.testing.assert_array_equal(g, (out != 0) * 2.0)


# --- batch normalization --------------------------------------------------------------------------
def test_batch_norm_variables_and_collections():
    x = tf.placeholder(tf.float32, [None, 3])
    tf.layers.batch_normalization(x, training=True)
    assert names(tf.global_variables()) == ["batch_normalization/gamma:0", "batch_normalization/beta:0",
                                            "batch_normalization/moving_mean:0",
                                            "batch_normalization/moving_variance:0"]
    assert names(tf.trainable_variables()) == ["batch_normalization/gamma:0", "batch_normalization/beta:0"]
    assert [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1"]
    tf.layers.batch_normalization(x, training=False)
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2  # inference adds no updates


@pytest.mark.parametrize("shape,fused", [([6, 3], None), ([4, 3, 3, 2], None), ([4, 3, 3, 2], False)])
def test_batch_norm_training_inference_and_moving_averages(shape, fused):
    momentum, epsilon = 0.9, 1e-3
    x = tf.placeholder(tf.float32, [None] + shape[1:])
    training = tf.placeholder(tf.bool, [])
    y = tf.layers.batch_normalization(x, momentum=momentum, epsilon=epsilon, training=training, fused=fused,
                                      gamma_initializer=tf.constant_initializer(1.5),
                                      beta_initializer=tf.constant_initializer(0.25))
    is_fused = y.op.type != "AddV2"
    assert is_fused == (len(shape) == 4 and fused is None)
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(updates):
        train_out = tf.identity(y)
    data = (RNG.randn(*shape) * 2 + 1).astype(np.float32)
    axes = tuple(range(len(shape) - 1))
    n = data.size // shape[-1]
    mean, variance = data.mean(axis=axes), data.var(axis=axes)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(train_out, {x: data, training: True})
        moving_mean, moving_variance = sess.run(tf.global_variables()[2:])
        inference = sess.run(y, {x: data, training: False})
    np.testing.assert_allclose(out, 1.5 * (data - mean) / np.sqrt(variance + epsilon) + 0.25, rtol=1e-4, atol=1e-4)
    # moving = moving - (moving - batch) * (1 - momentum); the fused kernel averages the unbiased variance
    averaged_variance = variance * n / (n - 1) if is_fused else variance
    np.testing.assert_allclose(moving_mean, mean * (1 - momentum), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(moving_variance, 1 - (1 - averaged_variance) * (1 - momentum), rtol=1e-5)
    expected = 1.5 * (data - moving_mean) / np.sqrt(moving_variance + epsilon) + 0.25
    np.testing.assert_allclose(inference, expected, rtol=1e-4, atol=1e-4)


def test_batch_norm_gradient_matches_numerical():
    x = tf.placeholder(tf.float64, [None, 2])
    y = tf.layers.batch_normalization(x, training=True)
    weights = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 1.0], [-1.0, 0.5]])
    loss = tf.reduce_sum(tf.square(y) * weights)
    grad = tf.gradients(loss, x)[0]
    data = RNG.randn(4, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        analytic = sess.run(grad, {x: data})
        numeric = np.zeros_like(data)
        for index in np.ndindex(*data.shape):
            step = np.zeros_like(data)
            step[index] = 1e-6
            numeric[index] = (sess.run(loss, {x: data + step}) - sess.run(loss, {x: data - step})) / 2e-6
    np.testing.assert_allclose(analytic, numeric, rtol=1e-4, atol=1e-5)
