"""The direct convolution (wasm/conv_direct.c) through webflow's adapters inside Pyodide, where it now applies.

backends/c/conv_direct.py used to keep Pyodide on im2col + GEMM; it now takes the direct kernels there too
(output channels a multiple of the wasm build's 4 lanes), with no NumPy: one thread, one filter-gradient
slice, the input gradient's flipped filter built by array slices. This runs the Conv2D, fused Conv2D + bias +
ReLU, Conv2DBackpropInput and Conv2DBackpropFilter adapters (backends/c/conv.py)
in Pyodide (Node, the current sources copied in) on the shapes of the MNIST page's conv net and a SAME case,
checks the direct path is the one taken, and compares with the float64 NumPy references of test_c_conv.py.
The same for the Winograd convolution (wasm/conv_winograd.c) on shapes where backends/c/conv_winograd.py
chooses it, against test_c_conv_winograd.py's float64 references.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import numpy as np
import pytest

from webflow.backends.c.conv import conv2d_shape
from webflow.wasm import build

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "pyodide"))
from pyodide_session import PyodideSession, PyodideUnavailable  # noqa: E402
from test_c_conv import reference_conv, reference_filter_grad, reference_input_grad  # noqa: E402
from test_c_conv_winograd import oracle_conv, oracle_filter_grad, relative_error  # noqa: E402

PACKAGE = os.path.dirname(os.path.abspath(build.__file__)).rsplit(os.sep, 1)[0]   # .../webflow
CASES = [  # (N, H, W, C), (KH, KW), OC, padding
    ((3, 28, 28, 1), (5, 5), 8, "VALID"),    # the page's conv1
    ((3, 12, 12, 8), (5, 5), 16, "VALID"),   # the page's conv2
    ((2, 9, 7, 3), (3, 3), 4, "SAME"),
]
WINOGRAD_CASES = [  # (N, H, W, C), filter side, OC, padding
    ((2, 14, 14, 16), 5, 16, "SAME"),     # F(2x2, 5x5)
    ((2, 13, 13, 17), 3, 18, "VALID"),    # F(4x4, 3x3), partial tiles, channels not in whole vectors
]

RUN_IN_PYODIDE = """
import array, json
from webflow.backends.arrays.carray import CArray
from webflow.backends.c import conv, {kernels}
from webflow.framework import dtypes
case = json.loads({case!r})
f32 = lambda values, shape: CArray(array.array("f", values), tuple(shape), dtypes.float32)
x, w, bias, dy = (f32(case[k], case[k + "_shape"]) for k in ("x", "w", "bias", "dy"))
attrs = dict(strides=[1, 1, 1, 1], padding=case["padding"], dilations=[1, 1, 1, 1], data_format="NHWC")
shape = conv.window_geometry(x.shape, w.shape[:2], w.shape[3], attrs)
sizes = CArray(array.array("i", case["w_shape"]), (4,), dtypes.int32)
x_sizes = CArray(array.array("i", case["x_shape"]), (4,), dtypes.int32)
[[{kernels}.{forward_applies}(shape), {kernels}.filter_grad_applies(shape), {kernels}.input_grad_applies(shape)],
 conv.conv2d(x, w, **attrs).tolist(), conv.conv2d_bias_relu(x, w, bias, relu=True, **attrs).tolist(),
 conv.conv2d_backprop_filter(x, sizes, dy, **attrs).tolist(),
 conv.conv2d_backprop_input(x_sizes, w, dy, **attrs).tolist()]
