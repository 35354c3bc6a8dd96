"""gemm_strips.c with k across its 1024-row blocks of op(B) (STRIPS_K_BLOCK): the partial sums stored to C at the
end of one block and loaded again by the next (or summed in the tail of a partial strip) against float64 NumPy
products, with the bias epilogue on the last block only and any thread count giving one thread's bits."""

from __future__ import annotations

import numpy as np
import pytest
from c_helpers import require_c_library
from test_c_gemm_strips import operands, strips
from test_c_gemm_thin import assert_float32_product

require_c_library()

# k: one row short of a block, a block, one row more, two blocks and a tail; n: a partial strip (33, 200) and a
# narrow last strip (48); m: tiles of rows read B in place (m <= 56) and copied (70)
SHAPES = [(15, 33, 1023), (14, 48, 1024), (70, 33, 1025), (3, 200, 2100), (70, 64, 2049)]
TRANSPOSES = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("transpose_a, transpose_b", TRANSPOSES)
def test_sums_across_k_blocks_match_the_float64_product(m, n, k, transpose_a, transpose_b):
    a, b = operands(m, n, k, transpose_a, transpose_b)
    assert_float32_product(strips(a, b, transpose_a, transpose_b), a.T if transpose_a else a,
                           b.T if transpose_b else b)


@pytest.mark.parametrize("m, n, k", SHAPES)
@pytest.mark.parametrize("transpose_a, transpose_b", TRANSPOSES)
def test_the_bias_is_added_once_after_the_last_block(m, n, k, transpose_a, transpose_b):
    a, b = operands(m, n, k, transpose_a, transpose_b)
    bias = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    np.testing.assert_array_equal(strips(a, b, transpose_a, transpose_b, bias=bias),
                                  strips(a, b, transpose_a, transpose_b) + bias)


@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_bits_of_one_thread_across_blocks(threads):
    a, b = operands(70, 200, 2100, False, True)
    np.testing.assert_array_equal(strips(a, b, False, True, threads=threads), strips(a, b, False, True))
