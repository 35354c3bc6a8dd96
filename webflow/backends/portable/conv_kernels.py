"""Conv2D and its two backprops without NumPy, for every input the NumPy kernels take (only where NumPy is missing).

The C adapters (backends/c/conv.py) take the common case: NHWC, float32, SAME/VALID. Everything else lands
here when NumPy is missing (Pyodide): float64 (the gradient checks run in float64), NCHW, EXPLICIT
padding, int32. Each kernel makes TensorFlow's checks (the helpers of backends/numpy/conv.py, which are
plain Python), moves NCHW data to NHWC with the strided-view transpose, then runs
  - float32 / float64: the C kernels `wf_conv2d_<t>`, `wf_conv2d_backprop_input_<t>`,
    `wf_conv2d_backprop_filter_<t>` (webflow/wasm/conv_template.h: im2col + GEMM), explicit padding
    being just another pad_top / pad_left in the geometry;
  - any other dtype (int32): a plain-Python loop over the taps (wrapping as int32 arithmetic does).
backends/selection.py installs them as the ops' reference kernels (the `python_kernel` table), so the C
adapter runs first and falls back here when it raises Unsupported.
"""

from __future__ import annotations

import ctypes
from typing import Any

from webflow.backends.arrays import carray as c_array  # noqa: F401  (c_conv declares the kernels)
from webflow.backends.arrays.carray import CArray
from webflow.backends.c import conv as c_conv  # noqa: F401  (c_conv declares the kernels)
from webflow.backends.c.adapters import check, flat_ints, fn
from webflow.backends.c.conv import Conv2DShape

# noqa: F401  (c_conv declares the kernels)
from webflow.backends.numpy import conv as numpy_conv  # TensorFlow's checks (plain Python)
from webflow.backends.portable.array_kernels import transpose
from webflow.framework.windows import FROM_NHWC, TO_NHWC, nhwc_dims

C_SUFFIX = {"float32": "f32", "float64": "f64"}


def to_nhwc(x: CArray, data_format: str) -> CArray:
    return transpose(x, list(TO_NHWC)) if data_format == "NCHW" else x


def from_nhwc(y: CArray, data_format: str) -> CArray:
    return transpose(y, list(FROM_NHWC)) if data_format == "NCHW" else y


def _geometry(x_shape: tuple, w_shape: tuple, geometry: dict) -> Conv2DShape:
    """The C geometry of an NHWC input and HWIO filter (output size and padding by TensorFlow's rules)."""
    (oh, ow), ((top, _), (left, _)) = numpy_conv.conv_geometry(x_shape, w_shape, **geometry)
    n, h, w, c = x_shape
    kh, kw, _, k = w_shape
    (sh, sw), (dh, dw) = geometry["strides"], geometry["dilations"]
    return Conv2DShape(n, h, w, c, kh, kw, k, sh, sw, dh, dw, top, left, oh, ow)


def _out_dims(s: Conv2DShape) -> tuple:
    return (s.batch, s.out_height, s.out_width, s.out_channels)


def _run(kernel: str, s: Conv2DShape, first: CArray, second: CArray, out: CArray) -> CArray:
    """One of the three C kernels on contiguous buffers, with the workspace it asks for."""
    suffix = C_SUFFIX[out.dtype.name]
    work = c_array.empty(max(fn(f"wf_conv2d_workspace_{suffix}")(ctypes.byref(s)), 1), out.dtype)
    name = f"wf_{kernel}_{suffix}"
    check(fn(name)(ctypes.byref(s), first.address(), second.address(), out.address(), work.address(), work.size), name)
    return out


# --- plain Python, for the dtypes the C kernels lack (int32) -----------------------------------------
def _taps(s: Conv2DShape) -> list:
    """(output pixel m, tap t = kh * KW + kw, flat offset of input pixel [n, ih, iw, 0]) for in-bounds taps."""
    found = []
    for m in range(s.batch * s.out_height * s.out_width):
        ow, oh, n = m % s.out_width, m // s.out_width % s.out_height, m // (s.out_width * s.out_height)
        for kh in range(s.filter_height):
            ih = oh * s.stride_height - s.pad_top + kh * s.dilation_height
            if not 0 <= ih < s.in_height:
                continue
            for kw in range(s.filter_width):
                iw = ow * s.stride_width - s.pad_left + kw * s.dilation_width
                if 0 <= iw < s.in_width:
                    found.append((m, kh * s.filter_width + kw, ((n * s.in_height + ih) * s.in_width + iw)
                                  * s.in_channels))
    return found


def _wrapped(values: list, dtype: Any) -> list:
    """Integer sums wrapped to the dtype's width, as TensorFlow's (and NumPy's) integer GEMM wraps."""
    bits = c_array.empty((1,), dtype).itemsize * 8
    half = 1 << (bits - 1)
    return [((v + half) % (1 << bits)) - half for v in values]


