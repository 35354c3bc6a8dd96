"""tf.losses (TF1) against NumPy formulas written here: every loss, weights (scalar, per example, broadcast,
zero), every Reduction, label smoothing, gradients vs central differences, and TF's errors."""

from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(7)
LABELS = RNG.normal(size=(4, 3)).astype(np.float32)
PREDS = RNG.normal(size=(4, 3)).astype(np.float32)
PROBS = RNG.uniform(0.05, 0.95, size=(4, 3)).astype(np.float32)
BINARY = (RNG.uniform(size=(4, 3)) > 0.5).astype(np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[[0, 2, 1, 2]]
CLASS_IDS = np.array([0, 2, 1, 2], np.int32)

# weights and the (4, 3) mask they give once broadcast
WEIGHTS = {
    "scalar": 2.0,
    "per_example": np.array([[1.0], [0.0], [2.0], [0.5]], np.float32),
    "per_element": np.array([[1, 0, 2], [0, 0, 0], [1, 1, 1], [3, 0, 1]], np.float32),
    "per_column": np.array([[0.0, 1.0, 2.0]], np.float32),
    "zeros": 0.0,
}


def _tf():
    import webflow.compat.v1 as tf

    tf.disable_v2_behavior()
    tf.reset_default_graph()
    return tf


def _run(tensors):
    import webflow.compat.v1 as tf

    with tf.Session() as sess:
        return sess.run(tensors)


def _reduce(per_element: np.ndarray, weights, reduction: str) -> np.ndarray:
    """The reductions of compute_weighted_loss, from their definitions."""
    w = np.broadcast_to(np.asarray(weights, np.float64), per_element.shape)
    weighted = per_element.astype(np.float64) * w
    if reduction == "none":
        return weighted
    total = weighted.sum()
    divisor = {"weighted_sum": 1.0, "weighted_mean": w.sum(), "weighted_sum_over_batch_size": per_element.size,
               "weighted_sum_by_nonzero_weights": np.count_nonzero(w)}[reduction]
    return np.float64(0.0) if divisor == 0 else total / divisor


def _huber(x: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(x)
    return np.where(a <= delta, 0.5 * a * a, 0.5 * delta * delta + delta * (a - delta))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z.astype(np.float64)
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


# name -> (build(tf, weights, reduction), per-element NumPy loss, weights key -> broadcast target shape)
ELEMENTWISE = {
    "mean_squared_error": (lambda tf, **kw: tf.losses.mean_squared_error(LABELS, PREDS, **kw),
                           (PREDS.astype(np.float64) - LABELS) ** 2),
    "absolute_difference": (lambda tf, **kw: tf.losses.absolute_difference(LABELS, PREDS, **kw),
                            np.abs(PREDS.astype(np.float64) - LABELS)),
    "huber_loss": (lambda tf, **kw: tf.losses.huber_loss(LABELS, PREDS, delta=0.7, **kw),
                   _huber(PREDS.astype(np.float64) - LABELS, 0.7)),
    "log_loss": (lambda tf, **kw: tf.losses.log_loss(BINARY, PROBS, **kw),
                 -BINARY * np.log(PROBS + 1e-7) - (1 - BINARY) * np.log(1 - PROBS + 1e-7)),
    "hinge_loss": (lambda tf, **kw: tf.losses.hinge_loss(BINARY, PREDS, **kw),
                   np.maximum(0.0, 1 - (2 * BINARY - 1) * PREDS.astype(np.float64))),
    "sigmoid_cross_entropy": (lambda tf, **kw: tf.losses.sigmoid_cross_entropy(BINARY, PREDS, **kw),
                              np.log1p(np.exp(-np.abs(PREDS.astype(np.float64)))) + np.maximum(PREDS, 0)
                              - PREDS * BINARY),
}
REDUCTIONS = ["none", "weighted_sum", "weighted_mean", "weighted_sum_over_batch_size",
              "weighted_sum_by_nonzero_weights"]


@pytest.mark.parametrize("weights_key", list(WEIGHTS))
@pytest.mark.parametrize("loss_name", list(ELEMENTWISE))
def test_elementwise_losses_all_weights_default_reduction(loss_name: str, weights_key: str) -> None:
    tf = _tf()
    build, per_element = ELEMENTWISE[loss_name]
    loss = build(tf, weights=WEIGHTS[weights_key])
    assert loss.shape.as_list() == [] and loss.dtype == tf.float32
    np.testing.assert_allclose(_run(loss), _reduce(per_element, WEIGHTS[weights_key],
                                                   "weighted_sum_by_nonzero_weights"), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("loss_name", ["mean_squared_error", "huber_loss", "sigmoid_cross_entropy"])
def test_every_reduction(loss_name: str, reduction: str) -> None:
    tf = _tf()
    build, per_element = ELEMENTWISE[loss_name]
    for weights in (WEIGHTS["per_example"], WEIGHTS["zeros"]):
        got = _run(build(tf, weights=weights, reduction=reduction))
        np.testing.assert_allclose(got, _reduce(per_element, weights, reduction), rtol=2e-5, atol=1e-6)


def test_reduction_names_and_validation() -> None:
    tf = _tf()
    r = tf.losses.Reduction
    assert r.SUM_OVER_NONZERO_WEIGHTS == r.SUM_BY_NONZERO_WEIGHTS == "weighted_sum_by_nonzero_weights"
    assert set(r.all()) == set(REDUCTIONS)
    with pytest.raises(ValueError, match="Invalid Reduction Key bad"):
        tf.losses.mean_squared_error(LABELS, PREDS, reduction="bad")


def test_cosine_distance_axis_and_dim() -> None:
    tf = _tf()
    unit = lambda a: a / np.linalg.norm(a, axis=1, keepdims=True)  # noqa: E731
    labels, preds = unit(LABELS), unit(PREDS)
    per_example = 1 - np.sum(labels.astype(np.float64) * preds, axis=1, keepdims=True)   # (4, 1)
    weights = np.array([[1.0], [0.0], [2.0], [1.0]], np.float32)
    got = _run([tf.losses.cosine_distance(labels, preds, axis=1),
                tf.losses.cosine_distance(labels, preds, dim=1, weights=weights, reduction="none")])
    np.testing.assert_allclose(got[0], per_example.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[1], per_example * weights, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="You must specify argument `axis`"):
        tf.losses.cosine_distance(labels, preds)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_softmax_cross_entropy_with_smoothing(smoothing: float) -> None:
    tf = _tf()
    smoothed = ONE_HOT * (1 - smoothing) + smoothing / 3
    per_example = -np.sum(smoothed * _log_softmax(PREDS), axis=1)
    weights = np.array([1.0, 0.0, 2.0, 1.0], np.float32)
    got = _run([tf.losses.softmax_cross_entropy(ONE_HOT, PREDS, label_smoothing=smoothing),
                tf.losses.softmax_cross_entropy(ONE_HOT, PREDS, weights=weights, label_smoothing=smoothing)])
    np.testing.assert_allclose(got[0], per_example.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[1], np.sum(per_example * weights) / 3, rtol=1e-5)


def test_sigmoid_cross_entropy_label_smoothing() -> None:
    tf = _tf()
    z = BINARY * 0.7 + 0.5 * 0.3
    x = PREDS.astype(np.float64)
    per_element = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    got = _run(tf.losses.sigmoid_cross_entropy(BINARY, PREDS, label_smoothing=0.3))
    np.testing.assert_allclose(got, per_element.mean(), rtol=1e-5)


def test_sparse_softmax_cross_entropy_squeezes_labels_and_weights() -> None:
    tf = _tf()
    per_example = -_log_softmax(PREDS)[np.arange(4), CLASS_IDS]
    weights = np.array([[2.0], [0.0], [1.0], [1.0]], np.float32)   # [batch, 1]: squeezed to [batch]
    got = _run([tf.losses.sparse_softmax_cross_entropy(CLASS_IDS, PREDS),
                tf.losses.sparse_softmax_cross_entropy(CLASS_IDS[:, None], PREDS, weights=weights)])
    np.testing.assert_allclose(got[0], per_example.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[1], np.sum(per_example * weights[:, 0]) / 3, rtol=1e-5)


def test_sparse_softmax_cross_entropy_one_hot_labels_hint() -> None:
    tf = _tf()
    for call in (lambda: tf.losses.sparse_softmax_cross_entropy(ONE_HOT, PREDS),
                 lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ONE_HOT, logits=PREDS)):
        with pytest.raises(ValueError, match=r"must equal `logits.shape.rank - 1`.*look one-hot.*"
                                             r"softmax_cross_entropy_with_logits.*argmax"):
            call()
    # a plain rank mismatch (not one-hot-looking) keeps TF's message without the hint
    with pytest.raises(ValueError) as info:
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.zeros((4, 3, 2), np.int32), logits=PREDS)
    assert "one-hot" not in str(info.value)


def test_names_collection_and_total_loss() -> None:
    tf = _tf()
    mse = tf.losses.mean_squared_error(LABELS, PREDS)
    xent = tf.losses.softmax_cross_entropy(ONE_HOT, PREDS, weights=0.5)
    hidden = tf.losses.absolute_difference(LABELS, PREDS, loss_collection=None)
    tf.losses.add_loss(tf.constant(1.5, name="extra"))
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", initializer=tf.constant([1.0, -2.0]),
                            regularizer=lambda v: 0.1 * tf.reduce_sum(tf.square(v)))
    assert mse.name == "mean_squared_error/value:0" and xent.name == "softmax_cross_entropy_loss/value:0"
    assert [t.name for t in tf.losses.get_losses()] == [mse.name, xent.name, "extra:0"]
    assert hidden not in tf.get_collection(tf.GraphKeys.LOSSES)
    total, no_reg = tf.losses.get_total_loss(), tf.losses.get_total_loss(add_regularization_losses=False, name="t2")
    assert total.name == "total_loss:0" and total.op.type == "AddN"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        m, x, t, n = sess.run([mse, xent, total, no_reg])
    np.testing.assert_allclose(t, m + x + 1.5 + 0.1 * 5.0, rtol=1e-6)
    np.testing.assert_allclose(n, m + x + 1.5, rtol=1e-6)
    assert w is not None


