"""tf.gradients and GradientTape against hand-derived derivatives."""

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf


def test_gradients_unconnected_grad_ys_and_stop_gradients():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [3], name="x")
    unrelated = tf.placeholder(tf.float32, [3], name="unrelated")
    y = x * x  # dy/dx = 2x
    z = tf.reduce_sum(y * x)  # dz/dx = 3x^2
    grads = tf.gradients(z, [x, unrelated])
    assert grads[1] is None and grads[0].name.startswith("gradients/")
    weighted = tf.gradients(y, x, grad_ys=tf.constant([1.0, 2.0, 3.0]))[0]
    stopped = tf.gradients(tf.reduce_sum(tf.stop_gradient(y) * x), x)[0]
    blocked = tf.gradients(z, x, stop_gradients=[y])[0]
    with tf.Session() as sess:
        values = sess.run([grads[0], weighted, stopped, blocked], {x: [1.0, 2.0, 3.0]})
    np.testing.assert_allclose(values[0], [3.0, 12.0, 27.0])
    np.testing.assert_allclose(values[1], [2.0, 8.0, 18.0])
    np.testing.assert_allclose(values[2], [1.0, 4.0, 9.0])   # only the explicit x factor
    np.testing.assert_allclose(values[3], [1.0, 4.0, 9.0])   # y treated as a constant
    with pytest.raises(TypeError):
        tf.gradients(tf.cast(x, tf.int32), x)


def test_gradient_of_variable_through_read():
    tf.disable_v2_behavior()
    w = tf.Variable([[1.0, 2.0]], name="w")
    loss = tf.reduce_sum(tf.matmul(w, tf.constant([[3.0], [4.0]])))
    (grad,) = tf.gradients(loss, [w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(grad), [[3.0, 4.0]])


def test_tape_basics_persistent_and_unconnected():
    x = wf.constant(3.0)
    unrelated = wf.constant(1.0)
    with wf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * x
    assert tape.gradient(z, x).numpy() == 27.0
    assert tape.gradient(y, x).numpy() == 6.0
    assert tape.gradient(z, unrelated) is None
    assert tape.gradient(z, unrelated, unconnected_gradients=wf.UnconnectedGradients.ZERO).numpy() == 0.0
    with wf.GradientTape() as once:
        once.watch(x)
        y = x * 2.0
    once.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        once.gradient(y, x)


def test_nested_tapes_give_second_derivatives():
    x = wf.constant([1.0, 2.0])
    with wf.GradientTape() as outer:
        outer.watch(x)
        with wf.GradientTape() as inner:
            inner.watch(x)
            y = wf.reduce_sum(x * x * x)
        first = inner.gradient(y, x)  # 3x^2
    second = outer.gradient(first, x)  # 6x
    np.testing.assert_allclose(first.numpy(), [3.0, 12.0])
    np.testing.assert_allclose(second.numpy(), [6.0, 12.0])


def test_tape_watches_trainable_variables_and_output_gradients():
    w = wf.Variable([2.0, 3.0])
    frozen = wf.Variable([1.0, 1.0], trainable=False)
    with wf.GradientTape() as tape:
        y = w * w + frozen
    grad_w, grad_frozen = tape.gradient(y, [w, frozen], output_gradients=wf.constant([1.0, 10.0]))
    np.testing.assert_allclose(grad_w.numpy(), [4.0, 60.0])
    assert grad_frozen is None
    assert tape.watched_variables() == (w,)
    with wf.GradientTape(watch_accessed_variables=False) as quiet:
        y = w * w
    assert quiet.gradient(y, w) is None


def test_tape_gradient_structure_follows_sources():
    a = wf.Variable(1.0)
    b = wf.Variable(2.0)
    with wf.GradientTape() as tape:
        y = a * b
    grads = tape.gradient(y, {"a": a, "b": [b]})
    assert grads["a"].numpy() == 2.0 and grads["b"][0].numpy() == 1.0


def test_eager_tensor_repr_and_numpy():
    t = wf.constant([2.0, 4.0, 6.0])
    assert repr(t) == "<tf.Tensor: shape=(3,), dtype=float32, numpy=array([2., 4., 6.], dtype=float32)>"
    assert str(wf.constant(3.0)) == "tf.Tensor(3.0, shape=(), dtype=float32)"
    assert wf.executing_eagerly()
    array = t.numpy()
    array[0] = 100.0
    assert t.numpy()[0] == 2.0  # numpy() hands out a copy
    with pytest.raises(wf.errors.InvalidArgumentError, match="MatMul"):
        wf.matmul(wf.ones([2, 3]), wf.ones([4, 5]))


def test_ops_without_gradient_raise_lookup_error_and_non_differentiable_ones_give_none():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [3, 3])
    with pytest.raises(LookupError, match="No gradient defined for operation 'TruncateMod'"):
        tf.gradients(tf.reduce_sum(tf.truncatemod(x, 2.0)), x)  # TF registers no gradient for TruncateMod either
    assert tf.gradients(tf.reduce_sum(tf.floor(x)), x) == [None]  # TF: Floor has no gradient
