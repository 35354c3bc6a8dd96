"""Kernel jobs for the float64 convolution and pooling kernels (conv_template.h, pool_template.h) and for
MaxPoolGradGrad in both precisions, run native or in Pyodide. Oracles: the float64 NumPy references of
tests/kernels/test_c_conv.py and test_c_pool.py (TensorFlow's definitions), and for MaxPoolGradGrad the
routing those references use (each window reads the second-order gradient at its first maximal cell)."""

from __future__ import annotations

import numpy as np
from kernel_cases_dense import Case, _assert_equal
from test_c_conv import CASES as CONV_CASES
from test_c_conv import reference_conv, reference_filter_grad, reference_input_grad
from test_c_pool import CASES as POOL_CASES
from test_c_pool import reference as pool_reference
from test_c_pool import windows

from webflow.backends.c.conv import Conv2DShape, conv2d_shape

SUFFIX = {np.float32: "f32", np.float64: "f64"}


def _workspace(s) -> int:
    k = s.filter_height * s.filter_width * s.in_channels
    m = s.batch * s.out_height * s.out_width
    return 1 if k == 0 or m == 0 else min(m, max(128, 262144 // k)) * k


def conv_f64_case(s: Conv2DShape, seed: int, work_rows: int | None = None) -> Case:
    """Forward and both backprops in float64, against the float64 references (to ~1e-12)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((s.batch, s.in_height, s.in_width, s.in_channels))
    f = rng.standard_normal((s.filter_height, s.filter_width, s.in_channels, s.out_channels))
    dy = rng.standard_normal((s.batch, s.out_height, s.out_width, s.out_channels))
    count = _workspace(s) if work_rows is None else work_rows * s.filter_height * s.filter_width * s.in_channels
    case = Case()
    job = case.job
    geometry, work = job.conv(s), job.input(np.zeros(max(count, 1)))
    out, dx, df = (job.output(np.full(shape, np.nan)) for shape in (dy.shape, x.shape, f.shape))
    xs, fs, dys = job.input(x), job.input(f), job.input(dy)
    job.call("wf_conv2d_workspace_f64", geometry)
    job.call("wf_conv2d_f64", geometry, xs, fs, out, work, count)
    job.call("wf_conv2d_backprop_input_f64", geometry, fs, dys, dx, work, count)
    job.call("wf_conv2d_backprop_filter_f64", geometry, xs, dys, df, work, count)
    case.check(lambda results, outputs: _assert_equal(results, [_workspace(s), 0, 0, 0]))

    def check(results, outputs):
        np.testing.assert_allclose(outputs[out], reference_conv(x, f, s), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outputs[dx], reference_input_grad(f, dy, s), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(outputs[df], reference_filter_grad(x, dy, s), rtol=1e-12, atol=1e-12)
    case.check(check)
    return case


def _explicit_shape() -> Conv2DShape:
    """Asymmetric explicit padding (top 2, left 0; the bottom/right padding is implied by the output size)."""
    n, h, w, c, kh, kw, k = 2, 5, 6, 3, 3, 2, 4
    top, bottom, left, right, sh, sw = 2, 1, 0, 3, 2, 1
    oh, ow = (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1
    return Conv2DShape(n, h, w, c, kh, kw, k, sh, sw, 1, 1, top, left, oh, ow)


def _grad_grad_reference(x: np.ndarray, g: np.ndarray, s) -> np.ndarray:
    """out[window] = g at the window's first maximal cell of x (row-major scan order, as TensorFlow)."""
    n, _, _, channels = x.shape
    out = np.zeros((n, s.out_height, s.out_width, channels), x.dtype)
    for i, j, rows, cols in windows(s):
        patch = x[:, rows.start:rows.stop, cols.start:cols.stop, :].reshape(n, -1, channels)
        first = patch.argmax(axis=1)
        for b in range(n):
            for ch in range(channels):
                r, q = divmod(first[b, ch], len(cols))
                out[b, i, j, ch] = g[b, rows[r], cols[q], ch]
    return out


def pool_case(dtype: type, index: int | None = None, x: np.ndarray | None = None, ksize=(3, 3), strides=(2, 2),
              padding: str = "SAME") -> Case:
    """Max/avg pooling forward and backward, and MaxPoolGradGrad, in `dtype`."""
    rng = np.random.default_rng(1900 + (index or 0))
    if index is not None:
        input_shape, ksize, strides, padding = POOL_CASES[index]
        x = rng.standard_normal(input_shape)
    x = x.astype(dtype)
    s = conv2d_shape(x.shape, ksize, x.shape[3], strides, (1, 1), padding)
    out_shape = (x.shape[0], s.out_height, s.out_width, x.shape[3])
    dy, g2 = rng.standard_normal(out_shape).astype(dtype), rng.standard_normal(x.shape).astype(dtype)
    t = SUFFIX[dtype]
    case = Case()
    job, geometry = case.job, case.job.conv(s)
    xs, dys, g2s = job.input(x), job.input(dy), job.input(g2)
    max_out, avg_out, grad_grad = (job.output(np.full(out_shape, np.nan, dtype)) for _ in range(3))
    max_grad, avg_grad = (job.output(np.full(x.shape, np.nan, dtype)) for _ in range(2))
    job.call(f"wf_max_pool_{t}", geometry, xs, max_out)
    job.call(f"wf_avg_pool_{t}", geometry, xs, avg_out)
    job.call(f"wf_max_pool_grad_{t}", geometry, xs, dys, max_grad)
    job.call(f"wf_avg_pool_grad_{t}", geometry, dys, avg_grad)
    job.call(f"wf_max_pool_grad_grad_{t}", geometry, xs, g2s, grad_grad)
    case.check(lambda results, outputs: _assert_equal(results, [0, 0, 0, 0, 0]))
    close = dict(rtol=1e-12, atol=1e-13) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)

    def check(results, outputs):
        expected = pool_reference(x, dy, s)
        np.testing.assert_array_equal(outputs[max_out], expected[0].astype(dtype))
        np.testing.assert_allclose(outputs[avg_out], expected[1], **close)
        np.testing.assert_allclose(outputs[max_grad], expected[2], **close)
        np.testing.assert_allclose(outputs[avg_grad], expected[3], **close)
        np.testing.assert_array_equal(outputs[grad_grad], _grad_grad_reference(x, g2, s))
    case.check(check)
    return case


def window_cases() -> dict:
    """Name -> builder, for every float64 conv / pool case and MaxPoolGradGrad in both precisions."""
    cases = {}
    for index, (input_shape, window, out_channels, strides, dilations, padding) in enumerate(CONV_CASES):
        s = conv2d_shape(input_shape, window, out_channels, strides, dilations, padding)
        cases[f"conv-f64-{index}"] = lambda s=s, i=index: conv_f64_case(s, seed=2700 + i)
    cases["conv-f64-explicit-padding"] = lambda: conv_f64_case(_explicit_shape(), seed=5)
    chunked = conv2d_shape((2, 9, 7, 3), (3, 3), 4, (1, 2), (1, 1), "SAME")
    cases["conv-f64-chunked-3-rows"] = lambda: conv_f64_case(chunked, seed=6, work_rows=3)
    for dtype in (np.float32, np.float64):
        for index in range(len(POOL_CASES)):
            cases[f"pool-grad-grad-{SUFFIX[dtype]}-{index}"] = lambda d=dtype, i=index: pool_case(d, i)
        ties = np.random.default_rng(3).integers(0, 3, size=(2, 8, 7, 6))
        for padding in ("SAME", "VALID"):
            cases[f"pool-grad-grad-{SUFFIX[dtype]}-ties-{padding}"] = lambda d=dtype, p=padding, t=ties: pool_case(
                d, x=t, padding=p)
    return cases