"""


def run_in_pyodide(pyodide, kernels: str, forward_applies: str, padding: str, **arrays: np.ndarray) -> list:
    """[[which of forward / filter gradient / input gradient `kernels` (a backends/c module) takes], Conv2D,
    Conv2D + bias + ReLU, Conv2DBackpropFilter, Conv2DBackpropInput] of x, w, bias, dy inside Pyodide."""
    payload = {"padding": padding}
    for name, value in arrays.items():
        payload[name], payload[name + "_shape"] = value.ravel().tolist(), list(value.shape)
    return pyodide.evaluate(RUN_IN_PYODIDE.format(case=json.dumps(payload), kernels=kernels,
                                                  forward_applies=forward_applies))


@pytest.fixture(scope="module")
def pyodide():
    if shutil.which("node") is None:
        pytest.skip("node is not installed: cannot run Pyodide")
    try:
        build.build_wasm()
    except build.CompilerNotFound as error:
        pytest.skip(f"wasm module not built: {error}")
    try:
        session = PyodideSession.start(PACKAGE)
    except PyodideUnavailable as error:
        pytest.skip(f"Pyodide unavailable: {error}")
    yield session
    session.close()


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in CASES])
def test_direct_conv_in_pyodide_matches_numpy(pyodide, case):
    input_shape, window, out_channels, padding = case
    s = conv2d_shape(input_shape, window, out_channels, (1, 1), (1, 1), padding)
    rng = np.random.default_rng(sum(input_shape) + out_channels)
    x = rng.standard_normal(input_shape).astype(np.float32)
    w = rng.standard_normal((*window, input_shape[3], out_channels)).astype(np.float32)
    bias = rng.standard_normal(out_channels).astype(np.float32)
    dy = rng.standard_normal((s.batch, s.out_height, s.out_width, out_channels)).astype(np.float32)
    applies, out, fused, filter_grad, input_grad = run_in_pyodide(pyodide, "conv_direct", "forward_applies", padding,
                                                                  x=x, w=w, bias=bias, dy=dy)
    # the direct kernels are the ones that ran (the input gradient's needs input channels in whole 4-float vectors)
    assert applies == [True, True, input_shape[3] % 4 == 0]

    expected = reference_conv(x, w, s)
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(fused), np.maximum(expected + bias, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(filter_grad), reference_filter_grad(x, dy, s), rtol=1e-4, atol=2e-4)
    np.testing.assert_allclose(np.array(input_grad), reference_input_grad(w, dy, s), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("case", WINOGRAD_CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in WINOGRAD_CASES])
def test_winograd_conv_in_pyodide_matches_float64(pyodide, case):
    input_shape, side, out_channels, padding = case
    s = conv2d_shape(input_shape, (side, side), out_channels, padding=padding)
    rng = np.random.default_rng(sum(input_shape) + out_channels)
    x = rng.standard_normal(input_shape).astype(np.float32)
    w = (rng.standard_normal((side, side, input_shape[3], out_channels)) / side).astype(np.float32)
    bias = rng.standard_normal(out_channels).astype(np.float32)
    dy = rng.standard_normal((s.batch, s.out_height, s.out_width, out_channels)).astype(np.float32)
    applies, out, fused, filter_grad, input_grad = run_in_pyodide(pyodide, "conv_winograd", "applies", padding,
                                                                  x=x, w=w, bias=bias, dy=dy)
    assert applies == [True, True, True]

    bound = 2e-6 * side * side
    expected = oracle_conv(x, w, s)
    assert relative_error(np.array(out), expected) < bound
    assert relative_error(np.array(fused), np.maximum(expected + bias, 0)) < bound
    assert relative_error(np.array(filter_grad), oracle_filter_grad(x, dy, s, side)) < bound
    # dx: the transposed convolution, in float64
    dx = np.zeros((s.batch, s.in_height + 2 * side, s.in_width + 2 * side, input_shape[3]))
    for a in range(side):
        for b in range(side):
            dx[:, a:a + s.out_height, b:b + s.out_width] += dy.astype(np.float64) @ w[a, b].astype(np.float64).T
    want = dx[:, s.pad_top:s.pad_top + s.in_height, s.pad_left:s.pad_left + s.in_width]
    assert relative_error(np.array(input_grad), want) < bound
