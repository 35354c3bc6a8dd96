"""MaxPool, AvgPool, their gradients and MaxPoolGradGrad without NumPy (used only where NumPy is missing).

The C adapters (backends/c/pool.py) take NHWC float32; the rest lands here when NumPy is missing: float64
(the gradient checks), NCHW (moved to NHWC with the strided-view transpose and back), integer max
pooling, and MaxPoolGradGrad. Where the windows fall and TensorFlow's errors come from
backends/numpy/pool_windows.py's `Windows` (plain Python); then
  - float32 / float64: the C kernels `wf_max_pool_<t>`, `wf_max_pool_grad_<t>`, `wf_max_pool_grad_grad_<t>`,
    `wf_avg_pool_<t>`, `wf_avg_pool_grad_<t>` (webflow/wasm/pool_template.h);
  - integers (max pooling only): a plain-Python scan of each window for its first maximal cell.
As the NumPy kernel, a float max that is -inf (every cell -inf) becomes the lowest finite value.
"""

from __future__ import annotations

import array
import ctypes
import math
from typing import Any

from webflow.backends.arrays import carray as c_array  # noqa: F401  (c_pool declares the kernels)
from webflow.backends.arrays.carray import CArray
from webflow.backends.c import pool as c_pool  # noqa: F401  (c_pool declares the kernels)
from webflow.backends.c.adapters import check, flat_ints, fn
from webflow.backends.c.conv import Conv2DShape

# noqa: F401  (c_pool declares the kernels)
from webflow.backends.numpy import pool_windows  # the window geometry (plain Python)
from webflow.backends.portable.conv_kernels import C_SUFFIX, from_nhwc, to_nhwc
from webflow.framework.windows import from_nhwc_dims, nhwc_dims

LOWEST = {"float32": -3.4028234663852886e38, "float64": -1.7976931348623157e308}


def _windows(op_type: str, shape: tuple, ksize: list, strides: list, padding: str, data_format: str) -> Any:
    return pool_windows.Windows(op_type, nhwc_dims(shape, data_format), ksize, strides, padding, data_format)


def _geometry(w: Any) -> Conv2DShape:
    """The C geometry of a pooling: window in filter_*, channels in in_channels, dilations 1."""
    return Conv2DShape(w.n, w.h, w.w, w.c, w.kh, w.kw, w.c, w.sh, w.sw, 1, 1, w.top, w.left, w.out_h, w.out_w)


def _check_shape(op_type: str, what: str, expected: tuple, got: tuple) -> None:
    pool_windows.check_same_shape(op_type, what, expected, got)


def _layout(shape: tuple, data_format: str) -> tuple:
    return from_nhwc_dims(shape, data_format)


def _c(name: str, w: Any, dtype: Any, out_shape: tuple, *inputs: CArray) -> CArray:
    """Runs `wf_<name>_<t>` on contiguous NHWC buffers into a new output of out_shape."""
    out = c_array.empty(out_shape, dtype)
    if out.size:
        kernel = f"wf_{name}_{C_SUFFIX[dtype.name]}"
        s = _geometry(w)
        check(fn(kernel)(ctypes.byref(s), *(x.address() for x in inputs), out.address()), kernel)
    return out


# --- plain Python (integer dtypes) ----------------------------------------------------------------------
def _first_max(w: Any, x: list) -> list:
    """For each output element (NHWC order): the offset in x of its window's first maximal cell."""
    found = []
    for n in range(w.n):
        for oh in range(w.out_h):
            rows = range(max(oh * w.sh - w.top, 0), min(oh * w.sh - w.top + w.kh, w.h))
            for ow in range(w.out_w):
                cols = range(max(ow * w.sw - w.left, 0), min(ow * w.sw - w.left + w.kw, w.w))
                cells = [((n * w.h + r) * w.w + c) * w.c for r in rows for c in cols]
                for channel in range(w.c):
                    best = None
                    for cell in cells:
                        if best is None or x[cell + channel] > x[best]:
                            best = cell + channel
                    found.append(best)
    return found


def _from_list(values: list, shape: tuple, dtype: Any) -> CArray:
    return CArray(array.array(c_array.TYPECODES[dtype.name], values), shape, dtype)


