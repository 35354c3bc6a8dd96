"""Pooling ops: MaxPool, AvgPool and their gradients MaxPoolGrad, AvgPoolGrad, MaxPoolGradGrad.

One stanza per op: shape rule, NumPy kernel (docstring = the math), gradient rule written with webflow
ops, and the TF wrappers at the end (`tf.nn.max_pool`, `avg_pool`, `max_pool2d` ... with TF1's and TF2's
signatures). Where the windows fall, and the strided views the kernels loop over (one per window cell,
never one per pixel), is in `backends/numpy/pool_windows.py`.

Max pooling never picks a padded cell; average pooling divides each window by its number of in-bounds
cells. Gradients go to the FIRST maximal cell of a window in row-major order, as TensorFlow's CPU kernels
do on ties. NCHW inputs are pooled as NHWC views (TF's default CPU kernels reject NCHW; oneDNN's accept it).
"""
from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import pool as c_pool
from webflow.backends.numpy.pool_windows import (
    Windows,
    check_same_shape,
    first_max_cells,
    from_nhwc,
    never_max,
    to_nhwc,
    window_max,
    windows_for,
)
from webflow.backends.portable import pool_kernels
from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape
from webflow.framework.windows import from_nhwc_dims, get_sequence, nhwc_dims, output_size
from webflow.ops import array_ops, manip_ops
from webflow.ops.convert import constant_value, convert_to_tensor
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op

FLOATS = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
MAX_POOL_TYPES = FLOATS + (dtypes.int32, dtypes.int64, dtypes.uint8, dtypes.int16, dtypes.int8, dtypes.uint16)
_ATTRS = ("ksize", "strides", "padding", "data_format")


# --- shape rules ----------------------------------------------------------------------------------------
def _rank4(tensor: Any) -> list:
    if tensor.shape.rank is None:
        return [None] * 4
    if tensor.shape.rank != 4:
        raise ShapeError(f"Shape must be rank 4 but is rank {tensor.shape.rank}")
    return list(tensor.shape.as_tuple())


def _pooled_dims(dims: list, attrs: dict) -> list:
    """TensorFlow's static output shape of a pooling window over input dims (None = unknown)."""
    ksize, strides, padding, data_format = (attrs[a] for a in _ATTRS)
    if len(ksize) != 4 or len(strides) != 4:
        raise ShapeError("Sliding window ksize and stride fields must specify 4 dimensions")
    for stride in strides:
        if stride <= 0:
            raise ShapeError(f"Stride must be > 0, but got {stride}")
    dims = list(dims)
    for axis in (2, 3) if data_format == "NCHW" else (1, 2):
        size, k, s = dims[axis], ksize[axis], strides[axis]
        if size is None or k <= 0:
            dims[axis] = None
        elif padding == "VALID":
            if size < k:
                raise ShapeError(f"Negative dimension size caused by subtracting {k} from {size}")
            dims[axis] = output_size(size, k, s, 1, "VALID")
        else:
            dims[axis] = output_size(size, k, s, 1, "SAME")
    return dims


def _pool_shape(inputs: list, attrs: dict) -> tuple:
    x = inputs[0]
    return output_spec(_pooled_dims(_rank4(x), attrs), x.dtype.base_dtype)


def _like_orig_input(inputs: list, attrs: dict) -> tuple:
    return output_spec(_rank4(inputs[0]), inputs[2].dtype.base_dtype)


def _like_orig_output(inputs: list, attrs: dict) -> tuple:
    pooled = _pooled_dims(_rank4(inputs[0]), attrs)
    return output_spec(inputs[1].shape.merge_with(pooled), inputs[2].dtype.base_dtype)


def _avg_pool_grad_shape(inputs: list, attrs: dict) -> tuple:
    shape_tensor, grad = inputs
    if shape_tensor.shape.rank is not None and shape_tensor.shape.rank != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {shape_tensor.shape.rank}")
    value = constant_value(shape_tensor)
    if value is None:
        return output_spec([None] * 4, grad.dtype.base_dtype)
    if len(value) != 4:
        raise ShapeError(f"Shape must be rank 4 but is rank {len(value)}")
    return output_spec([int(d) for d in value], grad.dtype.base_dtype)