def test_weights_that_do_not_broadcast_raise_value_error() -> None:
    tf = _tf()
    for weights, match in ((np.ones(4, np.float32), "values.rank=2. weights.rank=1"),
                           (np.ones((1, 4), np.float32), r"Mismatch at dim 1. values.shape=\[4 3\], "
                                                         r"weights.shape=\[1 4\]"),
                           (np.ones((4, 3, 1), np.float32), "values.rank=2. weights.rank=3")):
        with pytest.raises(ValueError, match="weights can not be broadcast to values. " + match):
            tf.losses.mean_squared_error(LABELS, PREDS, weights=weights)
    with pytest.raises(ValueError, match="are incompatible"):
        tf.losses.mean_squared_error(LABELS[:, :2], PREDS)
    with pytest.raises(ValueError, match="Argument `labels` must not be None"):
        tf.losses.mean_squared_error(None, PREDS)


def test_placeholder_batch_and_dynamic_weights() -> None:
    tf = _tf()
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.placeholder(tf.float32, [None, 1])
    loss = tf.losses.mean_squared_error(LABELS, x, weights=w)
    per_element = (PREDS.astype(np.float64) - LABELS) ** 2
    weights = WEIGHTS["per_example"]
    with tf.Session() as sess:
        got = sess.run(loss, {x: PREDS, w: weights})
    np.testing.assert_allclose(got, _reduce(per_element, weights, "weighted_sum_by_nonzero_weights"), rtol=1e-5)


