"""Gradient clipping and weight regularizers against NumPy; clip_by_global_norm's None/IndexedSlices handling."""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import run_webflow

A = np.array([[3.0, -4.0], [1.0, 2.0]], np.float32)
B = np.array([12.0, 0.5, -2.0], np.float32)


def _global_norm(arrays: list) -> float:
    return float(np.sqrt(sum(np.sum(np.square(a.astype(np.float64))) for a in arrays)))


@pytest.mark.parametrize("clip_norm", [1.0, 5.0, 100.0])
def test_clip_by_global_norm(clip_norm: float) -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    rows = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    clipped, norm = tf.clip_by_global_norm([tf.constant(A), None, tf.constant(B), rows], clip_norm)
    assert clipped[1] is None and isinstance(clipped[3], tf.IndexedSlices)
    # TensorFlow 2.21's names: "%s_%d" % (the whole scope string, i), made inside that scope
    assert [t.op.name for t in (clipped[0], clipped[2])] == ["clip_by_global_norm/clip_by_global_norm/_0",
                                                             "clip_by_global_norm/clip_by_global_norm/_2"]
    assert norm.op.name == "global_norm/global_norm"
    with tf.Session() as sess:
        a, b, r, n = sess.run([clipped[0], clipped[2], clipped[3].values, norm])
    expected_norm = _global_norm([A, B, np.array([1.0, 2.0])])
    scale = clip_norm / max(expected_norm, clip_norm)
    np.testing.assert_allclose(n, expected_norm, rtol=1e-6)
    np.testing.assert_allclose(a, A * scale, rtol=1e-6)
    np.testing.assert_allclose(b, B * scale, rtol=1e-6)
    np.testing.assert_allclose(r, [[1.0 * scale, 2.0 * scale]], rtol=1e-6)


def test_clip_by_global_norm_inf_gives_nan_and_checks_list() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    clipped, _ = tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 1.0)
    with tf.Session() as sess:
        assert np.all(np.isnan(sess.run(clipped[0])))
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        tf.clip_by_global_norm(tf.constant([1.0]), 1.0)


def test_clip_by_norm_and_value_eager() -> None:
    import webflow as wf

    np.testing.assert_allclose(wf.clip_by_norm(wf.constant(A), 2.0).numpy(), A * 2.0 / np.linalg.norm(A), rtol=1e-6)
    np.testing.assert_allclose(wf.clip_by_norm(wf.constant(A), 100.0).numpy(), A, rtol=1e-6)
    per_row = A * np.minimum(1.0, 2.0 / np.linalg.norm(A, axis=1, keepdims=True))
    np.testing.assert_allclose(wf.clip_by_norm(wf.constant(A), 2.0, axes=[1]).numpy(), per_row, rtol=1e-6)
    np.testing.assert_allclose(wf.clip_by_value(wf.constant(B), -1.0, 1.0).numpy(), np.clip(B, -1, 1))
    np.testing.assert_allclose(wf.global_norm([wf.constant(A), wf.constant(B)]).numpy(), _global_norm([A, B]),
                               rtol=1e-6)


def test_clipped_gradients_train_step() -> None:
    """compute_gradients -> clip_by_global_norm -> apply_gradients, against NumPy."""
    result = run_webflow("""
w = tf.Variable([3.0, 4.0], name="w")
opt = tf.train.GradientDescentOptimizer(0.5)
grads, variables = zip(*opt.compute_gradients(tf.reduce_sum(w * w)))
clipped, norm = tf.clip_by_global_norm(grads, 1.0)
train = opt.apply_gradients(zip(clipped, variables))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    sess.run(train)
    result = {"w": sess.run(w)}
""")
    grad = np.array([6.0, 8.0])
    np.testing.assert_allclose(result["w"], [3.0, 4.0] - 0.5 * grad / np.linalg.norm(grad), rtol=1e-6)


def test_l2_loss() -> None:
    import webflow as wf

    np.testing.assert_allclose(wf.nn.l2_loss(wf.constant(A)).numpy(), np.sum(A ** 2) / 2, rtol=1e-6)


def test_regularizers_and_regularization_loss() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    w = tf.constant(A)
    l1 = tf.contrib.layers.l1_regularizer(0.1)(w)
    l2 = tf.contrib.layers.l2_regularizer(0.01)(w)
    both = tf.contrib.layers.l1_l2_regularizer(0.1, 0.01)(w)
    assert [t.op.name for t in (l1, l2, both)] == ["l1_regularizer", "l2_regularizer", "l1_l2_regularizer"]
    assert tf.contrib.layers.l2_regularizer(0.0)(w) is None
    with pytest.raises(ValueError, match="cannot be an integer"):
        tf.contrib.layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        tf.contrib.layers.l1_regularizer(-0.5)
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, l1)
    tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, l2)
    total = tf.losses.get_regularization_loss()
    assert total.op.name == "total_regularization_loss"
    assert tf.losses.get_regularization_losses() == [l1, l2]
    with tf.Session() as sess:
        got = sess.run([l1, l2, both, total])
    expected_l1, expected_l2 = 0.1 * np.abs(A).sum(), 0.01 * np.sum(A ** 2) / 2
    np.testing.assert_allclose(got, [expected_l1, expected_l2, expected_l1 + expected_l2,
                                     expected_l1 + expected_l2], rtol=1e-6)


def test_no_regularization_loss_is_zero() -> None:
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    with tf.Session() as sess:
        assert sess.run(tf.losses.get_regularization_loss()) == 0.0