def _pool_attrs(op: Any) -> dict:
    return {name: op.get_attr(name) for name in _ATTRS}


# --- MaxPool ----------------------------------------------------------------------------------------------
@register_op("MaxPool", "MaxPool", inputs=("input",), shape=_pool_shape, allowed=MAX_POOL_TYPES,
             c=c_pool.max_pool, portable=pool_kernels.max_pool)
def max_pool_kernel(x: Any, *, ksize: list, strides: list, padding: str, data_format: str = "NHWC",
                    explicit_paddings: tuple = ()) -> Any:
    """y[n, r, c, ch] = max of x[n, r*s_h + i - pad_top, c*s_w + j - pad_left, ch] over in-bounds (i, j) < ksize."""
    windows = windows_for("MaxPool", x, ksize, strides, padding, data_format)
    if windows.empty:
        return np.zeros(from_nhwc_dims(windows.out_shape, data_format), x.dtype)
    best = window_max(windows, windows.pad(to_nhwc(x, data_format), never_max(x.dtype)))
    if x.dtype.kind == "f":     # TensorFlow starts each max at the lowest finite value: -inf (and a window of
        np.fmax(best, np.finfo(x.dtype).min, out=best)   # NaN only, fmax's NaN rule) becomes -max
    return from_nhwc(best, data_format)


@register_gradient("MaxPool")
def _max_pool_grad(op: Any, grad: Any) -> Any:
    """dx = each output's gradient added at its window's (first) maximal input cell: the MaxPoolGrad op."""
    return max_pool_grad(op.inputs[0], op.outputs[0], grad, **_pool_attrs(op))


# --- MaxPoolGrad ------------------------------------------------------------------------------------------
@register_op("MaxPoolGrad", "MaxPoolGrad", inputs=("orig_input", "orig_output", "grad"), shape=_like_orig_input,
             same_dtype=(0, 1, 2), allowed=MAX_POOL_TYPES,
             c=c_pool.max_pool_grad, portable=pool_kernels.max_pool_grad)
def max_pool_grad_kernel(orig_input: Any, orig_output: Any, grad: Any, *, ksize: list, strides: list,
                         padding: str, data_format: str = "NHWC", explicit_paddings: tuple = ()) -> Any:
    """dx[cell] = sum of grad over the windows whose first max (re-found in orig_input, as TF) is that cell."""
    windows = windows_for("MaxPoolGrad", orig_input, ksize, strides, padding, data_format)
    pooled_shape = from_nhwc_dims(windows.out_shape, data_format)
    check_same_shape("MaxPoolGrad", "orig_output", pooled_shape, orig_output.shape)
    check_same_shape("MaxPoolGrad", "grad", pooled_shape, grad.shape)
    x, g = to_nhwc(orig_input, data_format), to_nhwc(grad, data_format)
    if windows.empty:
        return np.zeros_like(orig_input)
    if windows.tiles:       # every input cell is in exactly one window: write each view once, no zero fill
        dx = np.empty_like(x)
        for i, j, hit in first_max_cells(windows, x):
            np.multiply(g, hit, out=windows.view(dx, i, j))
        return from_nhwc(dx, data_format)
    dx = np.zeros(windows.padded_shape, grad.dtype)
    for i, j, hit in first_max_cells(windows, x):
        view = windows.view(dx, i, j)
        np.add(view, g * hit, out=view)
    return from_nhwc(np.ascontiguousarray(windows.crop(dx)), data_format)


@register_gradient("MaxPoolGrad")
def _max_pool_grad_grad(op: Any, grad: Any) -> list:
    """Linear in `grad` (a fixed routing): d(grad) = grad gathered at each window's max (MaxPoolGradGrad);
    piecewise constant in orig_input and orig_output, so zeros for them."""
    orig_input, orig_output = op.inputs[0], op.inputs[1]
    return [array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
            max_pool_grad_grad(orig_input, orig_output, grad, **_pool_attrs(op))]


def max_pool_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: list, strides: list, padding: str,
                  explicit_paddings: tuple = (), data_format: str = "NHWC", name: str | None = None) -> Any:
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding, "data_format": data_format,
             "explicit_paddings": list(explicit_paddings)}
    return apply_op("MaxPoolGrad", [orig_input, orig_output, grad], attrs, name=name)