@pytest.mark.parametrize("loss_name", ["mean_squared_error", "huber_loss", "log_loss", "sigmoid_cross_entropy"])
def test_gradient_matches_central_differences(loss_name: str) -> None:
    """d loss / d predictions (float64) vs central differences of the NumPy formula."""
    tf = _tf()
    weights = WEIGHTS["per_element"].astype(np.float64)
    labels, start = {"mean_squared_error": (LABELS, PREDS), "huber_loss": (LABELS, PREDS),
                     "log_loss": (BINARY, PROBS), "sigmoid_cross_entropy": (BINARY, PREDS)}[loss_name]
    x = tf.placeholder(tf.float32, [4, 3])
    build = {"mean_squared_error": lambda: tf.losses.mean_squared_error(labels, x, weights=weights),
             "huber_loss": lambda: tf.losses.huber_loss(labels, x, weights=weights, delta=0.7),
             "log_loss": lambda: tf.losses.log_loss(labels, x, weights=weights),
             "sigmoid_cross_entropy": lambda: tf.losses.sigmoid_cross_entropy(labels, x, weights=weights)}
    loss = build[loss_name]()
    (grad,) = tf.gradients(loss, [x])
    with tf.Session() as sess:
        analytic = sess.run(grad, {x: start})

    def numpy_loss(p: np.ndarray) -> float:
        y = labels.astype(np.float64)
        per = {"mean_squared_error": lambda: (p - y) ** 2, "huber_loss": lambda: _huber(p - y, 0.7),
               "log_loss": lambda: -y * np.log(p + 1e-7) - (1 - y) * np.log(1 - p + 1e-7),
               "sigmoid_cross_entropy": lambda: np.maximum(p, 0) - p * y + np.log1p(np.exp(-np.abs(p)))}[loss_name]()
        return float(_reduce(per, weights, "weighted_sum_by_nonzero_weights"))

    numeric = np.zeros_like(start, np.float64)
    eps = 1e-5
    for index in np.ndindex(start.shape):
        up, down = start.astype(np.float64), start.astype(np.float64)
        up[index] += eps
        down[index] -= eps
        numeric[index] = (numpy_loss(up) - numpy_loss(down)) / (2 * eps)
    np.testing.assert_allclose(analytic, numeric, rtol=1e-3, atol=1e-4)


def test_losses_run_eagerly() -> None:
    import webflow.compat.v1 as tf

    loss = tf.losses.mean_squared_error(LABELS, PREDS, weights=WEIGHTS["per_example"])
    expected = _reduce((PREDS.astype(np.float64) - LABELS) ** 2, WEIGHTS["per_example"],
                       "weighted_sum_by_nonzero_weights")
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-5)
    scalar = tf.losses.absolute_difference(LABELS, PREDS)   # scalar weight: TF's eager shortcut to num_elements
    np.testing.assert_allclose(scalar.numpy(), np.abs(PREDS.astype(np.float64) - LABELS).mean(), rtol=1e-5)
