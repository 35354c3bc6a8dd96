"""l2_loss.c, the one-pass float32 L2Loss: against float64 NumPy over sizes around its blocks and vectors, and
tf.nn.l2_loss running it from MIN_ELEMENTS float32 elements (NumPy's kernel below, and for float64)."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library

import webflow as wf
from webflow.backends import selection
from webflow.backends.c import l2_loss as c_l2_loss
from webflow.backends.c import library as c
from webflow.ops import nn_loss_ops

require_c_library()

RNG = np.random.default_rng(13)


def oracle(x: np.ndarray) -> float:
    return float(np.sum(x.astype(np.float64) ** 2) / 2)


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 4095, 4096, 4097, 100_003, 2_000_000])
def test_matches_float64(n):
    x = (RNG.standard_normal(n) * 3).astype(np.float32)
    got = c.function("wf_l2_loss_f32")(c.address(x) if n else 0, n)
    # float32 partial sums: a few ulps of the result (a lost or doubled element would be off by ~1e-3 and more);
    # the ASan build's 256-bit vectors add in another order than the avx512 build
    assert got == pytest.approx(oracle(x), rel=1e-6, abs=1e-30)


def test_tf_l2_loss_runs_it_from_min_elements():
    x = RNG.standard_normal((200, c_l2_loss.MIN_ELEMENTS // 200 + 1)).astype(np.float32)
    got = wf.nn.l2_loss(wf.constant(x)).numpy()
    assert got.dtype == np.float32 and got.shape == ()
    if selection.automatic():
        assert got == np.float32(c.function("wf_l2_loss_f32")(c.address(x), x.size))
        small = x[:2]
        assert wf.nn.l2_loss(wf.constant(small)).numpy() == nn_loss_ops.l2_loss_kernel(small)
    assert got == pytest.approx(oracle(x), rel=1e-6)
    wide = wf.nn.l2_loss(wf.constant(x.astype(np.float64))).numpy()
    assert wide == pytest.approx(oracle(x), rel=1e-12)
    transposed = wf.nn.l2_loss(wf.transpose(wf.constant(x))).numpy()  # a strided view: copied, same sum
    assert transposed == pytest.approx(oracle(x), rel=2e-7)