# --- MaxPoolGradGrad --------------------------------------------------------------------------------------
@register_op("MaxPoolGradGrad", "MaxPoolGradGrad", inputs=("orig_input", "orig_output", "grad"),
             shape=_like_orig_output, same_dtype=(0, 1, 2), allowed=MAX_POOL_TYPES,
             portable=pool_kernels.max_pool_grad_grad)
def max_pool_grad_grad_kernel(orig_input: Any, orig_output: Any, grad: Any, *, ksize: list, strides: list,
                              padding: str, data_format: str = "NHWC") -> Any:
    """y[window] = grad[the window's first maximal cell of orig_input] (grad has the input's shape)."""
    windows = windows_for("MaxPoolGradGrad", orig_input, ksize, strides, padding, data_format)
    pooled_shape = from_nhwc_dims(windows.out_shape, data_format)
    check_same_shape("MaxPoolGradGrad", "orig_output", pooled_shape, orig_output.shape)
    check_same_shape("MaxPoolGradGrad", "grad", orig_input.shape, grad.shape)
    x, g = to_nhwc(orig_input, data_format), to_nhwc(grad, data_format)
    out = np.zeros(windows.out_shape, grad.dtype)
    if not windows.empty:
        padded = windows.pad(g, 0)
        for i, j, hit in first_max_cells(windows, x):
            np.add(out, windows.view(padded, i, j) * hit, out=out)
    return from_nhwc(out, data_format)


@register_gradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op: Any, grad: Any) -> list:
    """Linear in `grad`, the transpose of MaxPoolGrad's routing: d(grad) = MaxPoolGrad(grad)."""
    orig_input, orig_output = op.inputs[0], op.inputs[1]
    return [array_ops.zeros_like(orig_input), array_ops.zeros_like(orig_output),
            max_pool_grad(orig_input, orig_output, grad, **_pool_attrs(op))]


def max_pool_grad_grad(orig_input: Any, orig_output: Any, grad: Any, ksize: list, strides: list, padding: str,
                       data_format: str = "NHWC", name: str | None = None) -> Any:
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding, "data_format": data_format}
    return apply_op("MaxPoolGradGrad", [orig_input, orig_output, grad], attrs, name=name)


# --- AvgPool ----------------------------------------------------------------------------------------------
def _sum_dtype(dtype: Any) -> Any:
    return np.float32 if dtype == np.float16 else dtype     # float16 sums lose digits fast: add in float32


@register_op("AvgPool", "AvgPool", inputs=("value",), shape=_pool_shape, allowed=FLOATS,
             c=c_pool.avg_pool, portable=pool_kernels.avg_pool)
def avg_pool_kernel(x: Any, *, ksize: list, strides: list, padding: str, data_format: str = "NHWC") -> Any:
    """y[window] = sum of the window's in-bounds cells / their number (padding is not counted)."""
    windows = windows_for("AvgPool", x, ksize, strides, padding, data_format)
    if windows.empty:
        return np.zeros(from_nhwc_dims(windows.out_shape, data_format), x.dtype)
    views = windows.views(windows.pad(to_nhwc(x, data_format), 0))
    dtype = _sum_dtype(x.dtype)
    total = views[0].astype(dtype) if len(views) == 1 else np.add(views[0], views[1], dtype=dtype)
    for view in views[2:]:
        np.add(total, view, out=total)
    # every window is whole without padding: one divisor (a scalar divide is cheaper than a broadcast one)
    counts = windows.kh * windows.kw if not windows.padded else windows.counts(dtype)
    np.divide(total, counts, out=total, dtype=dtype)
    return from_nhwc(total.astype(x.dtype, copy=False), data_format)


@register_gradient("AvgPool")
def _avg_pool_grad(op: Any, grad: Any) -> Any:
    """dx[cell] = sum over the windows holding the cell of grad[window] / count[window]: the AvgPoolGrad op."""
    return avg_pool_grad(array_ops.shape(op.inputs[0], out_type=dtypes.int32), grad, **_pool_attrs(op))


