"""runtime/fusion.py on graphs whose batch dimension is unknown (placeholders [None, ...], tf.data's batch()):
the chains fuse as with a known batch (the fused op types in RunMetadata), with the bits of the known-batch graph
and of the separate ops, and a run-time shape the fused kernel cannot take runs the separate ops' kernels.

Oracles: the same model with a known batch, the same graph with fusion switched off (every op on its own), and
NumPy in float64 for the values themselves."""

from __future__ import annotations

import numpy as np
import pytest

import webflow
import webflow.compat.v1 as tf
from tests import fusion_helpers
from tests.fusion_helpers import bits as _bits
from tests.fusion_helpers import traced as _traced
from webflow.runtime import fusion

CHANNELS = 32
backend = fusion_helpers.backend   # the fixture: the direct C convolution's epilogue, and NumPy's in-place one


def _train_step(batch: int | None, images: np.ndarray, labels: np.ndarray) -> tuple:
    """One SGD step of a conv + dense model (as the Deep MNIST CNN, smaller) on placeholders [batch, ...]:
    (the loss and gradients of the step, {node: op type} that ran)."""
    rng = np.random.default_rng(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [batch, 8, 8, 3])
        y = tf.placeholder(tf.float32, [batch, 10])
        w1 = tf.Variable(rng.normal(size=(3, 3, 3, CHANNELS)).astype(np.float32))
        b1 = tf.Variable(rng.normal(size=CHANNELS).astype(np.float32))
        w2 = tf.Variable(rng.normal(size=(4 * 4 * CHANNELS, 10)).astype(np.float32) / 20)
        b2 = tf.Variable(rng.normal(size=10).astype(np.float32))
        hidden = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
        pooled = tf.nn.max_pool(hidden, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        logits = tf.matmul(tf.reshape(pooled, [-1, 4 * 4 * CHANNELS]), w2) + b2
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        gradients = tf.gradients(loss, [w1, b1, w2, b2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values, ran = _traced(sess, [loss, logits] + gradients, {x: images, y: labels})
    return values, ran


def _batch(count: int) -> tuple:
    rng = np.random.default_rng(count)
    images = rng.normal(size=(count, 8, 8, 3)).astype(np.float32)
    return images, np.eye(10, dtype=np.float32)[rng.integers(0, 10, count)]


def test_an_unknown_batch_fuses_as_a_known_one_with_the_same_bits(backend: str) -> None:
    images, labels = _batch(6)
    known, ran_known = _train_step(6, images, labels)
    unknown, ran_unknown = _train_step(None, images, labels)
    fused_types = {"_FusedConv2D", "_FusedMatMul"}
    assert fused_types <= set(ran_unknown.values()) and fused_types <= set(ran_known.values())
    assert "Relu" not in ran_unknown.values()  # the conv's Relu is part of the fused step
    assert "Conv2D" not in ran_unknown.values()
    # the bias gradients' Sums have an unknown static size when the batch is unknown, so their kernel is chosen
    # without the size (C's column sums, not NumPy's below 64k elements): other bits, with fusion
    # or without (the next test compares the fused and separate runs of the unknown-batch graph bit for bit)
    for index, (a, b) in enumerate(zip(unknown, known)):
        if index == 3 and backend == "auto":
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        else:
            np.testing.assert_array_equal(_bits(np.asarray(a)), _bits(np.asarray(b)))


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # the NaN, in NumPy's matmul
def test_an_unknown_batch_gives_the_separate_ops_bits(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    images, labels = _batch(5)
    images[1, 3, 4, 2] = np.nan  # NaN through the fused bias + Relu as through the separate ops
    fused, ran = _train_step(None, images, labels)
    monkeypatch.setattr(fusion, "ENABLED", False)
    separate, ran_separate = _train_step(None, images, labels)
    assert "_FusedConv2D" in ran.values() and "_FusedConv2D" not in ran_separate.values()
    for a, b in zip(fused, separate):
        np.testing.assert_array_equal(_bits(np.asarray(a)), _bits(np.asarray(b)))


def test_the_shape_a_gradient_reads_comes_from_the_fused_output() -> None:
    # the bias add's gradient reads Shape(conv output), which no longer exists on its own: it has the Relu's shape
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None, None, 3])
        conv = tf.nn.conv2d(x, tf.ones([3, 3, 3, 4]), [1, 1, 1, 1], "VALID")
        out = tf.nn.relu(conv + tf.constant([1.0, -1.0, 2.0, -2.0]))
        shape = tf.shape(conv)
        with tf.Session() as sess:
            for size in [(2, 5, 6, 3), (1, 3, 3, 3), (0, 4, 4, 3)]:
                (value, shape_value), ran = _traced(sess, [out, shape], {x: np.ones(size, np.float32)})
                assert ran[out.op.name] == "_FusedConv2D" and conv.op.name not in ran
                assert list(shape_value) == [size[0], size[1] - 2, size[2] - 2, 4] == list(value.shape)
                expected = np.maximum(27.0 + np.array([1, -1, 2, -2], np.float32), 0) * np.ones(value.shape, np.float32)
                np.testing.assert_array_equal(value, expected)


def test_a_shape_read_before_the_chain_ends_keeps_it_apart() -> None:
    # Shape(conv) feeds the bias itself: it must run before the fused step could, so nothing fuses
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 4, 4, 2])
        conv = tf.nn.conv2d(x, tf.ones([1, 1, 2, 3]), [1, 1, 1, 1], "SAME")
        bias = tf.cast(tf.shape(conv)[:1], tf.float32) * tf.ones([3])  # [3]: the batch size, three times
        out = tf.nn.relu(conv + bias)
        with tf.Session() as sess:
            value, ran = _traced(sess, out, {x: np.ones((2, 4, 4, 2), np.float32)})
    assert ran[conv.op.name] == "Conv2D" and ran[out.op.name] == "Relu"
    np.testing.assert_array_equal(value, np.full((2, 4, 4, 3), 4.0, np.float32))


