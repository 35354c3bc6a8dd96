"""gemm_strips.c (wf_gemm_strips_f32) against float64 NumPy products, directly and through the MatMul adapter's
policy (backends/c/gemm.py, gemm_strips.py): every transpose, partial last strips (n not a multiple of
the strip), k up to 600 (k blocks: test_c_gemm_strips_k_blocks.py), uneven row tiles, threads."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library
from test_c_gemm_thin import assert_float32_product

from webflow.backends.c import gemm_strips  # noqa: F401  (declares the signatures)
from webflow.backends.c import library as c

require_c_library()

RNG = np.random.default_rng(26)


def strips(a: np.ndarray, b: np.ndarray, transpose_a: bool, transpose_b: bool, threads: int = 1,
           bias: np.ndarray | None = None) -> np.ndarray:
    m, k = (a.shape[1], a.shape[0]) if transpose_a else a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    out = np.full((m, n), np.nan, np.float32)
    work = np.full(threads * c.function("wf_gemm_strips_workspace")(m), np.nan, np.float32)
    c.function("wf_gemm_strips_f32")(m, n, k, c.address(a), a.shape[1], int(transpose_a), c.address(b), b.shape[1],
                                     int(transpose_b), None if bias is None else c.address(bias), c.address(out),
                                     c.address(work), threads)
    return out


def operands(m: int, n: int, k: int, transpose_a: bool, transpose_b: bool) -> tuple:
    a = RNG.standard_normal((k, m) if transpose_a else (m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k) if transpose_b else (k, n)).astype(np.float32)
    return a, b


# m: one row, a tile and one more, uneven tiles; n: below one vector, a partial strip, whole strips, the word LM's
# 800 and 10000 columns; k: one, 255, 256, 257, 600
# ... and the last strip one vector wide or less (n = 32 + 16, 200 = 6 * 32 + 8, 16, 40) with B read in place (up to
# 4 tiles of rows: m <= 56) or copied (m = 57), B transposed in 16 x 16 blocks (k = 300, 520) and a k tail (17, 33)
SHAPES = [(1, 1, 1), (3, 5, 7), (13, 33, 255), (14, 32, 256), (15, 31, 257), (29, 65, 600), (20, 800, 400),
          (400, 200, 40), (40, 10000, 20), (56, 48, 300), (57, 48, 300), (30, 200, 520), (60, 16, 17), (7, 40, 33)]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False), (False, True), (True, True)])
def test_strips_match_the_float64_product(m, n, k, transpose_a, transpose_b):
    a, b = operands(m, n, k, transpose_a, transpose_b)
    got = strips(a, b, transpose_a, transpose_b)
    assert_float32_product(got, a.T if transpose_a else a, b.T if transpose_b else b)


def test_an_empty_sum_is_zero():
    a, b = np.empty((3, 0), np.float32), np.empty((0, 5), np.float32)
    np.testing.assert_array_equal(strips(a, b, False, False), np.zeros((3, 5), np.float32))
    bias = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(strips(a, b, False, False, bias=bias), np.zeros((3, 5), np.float32) + bias)


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("transpose_a, transpose_b", [(False, False), (True, False), (False, True), (True, True)])
def test_the_bias_epilogue_gives_the_bits_of_a_separate_add(m, n, k, transpose_a, transpose_b):
    """The bias added as each finished sum is stored (last block of k; the partial strip when copied out) is the
    float add np.add makes afterwards: bit for bit."""
    a, b = operands(m, n, k, transpose_a, transpose_b)
    bias = RNG.standard_normal(n).astype(np.float32)
    np.testing.assert_array_equal(strips(a, b, transpose_a, transpose_b, bias=bias),
                                  np.add(strips(a, b, transpose_a, transpose_b), bias))


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_same_bits(threads):
    """Every C element is one thread's sum over k in order: any thread count gives the bits of one thread."""
    for transpose_a, transpose_b in [(False, False), (True, False), (False, True), (True, True)]:
        a, b = operands(45, 1000, 300, transpose_a, transpose_b)
        np.testing.assert_array_equal(strips(a, b, transpose_a, transpose_b, threads),
                                      strips(a, b, transpose_a, transpose_b))


# --- the MatMul adapter: the word LM's products (softmax layer, LSTM gates) and their gradients -----------------
@pytest.mark.parametrize("a_shape, b_shape, transpose_a, transpose_b", [
    ((400, 200), (200, 10000), False, False), ((400, 10000), (200, 10000), False, True),
    ((400, 200), (400, 10000), True, False), ((20, 400), (400, 800), False, False),
    ((20, 800), (400, 800), False, True), ((20, 400), (20, 800), True, False)])
def test_matmul_adapter_runs_the_word_lm_products(automatic_backend, a_shape, b_shape, transpose_a, transpose_b):
    from webflow.backends.c.gemm import matmul

    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)
    if not gemm_strips.wide_build():
        pytest.skip("the strips run in the avx512 build only")
    got = matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b)  # no Unsupported: C takes them
    assert_float32_product(got, a.T if transpose_a else a, b.T if transpose_b else b)


def test_matmul_in_a_graph_matches_numpy(automatic_backend):
    """A TF1 MatMul of the softmax layer's shape, with its gradients, through Session.run."""
    import webflow.compat.v1 as tf

    x_value = RNG.standard_normal((400, 200)).astype(np.float32)
    w_value = RNG.standard_normal((200, 1000)).astype(np.float32)
    with tf.Graph().as_default():
        x, w = tf.constant(x_value), tf.constant(w_value)
        y = tf.matmul(x, w)
        dx, dw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        with tf.Session() as sess:
            y_got, dx_got, dw_got = sess.run([y, dx, dw])
    y64 = x_value.astype(np.float64) @ w_value
    np.testing.assert_allclose(y_got, y64, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dx_got, 2 * y64 @ w_value.T, rtol=1e-4, atol=1e-1)
    np.testing.assert_allclose(dw_got, 2 * x_value.T.astype(np.float64) @ y64, rtol=1e-4, atol=1e-1)


def test_fused_matmul_bias_relu_matches_the_unfused_ops_bit_for_bit(automatic_backend, monkeypatch):
    """_FusedMatMul (runtime/fusion.py) on gemm_strips.c with its bias epilogue, forward and gradients, against the
    same graph with fusion off: identical arrays."""
    import webflow.compat.v1 as tf
    from webflow.runtime import fusion

    x_value = RNG.standard_normal((400, 200)).astype(np.float32)
    w_value = RNG.standard_normal((200, 1000)).astype(np.float32)
    b_value = RNG.standard_normal(1000).astype(np.float32)

    def run() -> list:
        with tf.Graph().as_default():
            x = tf.constant(x_value)
            w, b = tf.Variable(w_value), tf.Variable(b_value)
            logits = tf.nn.xw_plus_b(x, w, b)
            hidden = tf.nn.relu(tf.matmul(x, w) + b)
            loss = tf.reduce_sum(logits * logits) + tf.reduce_sum(hidden)
            grads = tf.gradients(loss, [x, w, b])
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                return sess.run([logits, hidden, *grads])

    fused = run()
    monkeypatch.setattr(fusion, "ENABLED", False)
    unfused = run()
    for got, expected in zip(fused, unfused):
        np.testing.assert_array_equal(got, expected)
    assert_float32_product(fused[0] - b_value, x_value, w_value)
