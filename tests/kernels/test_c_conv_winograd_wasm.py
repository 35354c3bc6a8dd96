"""conv_winograd.c inside the WebAssembly side module (Node's V8, 4-float vectors): forward with bias + relu and
the filter gradient, against the float64 NumPy oracles of test_c_conv_winograd.py. Skipped without `node` or
without clang + wasm-ld (test_c_wasm_families.py's fixture)."""

from __future__ import annotations

import numpy as np
import pytest
from test_c_conv_winograd import oracle_conv, oracle_filter_grad, relative_error
from test_c_wasm_families import buffer, run, sizes, wasm_path  # noqa: F401  (wasm_path: the module fixture)

from webflow.backends.c.conv_shape import _FIELDS, conv2d_shape

RNG = np.random.default_rng(31)
WORK = 300_000  # floats: more than either kernel asks for these shapes with 4-float vectors


@pytest.mark.parametrize("x_shape,side,out_channels,padding", [
    ((2, 9, 9, 16), 3, 20, "SAME"),      # F(4x4, 3x3), partial tiles, 20 outputs: 5 vectors
    ((1, 14, 14, 17), 5, 16, "SAME"),    # F(2x2, 5x5), odd input channels
    ((2, 13, 13, 16), 3, 16, "VALID"),
])
def test_winograd_forward_and_filter_gradient_in_wasm(wasm_path, tmp_path, x_shape, side,  # noqa: F811
                                                      out_channels, padding):
    s = conv2d_shape(x_shape, (side, side), out_channels, padding=padding)
    geometry = sizes([getattr(s, name) for name in _FIELDS])
    x = RNG.standard_normal(x_shape).astype(np.float32)
    f = (RNG.standard_normal((side, side, x_shape[3], out_channels)) / side).astype(np.float32)
    bias = RNG.standard_normal(out_channels).astype(np.float32)
    out_shape = (s.batch, s.out_height, s.out_width, out_channels)
    dy = RNG.standard_normal(out_shape).astype(np.float32)
    buffers = [geometry, x, f, bias, np.full(out_shape, np.nan, np.float32), np.zeros(40_000, np.float32),
               np.zeros(WORK, np.float32), dy, np.zeros(80_000, np.float32), np.full(f.shape, np.nan, np.float32)]
    calls = [["wf_conv2d_winograd_f32", buffer(0), buffer(1), buffer(2), buffer(3), 1, 0, buffer(4), 0, buffer(5),
              buffer(6), WORK, 1],
             ["wf_conv2d_winograd_filter_grad_f32", buffer(0), buffer(1), buffer(7), 0, 0, 0, 0, 0, buffer(8), 1,
              buffer(9), buffer(6), WORK, 1]]
    results, outputs = run(wasm_path, tmp_path, buffers, calls)
    assert results == [0, 0]
    want = np.maximum(oracle_conv(x, f, s) + bias, 0)
    assert relative_error(outputs[4], want) < 2e-6 * side * side
    assert relative_error(outputs[9], oracle_filter_grad(x, dy, s, side)) < 2e-6 * side * side