def _pool_bias_gradient(batch: int | None, images: np.ndarray) -> tuple:
    """dx of relu(x) -> max_pool and its sum over all but the channels (a conv layer's bias gradient, here with
    constant axes)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [batch, 16, 16, CHANNELS])
        hidden = tf.nn.relu(x)  # its gradient: ReluGrad(MaxPoolGrad(..), features = hidden)
        pooled = tf.nn.max_pool(hidden, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (dx,) = tf.gradients(pooled, [x], grad_ys=tf.ones_like(pooled) * 0.5 + tf.nn.relu(pooled))
        bias_gradient = tf.reduce_sum(dx, [0, 1, 2])
        with tf.Session() as sess:
            return _traced(sess, [dx, bias_gradient], {x: images})


@pytest.mark.parametrize("count", [8, 1, 0])  # 0 images: the fused kernel leaves them to the separate ops
def test_the_bias_gradient_sum_joins_with_an_unknown_batch(count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    images = np.random.default_rng(count).normal(size=(count, 16, 16, CHANNELS)).astype(np.float32)
    (dx, summed), ran = _pool_bias_gradient(None, images)
    assert "_FusedMaxPoolGrad" in ran.values()
    assert "Sum" not in ran.values()  # joined the fused step (for 0 images too: the fallback is inside it)
    monkeypatch.setattr(fusion, "ENABLED", False)
    (dx_separate, summed_separate), _ = _pool_bias_gradient(None, images)
    np.testing.assert_array_equal(_bits(dx), _bits(dx_separate))
    np.testing.assert_array_equal(_bits(summed), _bits(summed_separate))
    np.testing.assert_allclose(summed, dx.astype(np.float64).sum(axis=(0, 1, 2)), rtol=1e-5, atol=1e-5)
    assert summed.shape == (CHANNELS,) and dx.shape == images.shape


def _sums_at_run_time(axes_values: list, count: int) -> list:
    """Sum(dx, axes fed at run time) of relu(x) -> max_pool's dx: [(value, {node: op type})] per axes fed."""
    images = np.random.default_rng(count).normal(size=(count, 8, 8, CHANNELS)).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 8, 8, CHANNELS])
        axes = tf.placeholder(tf.int32, [None])
        pooled = tf.nn.max_pool(tf.nn.relu(x), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        (dx,) = tf.gradients(pooled, [x], grad_ys=tf.nn.relu(pooled) - 0.25)
        summed = tf.reduce_sum(dx, axes)
        with tf.Session() as sess:
            return [_traced(sess, [dx, summed], {x: images, axes: np.array(value, np.int32)})
                    for value in axes_values]


@pytest.mark.parametrize("count", [6, 1, 0])
def test_sums_whose_axes_come_at_run_time_use_the_fused_sums_only_when_they_fit(
        count: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # [0, 1, 2]: the fused step's per-channel sums; [1, 2], [-4, 1, 2], [0, 1, 2, 3]: the Sum's own kernel; twice
    # each (the check is cached per axes); 0 images: the C kernel refuses them, the separate ops run
    axes_values = [[0, 1, 2], [1, 2], [0, 1, 2], [-4, 1, 2], [0, 1, 2, 3], [1, 2], [2, 1, 0]]
    fused = _sums_at_run_time(axes_values, count)
    monkeypatch.setattr(fusion, "ENABLED", False)
    separate = _sums_at_run_time(axes_values, count)
    for axes, ((dx, summed), ran), ((dx_alone, summed_alone), ran_alone) in zip(axes_values, fused, separate):
        assert "_FusedMaxPoolGrad" in ran.values() and "_FusedMaxPoolGrad" not in ran_alone.values()
        np.testing.assert_array_equal(_bits(dx), _bits(dx_alone))
        np.testing.assert_array_equal(_bits(np.asarray(summed)), _bits(np.asarray(summed_alone)))
        np.testing.assert_allclose(summed, dx.astype(np.float64).sum(axis=tuple(axes)), rtol=1e-5, atol=1e-5)


def test_the_fused_sums_are_what_the_sum_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    # the per-channel sums really come from the fused step when the axes fit (not from a second pass)
    webflow.config.set_backend("auto")
    calls = []
    real_kernel = fusion._presummed_kernel

    def counting(bias_sum: object) -> object:
        run = real_kernel(bias_sum)

        def wrapped(gradient: object, axes: object, sums: object) -> object:
            result = run(gradient, axes, sums)
            calls.append(result is sums)
            return result
        return wrapped

    monkeypatch.setattr(fusion, "_presummed_kernel", counting)
    _sums_at_run_time([[0, 1, 2], [1, 2]], 6)
    assert calls == [True, False]


def test_a_backend_change_between_runs_reselects_the_sums_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    # one plan per session, run under "auto" (the fused sums), "numpy" (NumPy's MaxPoolGrad and Sum), "auto" again:
    # each run has the bits of the separate ops under that backend
    images = np.random.default_rng(2).normal(size=(4, 8, 8, CHANNELS)).astype(np.float32)
    results = {}
    for fused in (True, False):
        monkeypatch.setattr(fusion, "ENABLED", fused)
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None, 8, 8, CHANNELS])
            b = tf.Variable(np.linspace(-1, 1, CHANNELS, dtype=np.float32))
            pooled = tf.nn.max_pool(tf.nn.relu(x + b), [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
            gradients = tf.gradients(pooled, [x, b], grad_ys=tf.nn.relu(pooled) - 0.5)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                try:
                    for run, backend in enumerate(("auto", "numpy", "auto")):
                        webflow.config.set_backend(backend)
                        results[fused, run] = sess.run(gradients, {x: images})
                finally:
                    webflow.config.set_backend("auto")
    for run in range(3):
        for a, b in zip(results[True, run], results[False, run]):
            np.testing.assert_array_equal(_bits(a), _bits(b))
    np.testing.assert_allclose(results[True, 1][1], results[True, 0][0].astype(np.float64).sum(axis=(0, 1, 2)),
                               rtol=1e-5, atol=1e-5)
