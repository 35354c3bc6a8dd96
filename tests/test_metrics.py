"""tf.metrics (TF1): streaming accuracy/mean/mse/precision/recall over several update_op runs against
running NumPy computations, weights, the local variables and their reset, and TF's eager error."""

from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(3)
BATCHES = [(RNG.integers(0, 3, size=5), RNG.integers(0, 3, size=5), RNG.uniform(0, 2, size=5).round(1))
           for _ in range(4)]
BATCHES[2][2][:] = 0.0   # a batch whose weights are all zero changes nothing


def _tf():
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.reset_default_graph()
    return tf


def test_accuracy_streams_and_resets() -> None:
    tf = _tf()
    labels = tf.placeholder(tf.int64, [None])
    predictions = tf.placeholder(tf.int64, [None])
    acc, update = tf.metrics.accuracy(labels, predictions)
    assert (acc.name, update.name) == ("accuracy/value:0", "accuracy/update_op:0")
    names = ["accuracy/total:0", "accuracy/count:0"]
    assert [v.name for v in tf.local_variables()] == names
    assert [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)] == names
    assert not tf.trainable_variables() and not tf.global_variables()
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0   # 0 / 0 is 0, not NaN
        correct = seen = 0
        for y, p, _ in BATCHES:
            correct, seen = correct + np.sum(y == p), seen + len(y)
            got_update = sess.run(update, {labels: y, predictions: p})
            np.testing.assert_allclose(got_update, correct / seen, rtol=1e-6)   # update_op returns the new value
            np.testing.assert_allclose(sess.run(acc), correct / seen, rtol=1e-6)
        sess.run(tf.local_variables_initializer())
        assert sess.run(acc) == 0.0
        y, p, _ = BATCHES[0]
        np.testing.assert_allclose(sess.run(update, {labels: y, predictions: p}), np.mean(y == p), rtol=1e-6)


def test_weighted_accuracy_and_mean() -> None:
    tf = _tf()
    labels = tf.placeholder(tf.int32, [None])
    predictions = tf.placeholder(tf.int32, [None])
    weights = tf.placeholder(tf.float32, [None])
    acc, acc_update = tf.metrics.accuracy(labels, predictions, weights=weights)
    values = tf.placeholder(tf.float32, [None])
    mean, mean_update = tf.metrics.mean(values, weights=weights, metrics_collections=["m"],
                                        updates_collections=["u"])
    assert tf.get_collection("m") == [mean] and tf.get_collection("u") == [mean_update]
    assert [v.name for v in tf.local_variables()] == ["accuracy/total:0", "accuracy/count:0", "mean/total:0",
                                                     "mean/count:0"]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        hit_weight = weight_sum = value_sum = 0.0
        for y, p, w in BATCHES:
            v = (y * 1.5 - p).astype(np.float32)
            hit_weight += np.sum(w * (y == p))
            value_sum += np.sum(w * v)
            weight_sum += np.sum(w)
            a = sess.run(acc_update, {labels: y, predictions: p, weights: w})
            m = sess.run(mean_update, {values: v, weights: w})
            np.testing.assert_allclose(a, hit_weight / weight_sum, rtol=1e-5)
            np.testing.assert_allclose(m, value_sum / weight_sum, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(sess.run([acc, mean]), [hit_weight / weight_sum, value_sum / weight_sum],
                                   rtol=1e-5, atol=1e-6)


def test_mean_with_broadcast_weights_and_unweighted_count() -> None:
    tf = _tf()
    values = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    mean_w, update_w = tf.metrics.mean(values, weights=np.array([[1.0], [3.0]], np.float32))
    mean_u, update_u = tf.metrics.mean(values)
    assert update_u.name == "mean_1/update_op:0"
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        for runs in (1, 2):
            got_w, got_u = sess.run(update_w), sess.run(update_u)
            np.testing.assert_allclose(got_w, (6 + 3 * 15) / 12, rtol=1e-6)   # weights broadcast over columns
            np.testing.assert_allclose(got_u, 21 / 6, rtol=1e-6)
            total, count = sess.run(tf.local_variables()[2:])
            assert (total, count) == (21 * runs, 6 * runs)


def test_mean_squared_error_precision_recall() -> None:
    tf = _tf()
    labels = tf.placeholder(tf.int32, [None])
    predictions = tf.placeholder(tf.int32, [None])
    mse, mse_update = tf.metrics.mean_squared_error(labels, predictions)
    prec, prec_update = tf.metrics.precision(labels, predictions)
    rec, rec_update = tf.metrics.recall(labels, predictions)
    assert prec.name == "precision/value:0" and rec_update.name == "recall/update_op:0"
    assert "precision/true_positives/count:0" in [v.name for v in tf.local_variables()]
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run([prec, rec]) == [0.0, 0.0]   # no positives yet: 0, not NaN
        sq = n = tp = fp = fn = 0
        for y, p, _ in BATCHES:
            sq, n = sq + np.sum((y - p) ** 2), n + len(y)
            yb, pb = y != 0, p != 0
            tp, fp, fn = tp + np.sum(yb & pb), fp + np.sum(~yb & pb), fn + np.sum(yb & ~pb)
            feed = {labels: y, predictions: p}
            np.testing.assert_allclose(sess.run(mse_update, feed), sq / n, rtol=1e-6)
            np.testing.assert_allclose(sess.run(prec_update, feed), tp / (tp + fp), rtol=1e-6)
            np.testing.assert_allclose(sess.run(rec_update, feed), tp / (tp + fn), rtol=1e-6)
        np.testing.assert_allclose(sess.run([mse, prec, rec]), [sq / n, tp / (tp + fp), tp / (tp + fn)], rtol=1e-6)


def test_metric_errors() -> None:
    tf = _tf()
    with pytest.raises(ValueError, match="are incompatible"):
        tf.metrics.accuracy(tf.constant([1, 2, 3]), tf.constant([1, 2]))
    with pytest.raises(ValueError, match="weights can not be broadcast to values"):
        tf.metrics.mean(tf.constant([[1.0, 2.0]]), weights=tf.constant([[1.0, 2.0, 3.0]]))
    import webflow.compat.v1 as tf1

    tf1.enable_eager_execution()
    with pytest.raises(RuntimeError, match="tf.metrics.accuracy is not supported when eager execution is enabled"):
        tf1.metrics.accuracy([1], [1])