def _python_conv(kind: str, s: Conv2DShape, x: list, w: list, dy: list, dtype: Any) -> list:
    """y = conv(x, w), dx = conv^T(dy, w) or dw = conv^T(x, dy) over the in-bounds taps, in Python ints."""
    c_in, c_out = s.in_channels, s.out_channels
    sizes = {"forward": s.batch * s.out_height * s.out_width * c_out,
             "input": s.batch * s.in_height * s.in_width * c_in,
             "filter": s.filter_height * s.filter_width * c_in * c_out}
    out = [0] * sizes[kind]
    for m, tap, pixel in _taps(s):
        for c in range(c_in):
            row = (tap * c_in + c) * c_out
            for k in range(c_out):
                if kind == "forward":
                    out[m * c_out + k] += x[pixel + c] * w[row + k]
                elif kind == "input":
                    out[pixel + c] += dy[m * c_out + k] * w[row + k]
                else:
                    out[row + k] += x[pixel + c] * dy[m * c_out + k]
    return _wrapped(out, dtype)


def _compute(kind: str, s: Conv2DShape, x: CArray | None, w: CArray | None, dy: CArray | None, shape: tuple,
             dtype: Any) -> CArray:
    out = c_array.empty(shape, dtype)
    if out.size == 0:
        return out
    if dtype.name in C_SUFFIX:
        if kind == "forward":
            return _run("conv2d", s, x, w, out)
        if kind == "input":
            return _run("conv2d_backprop_input", s, w, dy, out)
        return _run("conv2d_backprop_filter", s, x, dy, out)
    values = _python_conv(kind, s, *(None if v is None else v.data.tolist() for v in (x, w, dy)), dtype)
    return CArray(type(out.data)(out.data.typecode, values), shape, dtype)


# --- the three ops (TensorFlow's checks first, as backends/numpy/conv.py's run_* do) ----------------------
def conv2d(input: Any, filter: Any, **attrs: Any) -> CArray:  # noqa: A002 - TensorFlow's input names
    """y[b,i,j,k] = sum_{p,q,c} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * filter[p,q,c,k]."""
    shapes = {"input": input.shape, "filter": filter.shape}
    numpy_conv._check_ranks("Conv2D", shapes)
    geometry = numpy_conv._geometry("Conv2D", attrs, shapes)
    x = to_nhwc(input, attrs["data_format"])
    numpy_conv._check_depths("Conv2D", x.shape, filter.shape, shapes)
    s = _geometry(x.shape, filter.shape, geometry)
    y = _compute("forward", s, x, filter, None, _out_dims(s), input.dtype)
    return from_nhwc(y, attrs["data_format"])


def conv2d_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> CArray:  # noqa: A002
    """dx = col2im(dy @ filter^T): the adjoint of Conv2D in its input."""
    op_type = "Conv2DCustomBackpropInput"
    shapes = {"filter": filter.shape, "out_backprop": out_backprop.shape}
    numpy_conv._check_ranks(op_type, shapes)
    geometry = numpy_conv._geometry(op_type, attrs, shapes)
    sizes = flat_ints(input_sizes)
    if len(sizes) != 4:
        raise numpy_conv._error(op_type, f"input_sizes must contain 4 values, but got {sizes}", shapes)
    x_shape = nhwc_dims(sizes, attrs["data_format"])
    dy = to_nhwc(out_backprop, attrs["data_format"])
    numpy_conv._check_depths(op_type, x_shape, filter.shape, shapes, dy.shape)
    numpy_conv._check_out_size(op_type, x_shape, filter.shape, dy.shape, geometry, shapes)
    s = _geometry(x_shape, filter.shape, geometry)
    dx = _compute("input", s, None, filter, dy, x_shape, filter.dtype)
    return from_nhwc(dx, attrs["data_format"])


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, **attrs: Any) -> CArray:  # noqa: A002
    """dfilter = im2col(x)^T @ dy: the adjoint of Conv2D in its filter."""
    op_type = "Conv2DCustomBackpropFilter"
    shapes = {"input": input.shape, "out_backprop": out_backprop.shape}
    numpy_conv._check_ranks(op_type, shapes)
    geometry = numpy_conv._geometry(op_type, attrs, shapes)
    sizes = flat_ints(filter_sizes)
    if len(sizes) != 4:
        raise numpy_conv._error(op_type, f"filter_sizes must contain 4 values, but got {sizes}", shapes)
    w_shape = tuple(sizes)
    x, dy = to_nhwc(input, attrs["data_format"]), to_nhwc(out_backprop, attrs["data_format"])
    numpy_conv._check_depths(op_type, x.shape, w_shape, shapes, dy.shape)
    numpy_conv._check_out_size(op_type, x.shape, w_shape, dy.shape, geometry, shapes)
    s = _geometry(x.shape, w_shape, geometry)
    return _compute("filter", s, x, None, dy, w_shape, input.dtype)


__all__ = ["conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "to_nhwc", "from_nhwc", "C_SUFFIX"]
