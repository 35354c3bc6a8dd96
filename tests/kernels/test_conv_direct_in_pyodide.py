"""The direct convolution (wasm/conv_direct.c) through webflow's adapters inside Pyodide, where it now applies.

backends/c/conv_direct.py used to keep Pyodide on im2col + GEMM; it now takes the direct kernels there too
(output channels a multiple of the wasm build's 4 lanes), with no NumPy: one thread, one filter-gradient
slice, the input gradient's flipped filter built by array slices. This runs the Conv2D, fused Conv2D + bias +
ReLU, Conv2DBackpropInput and Conv2DBackpropFilter adapters (backends/c/conv.py)
in Pyodide (Node, the current sources copied in) on the shapes of the MNIST page's conv net and a SAME case,
checks the direct path is the one taken, and compares with the float64 NumPy references of test_c_conv.py.
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

PACKAGE = os.path.dirname(os.path.abspath(build.__file__)).rsplit(os.sep, 1)[0]   # .../webflow
CASES = [  # (N, H, W, C), (KH, KW), OC, padding
    ((3, 28, 28, 1), (5, 5), 8, "VALID"),    # the page's conv1
    ((3, 12, 12, 8), (5, 5), 16, "VALID"),   # the page's conv2
    ((2, 9, 7, 3), (3, 3), 4, "SAME"),
]

RUN_IN_PYODIDE = """
import array, json
from webflow.backends.arrays.carray import CArray
from webflow.backends.c import conv, conv_direct
from webflow.framework import dtypes
case = json.loads({case!r})
f32 = lambda values, shape: CArray(array.array("f", values), tuple(shape), dtypes.float32)
x, w, bias, dy = (f32(case[k], case[k + "_shape"]) for k in ("x", "w", "bias", "dy"))
attrs = dict(strides=[1, 1, 1, 1], padding=case["padding"], dilations=[1, 1, 1, 1], data_format="NHWC")
shape = conv.window_geometry(x.shape, w.shape[:2], w.shape[3], attrs)
sizes = CArray(array.array("i", case["w_shape"]), (4,), dtypes.int32)
x_sizes = CArray(array.array("i", case["x_shape"]), (4,), dtypes.int32)
[[conv_direct.forward_applies(shape), conv_direct.filter_grad_applies(shape), conv_direct.input_grad_applies(shape)],
 conv.conv2d(x, w, **attrs).tolist(), conv.conv2d_bias_relu(x, w, bias, relu=True, **attrs).tolist(),
 conv.conv2d_backprop_filter(x, sizes, dy, **attrs).tolist(),
 conv.conv2d_backprop_input(x_sizes, w, dy, **attrs).tolist()]
"""


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
    payload = {"padding": padding}
    for name, value in (("x", x), ("w", w), ("bias", bias), ("dy", dy)):
        payload[name], payload[name + "_shape"] = value.ravel().tolist(), list(value.shape)
    applies, out, fused, filter_grad, input_grad = pyodide.evaluate(RUN_IN_PYODIDE.format(case=json.dumps(payload)))
    # the direct kernels are the ones that ran (the input gradient's needs input channels in whole 4-float vectors)
    assert applies == [True, True, input_shape[3] % 4 == 0]

    expected = reference_conv(x, w, s)
    np.testing.assert_allclose(np.array(out), expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(fused), np.maximum(expected + bias, 0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.array(filter_grad), reference_filter_grad(x, dy, s), rtol=1e-4, atol=2e-4)
    np.testing.assert_allclose(np.array(input_grad), reference_input_grad(w, dy, s), rtol=1e-4, atol=1e-4)
