"""gemm_strips.c with a transposed A copied into panels first (wf_gemm_strips_panels_f32): the bits of the product
that reads A in place (wf_gemm_strips_f32), for any shape, k across the 1024-row blocks, a bias, and any thread count;
and the MatMul adapter's A^T.B at 1024^2 (which packs) the same on 1 and 2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library
from test_c_gemm_strips import operands, strips
from test_c_gemm_thin import assert_float32_product

from webflow.backends.c import gemm_strips
from webflow.backends.c import library as c

require_c_library()


def strips_in_panels(a: np.ndarray, b: np.ndarray, transpose_b: bool, threads: int = 1,
                     bias: np.ndarray | None = None) -> np.ndarray:
    """op(A) op(B) with A transposed (a is [k, m]), packed into NaN-filled panels: a float of them the tiles should
    not read (past a tile's rows) would show as NaN."""
    k, m = a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    out = np.full((m, n), np.nan, np.float32)
    work = np.full(threads * c.function("wf_gemm_strips_workspace")(m), np.nan, np.float32)
    panels = np.full(c.function("wf_gemm_strips_panels_size")(m, k), np.nan, np.float32)
    c.function("wf_gemm_strips_panels_f32")(m, n, k, c.address(a), a.shape[1], 1, c.address(b), b.shape[1],
                                            int(transpose_b), None if bias is None else c.address(bias),
                                            c.address(out), c.address(work), c.address(panels), threads)
    return out


# m: one row, under a tile, uneven tiles (a last tile too short for whole vectors), 1024; n: a partial strip, a
# narrow last strip (48, 200), whole strips; k: one, across blocks of 1024 rows (1025, 2100)
SHAPES = [(1, 1, 1), (13, 33, 255), (15, 31, 257), (29, 65, 600), (70, 33, 1025), (3, 200, 2100), (57, 48, 300),
          (30, 200, 520), (200, 64, 40), (1024, 96, 70)]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("threads", [1, 2])
def test_panels_give_the_bits_of_a_read_in_place(m, n, k, threads):
    a, b = operands(m, n, k, True, False)
    got = strips_in_panels(a, b, False, threads)
    np.testing.assert_array_equal(got, strips(a, b, True, False))
    assert_float32_product(got, a.T, b)


def test_a_bias_and_a_wider_leading_dimension():
    """A^T a view of a wider array (rows lda > m floats apart) and the bias epilogue."""
    m, n, k = 45, 200, 300
    wide, b = operands(m + 19, n, k, True, False)  # A^T is wide[:, :m], its rows m + 19 floats apart
    bias = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    k_rows, lda = wide.shape
    out = np.full((m, n), np.nan, np.float32)
    work = np.full(c.function("wf_gemm_strips_workspace")(m), np.nan, np.float32)
    panels = np.full(c.function("wf_gemm_strips_panels_size")(m, k_rows), np.nan, np.float32)
    c.function("wf_gemm_strips_panels_f32")(m, n, k, c.address(wide), lda, 1, c.address(b), n, 0, c.address(bias),
                                            c.address(out), c.address(work), c.address(panels), 1)
    np.testing.assert_array_equal(out, strips(np.ascontiguousarray(wide[:, :m]), b, True, False, bias=bias))


def test_without_panels_a_transposed_a_is_read_in_place():
    a, b = operands(29, 65, 600, True, False)
    m, n, k = 29, 65, 600
    out = np.full((m, n), np.nan, np.float32)
    work = np.full(c.function("wf_gemm_strips_workspace")(m), np.nan, np.float32)
    c.function("wf_gemm_strips_panels_f32")(m, n, k, c.address(a), m, 1, c.address(b), n, 0, None, c.address(out),
                                            c.address(work), None, 1)
    np.testing.assert_array_equal(out, strips(a, b, True, False))


def test_the_adapter_packs_a_transposed_a_with_rows_4_kb_apart():
    assert gemm_strips.packs_a(1024, 1024, 1024, True, 1024) and gemm_strips.packs_a(512, 512, 3000, True, 2048)
    assert not gemm_strips.packs_a(1024, 1024, 1024, False, 1024)  # A read along its rows
    assert not gemm_strips.packs_a(768, 768, 768, True, 768)  # rows 3 KB apart: spread over the caches' sets
    assert not gemm_strips.packs_a(1024, 64, 1024, True, 1024)  # two strips of B: the copy would not pay
    assert not gemm_strips.packs_a(2048, 2048, 2048, True, 2048)  # 8 MB of A per k-block: slower packed


def test_a_transposed_1024_product_has_the_same_bits_on_1_and_2_threads(automatic_backend):
    """The MatMul adapter's A^T.B at 1024^2 (packed, when the strips run it) and the kernel on 1 and 2 threads:
    each C element is one thread's sum over k in order, whichever thread took its strip."""
    from webflow.backends.c import parallel
    from webflow.backends.c.gemm import matmul

    a, b = operands(1024, 1024, 1024, True, False)
    one, two = strips_in_panels(a, b, False, 1), strips_in_panels(a, b, False, 2)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(one, strips(a, b, True, False))
    assert_float32_product(one, a.T, b)
    if not gemm_strips.wide_build():
        pytest.skip("the MatMul adapter runs the strips in the avx512 build only")
    previous = parallel.threads()
    try:
        results = []
        for threads in (1, 2):
            parallel.set_threads(threads)
            results.append(matmul(a, b, transpose_a=True, transpose_b=False))
    finally:
        parallel.set_threads(previous)
    np.testing.assert_array_equal(results[0], one)
    np.testing.assert_array_equal(results[1], one)


@pytest.mark.parametrize("m, n, k", [(70, 130, 300), (1024, 1024, 1024)])
def test_the_adapter_runs_a_product_with_both_transposes(automatic_backend, m, n, k):
    """A^T.B^T: the thin kernels take one transpose at most, the strips any (at 1024^2 with A^T in panels)."""
    from webflow.backends.c.gemm import matmul

    if not gemm_strips.wide_build():
        pytest.skip("the MatMul adapter runs the strips in the avx512 build only")
    a, b = operands(m, n, k, True, True)
    got = matmul(a, b, transpose_a=True, transpose_b=True)  # no Unsupported: C takes it
    np.testing.assert_array_equal(got, strips(a, b, True, True))
    assert_float32_product(got, a.T, b.T)


def test_both_transposes_in_a_graph_with_gradients(automatic_backend):
    """A TF1 MatMul with transpose_a and transpose_b through Session.run; its gradients are such products too."""
    import webflow.compat.v1 as tf

    rng = np.random.default_rng(7)
    x_value = rng.standard_normal((300, 70)).astype(np.float32)
    w_value = rng.standard_normal((130, 300)).astype(np.float32)
    with tf.Graph().as_default():
        x, w = tf.constant(x_value), tf.constant(w_value)
        y = tf.matmul(x, w, transpose_a=True, transpose_b=True)
        dx, dw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        with tf.Session() as sess:
            y_got, dx_got, dw_got = sess.run([y, dx, dw])
    x64, w64 = x_value.astype(np.float64), w_value.astype(np.float64)
    y64 = x64.T @ w64.T
    np.testing.assert_allclose(y_got, y64, rtol=1e-4, atol=1e-3)
    np.testing.assert_allclose(dx_got, (2 * y64 @ w64).T, rtol=1e-4, atol=1e-1)
    np.testing.assert_allclose(dw_got, (2 * x64 @ y64).T, rtol=1e-4, atol=1e-1)