# --- AvgPoolGrad ------------------------------------------------------------------------------------------
@register_op("AvgPoolGrad", "AvgPoolGrad", inputs=("orig_input_shape", "grad"), shape=_avg_pool_grad_shape,
             same_dtype=(1,), allowed=FLOATS, c=c_pool.avg_pool_grad, portable=pool_kernels.avg_pool_grad)
def avg_pool_grad_kernel(orig_input_shape: Any, grad: Any, *, ksize: list, strides: list, padding: str,
                         data_format: str = "NHWC") -> Any:
    """dx[cell] = sum over the windows holding the cell of grad[window] / count[window]."""
    shape = tuple(int(d) for d in np.asarray(orig_input_shape).reshape(-1))
    windows = Windows("AvgPoolGrad", nhwc_dims(shape, data_format), ksize, strides, padding, data_format)
    check_same_shape("AvgPoolGrad", "grad", from_nhwc_dims(windows.out_shape, data_format), grad.shape)
    g = to_nhwc(grad, data_format)
    if windows.empty:
        return np.zeros(shape, grad.dtype)
    share = g / windows.counts(_sum_dtype(grad.dtype))
    if windows.tiles:       # each cell is in one window: repeat each share over its k_h x k_w block
        n, out_h, out_w, c = windows.out_shape
        blocks = np.broadcast_to(share[:, :, None, :, None, :], (n, out_h, windows.kh, out_w, windows.kw, c))
        dx = blocks.reshape(nhwc_dims(shape, data_format))
    else:
        padded = np.zeros(windows.padded_shape, share.dtype)
        for view in windows.views(padded):
            np.add(view, share, out=view)
        dx = windows.crop(padded)
    return from_nhwc(np.ascontiguousarray(dx, dtype=grad.dtype), data_format)


@register_gradient("AvgPoolGrad")
def _avg_pool_grad_grad(op: Any, grad: Any) -> list:
    """AvgPoolGrad is linear in `grad`, the transpose of AvgPool: d(grad) = AvgPool(grad); none for the shape."""
    return [None, apply_op("AvgPool", [grad], _pool_attrs(op))]


def avg_pool_grad(orig_input_shape: Any, grad: Any, ksize: list, strides: list, padding: str,
                  data_format: str = "NHWC", name: str | None = None) -> Any:
    attrs = {"ksize": list(ksize), "strides": list(strides), "padding": padding, "data_format": data_format}
    return apply_op("AvgPoolGrad", [orig_input_shape, grad], attrs, name=name)


# --- Python wrappers: TensorFlow's names, signatures and defaults ---------------------------------------
def _check_choice(op_type: str, attr: str, value: Any, allowed: tuple) -> None:
    if isinstance(value, (list, tuple)) and attr == "padding":
        raise NotImplementedError(f"{op_type}: explicit padding lists are not supported in webflow; "
                                  "use 'SAME' or 'VALID'")
    if value not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: {choices}.")
    if value in ("EXPLICIT", "NCHW_VECT_C"):
        raise NotImplementedError(f"{op_type}: {attr}='{value}' is not supported in webflow")


def _pool(op_type: str, value: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None,
          name: str | None, default_name: str) -> Any:
    """One 2-D pooling op in name scope `name` (default `default_name`), the op taking the scope's name (as TF)."""
    data_format = data_format or "NHWC"
    max_pool = op_type == "MaxPool"
    _check_choice(op_type, "padding", padding, ("SAME", "VALID", "EXPLICIT") if max_pool else ("SAME", "VALID"))
    _check_choice(op_type, "data_format", data_format,
                  ("NHWC", "NCHW", "NCHW_VECT_C") if max_pool else ("NHWC", "NCHW"))
    channel_index = 1 if data_format.startswith("NC") else 3
    attrs = {"ksize": get_sequence(ksize, 2, channel_index, "ksize"),
             "strides": get_sequence(strides, 2, channel_index, "strides"),
             "padding": padding, "data_format": data_format}
    if max_pool:
        attrs["explicit_paddings"] = []
    with op_scope(name or default_name) as scope:
        return apply_op(op_type, [value], attrs, name=scope or None)


