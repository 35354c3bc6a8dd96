"""gemm_strips.c's packed A^T (wf_gemm_strips_panels_f32) inside the WebAssembly module (Node's V8, 128-bit
vectors: tiles of 4 rows, panels of 4 floats a step): the bits of the same module's product reading A in place,
near the float64 product. Skipped without node or the wasm toolchain (see test_c_wasm_families.py)."""

from __future__ import annotations

import numpy as np
import pytest
from test_c_wasm_families import buffer, run, wasm_path  # noqa: F401  (wasm_path: the module fixture)

RNG = np.random.default_rng(2211)
WORKSPACE_ROWS = 1024  # gemm_strips.c's K_BLOCK: wf_gemm_strips_workspace(m) = (K_BLOCK + m) * strip columns


@pytest.mark.parametrize("m, n, k", [(29, 65, 40), (9, 8, 3), (30, 200, 70)])
def test_panels_in_wasm_give_the_bits_of_a_read_in_place(wasm_path, tmp_path, m, n, k):  # noqa: F811
    a = RNG.standard_normal((k, m)).astype(np.float32)  # A^T: op(A) = a.T
    b = RNG.standard_normal((k, n)).astype(np.float32)
    bias = RNG.standard_normal(n).astype(np.float32)
    columns = 8  # two 128-bit vectors per strip
    work = np.full((WORKSPACE_ROWS + m) * columns, np.nan, np.float32)
    tiles, stride = (m + 3) // 4, 4
    panels = np.full(tiles * stride * k + 1, np.nan, np.float32)  # the panels, then one k-block's state
    outs = [np.full((m, n), np.nan, np.float32) for _ in range(2)]
    buffers = [a, b, bias, work, panels, *outs]
    calls = [["wf_gemm_strips_panels_size", m, k],
             ["wf_gemm_strips_panels_f32", m, n, k, buffer(0), m, 1, buffer(1), n, 0, buffer(2), buffer(5),
              buffer(3), buffer(4), 1],
             ["wf_gemm_strips_f32", m, n, k, buffer(0), m, 1, buffer(1), n, 0, buffer(2), buffer(6), buffer(3), 1]]
    results, arrays = run(wasm_path, tmp_path, buffers, calls)
    assert results[0] == panels.size
    np.testing.assert_array_equal(arrays[5], arrays[6])
    expected = a.T.astype(np.float64) @ b.astype(np.float64) + bias
    np.testing.assert_allclose(arrays[5], expected, rtol=1e-5, atol=1e-5 * np.sqrt(k))