# --- the ops ------------------------------------------------------------------------------------------
def max_pool(x: Any, *, ksize: list, strides: list, padding: str, data_format: str = "NHWC", **_: Any) -> CArray:
    """y[n, r, c, ch] = max of x over the in-bounds cells of window (r, c)."""
    w = _windows("MaxPool", x.shape, ksize, strides, padding, data_format)
    xn = to_nhwc(x, data_format)
    if x.dtype.name in C_SUFFIX:
        y = _c("max_pool", w, x.dtype, w.out_shape, xn)
        lowest = LOWEST[x.dtype.name]
        if -math.inf in y.data:  # TensorFlow starts each max at the lowest finite value
            y.data = array.array(y.data.typecode, [lowest if v == -math.inf else v for v in y.data])
    else:
        values = [] if w.empty else [xn.data[cell] for cell in _first_max(w, xn.data)]
        y = _from_list(values, w.out_shape, x.dtype)
    return from_nhwc(y, data_format)


def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, *, ksize: list, strides: list, padding: str,
                  data_format: str = "NHWC", **_: Any) -> CArray:
    """dx[cell] = sum of grad over the windows whose first maximal cell is `cell`."""
    w = _windows("MaxPoolGrad", orig_input.shape, ksize, strides, padding, data_format)
    pooled = _layout(w.out_shape, data_format)
    _check_shape("MaxPoolGrad", "orig_output", pooled, orig_output.shape)
    _check_shape("MaxPoolGrad", "grad", pooled, grad.shape)
    x, g = to_nhwc(orig_input, data_format), to_nhwc(grad, data_format)
    if grad.dtype.name in C_SUFFIX and orig_input.dtype == grad.dtype:
        return from_nhwc(_c("max_pool_grad", w, grad.dtype, x.shape, x, g), data_format)
    dx = [0] * x.size
    if not w.empty:
        for i, cell in enumerate(_first_max(w, x.data)):
            dx[cell] += g.data[i]
    return from_nhwc(_from_list(dx, x.shape, grad.dtype), data_format)


def max_pool_grad_grad(orig_input: Any, orig_output: Any, grad: Any, *, ksize: list, strides: list, padding: str,
                       data_format: str = "NHWC", **_: Any) -> CArray:
    """y[window] = grad[the window's first maximal cell of orig_input] (grad has the input's shape)."""
    w = _windows("MaxPoolGradGrad", orig_input.shape, ksize, strides, padding, data_format)
    _check_shape("MaxPoolGradGrad", "orig_output", _layout(w.out_shape, data_format), orig_output.shape)
    _check_shape("MaxPoolGradGrad", "grad", orig_input.shape, grad.shape)
    x, g = to_nhwc(orig_input, data_format), to_nhwc(grad, data_format)
    if grad.dtype.name in C_SUFFIX and orig_input.dtype == grad.dtype:
        return from_nhwc(_c("max_pool_grad_grad", w, grad.dtype, w.out_shape, x, g), data_format)
    values = [] if w.empty else [g.data[cell] for cell in _first_max(w, x.data)]
    return from_nhwc(_from_list(values, w.out_shape, grad.dtype), data_format)


def avg_pool(x: Any, *, ksize: list, strides: list, padding: str, data_format: str = "NHWC") -> CArray:
    """y[window] = sum of the window's in-bounds cells / their number."""
    w = _windows("AvgPool", x.shape, ksize, strides, padding, data_format)
    if x.dtype.name not in C_SUFFIX:
        raise TypeError(f"AvgPool of {x.dtype.name} needs NumPy, which is not installed here")
    return from_nhwc(_c("avg_pool", w, x.dtype, w.out_shape, to_nhwc(x, data_format)), data_format)


def avg_pool_grad(orig_input_shape: Any, grad: Any, *, ksize: list, strides: list, padding: str,
                  data_format: str = "NHWC") -> CArray:
    """dx[cell] = sum over the windows holding the cell of grad[window] / count[window]."""
    shape = tuple(flat_ints(orig_input_shape))
    w = _windows("AvgPoolGrad", shape, ksize, strides, padding, data_format)
    _check_shape("AvgPoolGrad", "grad", _layout(w.out_shape, data_format), grad.shape)
    if grad.dtype.name not in C_SUFFIX:
        raise TypeError(f"AvgPoolGrad of {grad.dtype.name} needs NumPy, which is not installed here")
    nhwc = (w.n, w.h, w.w, w.c)
    return from_nhwc(_c("avg_pool_grad", w, grad.dtype, nhwc, to_nhwc(grad, data_format)), data_format)


__all__ = ["max_pool", "max_pool_grad", "max_pool_grad_grad", "avg_pool", "avg_pool_grad"]