def _one_of(input: Any, value: Any) -> Any:  # noqa: A002 - TensorFlow's argument name
    if input is not None and value is not None:
        raise ValueError("Cannot specify both 'value' and 'input'.")
    return value if input is None else input


def max_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Any:  # noqa: A002
    """TF1 `tf.nn.max_pool`: the max of each window of a 4-D NHWC (or NCHW) tensor; node "MaxPool"."""
    ksize = get_sequence(ksize, 2, 1 if (data_format or "NHWC").startswith("NC") else 3, "ksize")
    if 0 in ksize:
        raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
    return _pool("MaxPool", _one_of(input, value), ksize, strides, padding, data_format, name, "MaxPool")


def avg_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Any:  # noqa: A002
    """TF1 `tf.nn.avg_pool` (also TF1's `avg_pool2d`): the mean of each window's in-bounds cells; node "AvgPool"."""
    return _pool("AvgPool", _one_of(input, value), ksize, strides, padding, data_format, name, "AvgPool")


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",  # noqa: A002
               name: str | None = None) -> Any:
    """`tf.nn.max_pool2d`: max pooling of a 4-D tensor; node "MaxPool2d"."""
    return _pool("MaxPool", input, ksize, strides, padding, data_format, name, "MaxPool2d")


def avg_pool2d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",  # noqa: A002
               name: str | None = None) -> Any:
    """TF2 `tf.nn.avg_pool2d`: average pooling of a 4-D tensor; node "AvgPool2D"."""
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool2D")


def _pool1d(op_type: str, input: Any, ksize: Any, strides: Any, padding: str, data_format: str | None,  # noqa: A002
            name: str | None, default_name: str) -> Any:
    """1-D pooling as TF does it: insert a height-1 axis, pool 2-D, squeeze the axis out."""
    data_format = data_format or "NWC"
    channel_index = 1 if data_format.startswith("NC") else 2
    axis = 1 if data_format == "NWC" else 2
    with op_scope(name or default_name) as scope:
        image = manip_ops.expand_dims(input, axis)
        pooled = _pool(op_type, image, [1] + get_sequence(ksize, 1, channel_index, "ksize"),
                       [1] + get_sequence(strides, 1, channel_index, "strides"), padding,
                       "NHWC" if data_format == "NWC" else "NCHW", scope or None, default_name)
        return manip_ops.squeeze(pooled, [axis])


def _rank_of(op_name: str, input: Any, data_format: str | None) -> int:  # noqa: A002
    """The input's rank, which picks 1-D or 2-D pooling (TF2's max_pool/avg_pool), else TF's errors."""
    shape = convert_to_tensor(input).shape if not hasattr(input, "shape") else TensorShape(input.shape)
    rank = shape.rank if shape.rank is not None or data_format is None else len(data_format)
    if rank is None:
        raise ValueError("Cannot take the length of shape with unknown rank.")
    if rank == 5:
        raise NotImplementedError(f"{op_name}: 3-D pooling (a rank-5 input) is not supported in webflow")
    if rank not in (3, 4):
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={shape} of rank {rank}.")
    return rank


def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: str, data_format: str | None = None,  # noqa: A002
                name: str | None = None) -> Any:
    """TF2 `tf.nn.max_pool`: 1-D or 2-D max pooling picked by the input's rank (3 or 4)."""
    if _rank_of("max_pool", input, data_format) == 3:
        return _pool1d("MaxPool", input, ksize, strides, padding, data_format, name, "MaxPool1d")
    return max_pool2d(input, ksize, strides, padding, data_format, name)


def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: str, data_format: str | None = None,  # noqa: A002
                name: str | None = None) -> Any:
    """TF2 `tf.nn.avg_pool`: 1-D or 2-D average pooling picked by the input's rank; node "AvgPool"."""
    if _rank_of("avg_pool", input, data_format) == 3:
        return _pool1d("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool1D")
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool")


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Any:
    """`tf.nn.max_pool1d`: max pooling over the width of a [batch, width, channels] tensor."""
    return _pool1d("MaxPool", input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Any:
    """`tf.nn.avg_pool1d`: average pooling over the width of a [batch, width, channels] tensor."""
    return _pool1d("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool1D")
