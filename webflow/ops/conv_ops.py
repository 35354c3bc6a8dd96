"""2-D convolution ops: Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, and `tf.nn.conv2d` and friends.

One stanza per op: shape rule (TensorFlow's Conv2DShapeImpl / Conv2DBackpropInputShape rules and messages),
NumPy kernel (im2col + one GEMM, in backends/numpy/conv.py), gradient rule exactly as TensorFlow's nn_grad.py
(Conv2D's gradient *is* a Conv2DBackpropInput and a Conv2DBackpropFilter op, each of which differentiates
into the other two, so second derivatives work), then the Python wrappers with TensorFlow's signatures.

Attributes are TensorFlow's: strides and dilations have 4 entries in data-format order, padding is "SAME",
"VALID" or "EXPLICIT" (then explicit_paddings holds 8 numbers), data_format "NHWC" or "NCHW". The kernels
work in NHWC; NCHW values are transposed in and out (TensorFlow's plain CPU kernel refuses NCHW, its oneDNN
build accepts it: we accept it). Grouped convolutions (input depth a multiple of the filter's) pass the
shape rule as in TensorFlow but the kernels raise UnimplementedError.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values
from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.c import conv as c_conv
from webflow.backends.numpy import conv as conv_kernels
from webflow.backends.portable import conv_kernels as portable_conv
from webflow.framework import dtypes
from webflow.framework.tensor import Tensor
from webflow.framework.tensor_shape import TensorShape
from webflow.framework.windows import effective_window, from_nhwc_dims, get_sequence, nhwc_dims, output_size, spatial_hw
from webflow.ops import array_ops, manip_ops
from webflow.ops.convert import constant_value_as_shape
from webflow.ops.registry import ShapeError, apply_op, op_scope, output_spec, register_gradient, register_op
from webflow.ops.shapes import merge_dims

CONV_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64, dtypes.int32)
PADDINGS = ("SAME", "VALID", "EXPLICIT")
FORMATS = ("NHWC", "NCHW")
_EQUAL = "Dimensions must be equal, but are {a} and {b}"


# --- attributes and data formats -------------------------------------------------------------------------
def _check_window_attrs(attrs: dict) -> None:
    """TensorFlow's build-time checks of strides, dilations and padding (CheckValidPadding)."""
    if len(attrs["dilations"]) != 4:
        raise ShapeError(f"Conv2D requires the dilation attribute to contain 4 values, but got: "
                         f"{len(attrs['dilations'])}")
    if len(attrs["strides"]) != 4:
        raise ShapeError(f"Conv2D on data format {attrs['data_format']} requires the stride attribute to contain "
                         f"4 values, but got: {len(attrs['strides'])}")
    pads = list(attrs.get("explicit_paddings") or [])
    if attrs["padding"] != "EXPLICIT":
        if pads:
            raise ShapeError("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")
        return
    if len(pads) != 8:
        raise ShapeError(f"explicit_paddings attribute must contain 8 values, but got: {len(pads)}")
    for value in pads:
        if value < 0:
            raise ShapeError("All elements of explicit_paddings must be nonnegative")
    batch_and_depth = (0, 1, 2, 3) if attrs["data_format"] == "NCHW" else (0, 1, 6, 7)
    if any(pads[i] for i in batch_and_depth):
        raise ShapeError("Nonzero explicit padding in the batch or depth dimensions is not supported")


def _output_dim(size: int | None, kernel: int | None, stride: int, dilation: int, padding: str, pads: tuple) -> Any:
    """One spatial output dimension at graph-build time (TensorFlow's GetWindowedOutputSizeFromDimsV2)."""
    if stride <= 0:
        raise ShapeError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ShapeError(f"Dilation rate must be >= 1, but got {dilation}")
    if size is None:
        return None
    if padding == "SAME":
        return output_size(size, kernel, stride, dilation, padding)      # ceil(size / stride), whatever the filter
    if kernel is None:
        return None
    effective, padded = effective_window(kernel, dilation), size + sum(pads)
    if padded < effective:
        raise ShapeError(f"Negative dimension size caused by subtracting {effective} from {padded}")
    return output_size(size, kernel, stride, dilation, padding, pads)


def _dims(tensor: Any, rank: int = 4) -> tuple:
    """The static dims of a tensor that must have `rank` dimensions (None where unknown)."""
    if tensor.shape.rank is None:
        return (None,) * rank
    if tensor.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank}")
    return tensor.shape.as_tuple()


def _sizes_as_shape(sizes: Any) -> TensorShape:
    """What is known of a sizes input; a ShapeN output (as the Conv2D gradient makes) is its input's shape."""
    if isinstance(sizes, Tensor) and sizes.op.type == "ShapeN":
        return sizes.op.inputs[sizes.value_index].shape
    if sizes.shape.rank is not None and sizes.shape.rank != 1:
        raise ShapeError(f"Shape must be rank 1 but is rank {sizes.shape.rank}")
    return constant_value_as_shape(sizes)


# --- Conv2D -----------------------------------------------------------------------------------------------
def _conv2d_shape(inputs: list, attrs: dict) -> tuple:
    x, w = inputs
    data_format = attrs["data_format"]
    n, h, width, depth = nhwc_dims(_dims(x), data_format)
    kh, kw, filter_depth, out_depth = _dims(w)
    _check_window_attrs(attrs)
    if depth is not None and filter_depth is not None:
        if filter_depth == 0 or depth % filter_depth:
            raise ShapeError(f"Depth of input ({depth}) is not a multiple of input depth of filter ({filter_depth})")
        groups = depth // filter_depth
        if out_depth is not None and out_depth % groups:
            raise ShapeError(f"Depth of output ({out_depth}) is not a multiple of the number of groups ({groups})")
    (sh, sw), (dh, dw) = (spatial_hw(attrs[name], data_format) for name in ("strides", "dilations"))
    pads = conv_kernels.explicit_hw(attrs)
    oh = _output_dim(h, kh, sh, dh, attrs["padding"], pads[0])
    ow = _output_dim(width, kw, sw, dw, attrs["padding"], pads[1])
    return output_spec(from_nhwc_dims((n, oh, ow, out_depth), data_format), x.dtype.base_dtype)


@register_op("Conv2D", "Conv2D", inputs=("input", "filter"), shape=_conv2d_shape, same_dtype=(0, 1),
             allowed=CONV_TYPES, c=c_conv.conv2d, portable=portable_conv.conv2d)
def conv2d_kernel(input: Any, filter: Any, **attrs: Any) -> Any:  # noqa: A002 - TensorFlow's input names
    """y[b,i,j,k] = sum_{p,q,c} xpad[b, i*sh + p*dh, j*sw + q*dw, c] * filter[p,q,c,k]  (im2col + one GEMM)."""
    return conv_kernels.run_conv2d(input, filter, attrs)


def _window_attrs(op: Any) -> dict:
    """The attributes a convolution's gradient ops copy from the op being differentiated."""
    names = ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu")
    return {name: op.get_attr(name) for name in names}


@register_gradient("Conv2D")
def _conv2d_grad(op: Any, grad: Any) -> list:
    """dinput = Conv2DBackpropInput(shape(input), filter, g); dfilter = Conv2DBackpropFilter(input, shape(filter), g).

    The two shapes come from one ShapeN op, as in TensorFlow (gradients/Conv2D_grad/ShapeN)."""
    attrs = _window_attrs(op)
    input_shape, filter_shape = manip_ops.shape_n([op.inputs[0], op.inputs[1]])
    return [apply_op("Conv2DBackpropInput", [input_shape, op.inputs[1], grad], attrs),
            apply_op("Conv2DBackpropFilter", [op.inputs[0], filter_shape, grad], attrs)]


# --- Conv2DBackpropInput ----------------------------------------------------------------------------------
def _backprop_input_shape(inputs: list, attrs: dict) -> tuple:
    sizes, w, dy = inputs
    data_format = attrs["data_format"]
    n, _, _, dy_depth = nhwc_dims(_dims(dy), data_format)
    w_dims = _dims(w)
    merge_dims(dy_depth, w_dims[3], _EQUAL)
    given = _sizes_as_shape(sizes)
    if given.rank is None:
        given = TensorShape([None] * 4)
    if given.rank == 4:
        given_n, h, width, depth = nhwc_dims(given.as_tuple(), data_format)
        merge_dims(given_n, n, _EQUAL)
    elif given.rank == 2:
        (h, width), depth = given.as_tuple(), w_dims[2]
    else:
        raise ShapeError(f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: "
                         f"{given.rank}")
    return output_spec(from_nhwc_dims((n, h, width, depth), data_format), w.dtype.base_dtype)


@register_op("Conv2DBackpropInput", "Conv2DBackpropInput", inputs=("input_sizes", "filter", "out_backprop"),
             shape=_backprop_input_shape, same_dtype=(1, 2),
             c=c_conv.conv2d_backprop_input, portable=portable_conv.conv2d_backprop_input)
def conv2d_backprop_input_kernel(input_sizes: Any, filter: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """dx = col2im(dy @ filter^T): the adjoint of Conv2D in its input (each window's gradient added back)."""
    return conv_kernels.run_conv2d_backprop_input(input_sizes, filter, out_backprop, attrs)


@register_gradient("Conv2DBackpropInput")
def _conv2d_backprop_input_grad(op: Any, grad: Any) -> list:
    """d filter = Conv2DBackpropFilter(g, shape(filter), dy); d dy = Conv2D(g, filter); the sizes get none."""
    attrs = _window_attrs(op)
    _, w, dy = op.inputs
    return [None, apply_op("Conv2DBackpropFilter", [grad, array_ops.shape(w), dy], attrs),
            apply_op("Conv2D", [grad, w], attrs)]


# --- Conv2DBackpropFilter ---------------------------------------------------------------------------------
def _rank4_from_sizes(sizes: Any, dtype: Any) -> tuple:
    """The output spec of a backprop op whose shape is the 4-vector it is given (a filter's, or an input's)."""
    given = _sizes_as_shape(sizes)
    dims = (None,) * 4 if given.rank is None else given.as_tuple()
    if len(dims) != 4:
        raise ShapeError(f"Shape must be rank 4 but is rank {len(dims)}")
    return output_spec(dims, dtype)


def _backprop_filter_shape(inputs: list, attrs: dict) -> tuple:
    x, sizes, _ = inputs
    return _rank4_from_sizes(sizes, x.dtype.base_dtype)


@register_op("Conv2DBackpropFilter", "Conv2DBackpropFilter", inputs=("input", "filter_sizes", "out_backprop"),
             shape=_backprop_filter_shape, same_dtype=(0, 2),
             c=c_conv.conv2d_backprop_filter, portable=portable_conv.conv2d_backprop_filter)
def conv2d_backprop_filter_kernel(input: Any, filter_sizes: Any, out_backprop: Any, **attrs: Any) -> Any:  # noqa: A002
    """dfilter = cols^T @ dy: the adjoint of Conv2D in its filter (im2col of the input, one GEMM)."""
    return conv_kernels.run_conv2d_backprop_filter(input, filter_sizes, out_backprop, attrs)


@register_gradient("Conv2DBackpropFilter")
def _conv2d_backprop_filter_grad(op: Any, grad: Any) -> list:
    """d input = Conv2DBackpropInput(shape(input), g, dy); d dy = Conv2D(input, g); the sizes get none."""
    attrs = _window_attrs(op)
    x, _, dy = op.inputs
    return [apply_op("Conv2DBackpropInput", [array_ops.shape(x), grad, dy], attrs), None,
            apply_op("Conv2D", [x, grad], attrs)]


# --- Python wrappers (TensorFlow's names, signatures and defaults) -------------------------------------------
def _lookup(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """TensorFlow's deprecated_argument_lookup: `filters` replaces `filter`, but not both at once."""
    if new_value is not None:
        if old_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return new_value
    return old_value


def _convert_padding(padding: Any) -> tuple:
    """("EXPLICIT", 8 numbers) for a list of 4 [before, after] pairs; (padding, []) for a string."""
    if not isinstance(padding, (list, tuple)):
        return padding, []
    explicit = []
    for i, pair in enumerate(padding):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise ValueError(f"When `padding` is a list, each element of `padding` must be a list/tuple of size 2. "
                             f"Received: padding={padding} with element at index {i} of size "
                             f"{len(pair) if isinstance(pair, (list, tuple)) else type(pair)}")
        explicit.extend(int(v) for v in pair)
    if len(padding) != 4:
        raise ValueError(f"When padding is a list, it must be of size 4. Received: padding={padding} of size "
                         f"{len(padding)}")
    return "EXPLICIT", explicit


def _conv(op_type: str, inputs: list, strides: Any, padding: Any, explicit: list, data_format: str | None,
          dilations: Any, use_cudnn_on_gpu: bool = True, name: str | None = None) -> Any:
    """Checks the string attributes as TensorFlow's op definitions do, then applies the op."""
    data_format = data_format or "NHWC"
    for attr, value, allowed in (("padding", padding, PADDINGS), ("data_format", data_format, FORMATS)):
        if not isinstance(value, str):
            raise TypeError(f"Expected string for argument '{attr}' not {value!r}.")
        if value not in allowed:
            listed = ", ".join(f'"{a}"' for a in allowed)
            raise ValueError(f"Attr '{attr}' of '{op_type}' Op passed string '{value}' not in: {listed}.")
    for attr, value in (("strides", strides), ("dilations", dilations)):
        if not isinstance(value, (list, tuple)):
            raise TypeError(f"Expected list for '{attr}' argument to '{op_type}' Op, not {value!r}.")
    if any(value is None for value in inputs):
        raise ValueError(f"Tried to convert '{_conv_input_names(op_type)[inputs.index(None)]}' to a tensor and "
                         f"failed. Error: None values not supported.")
    attrs = {"strides": [int(s) for s in strides], "padding": padding, "explicit_paddings": list(explicit),
             "data_format": data_format, "dilations": [int(d) for d in dilations],
             "use_cudnn_on_gpu": bool(use_cudnn_on_gpu)}
    return apply_op(op_type, inputs, attrs, name=name)


def _conv_input_names(op_type: str) -> tuple:
    from webflow.ops.registry import OPS

    return OPS[op_type].inputs


def _channel_index(data_format: str | None) -> int:
    return 1 if (data_format or "NHWC").startswith("NC") else 3


def conv2d(input: Any, filters: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
           dilations: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.nn.conv2d`: 2-D convolution (cross-correlation) of NHWC `input` with HWIO `filters`."""
    return conv2d_v1(input, filters, strides, padding, True, data_format, dilations, name)


def conv2d_v1(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
              use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
              name: str | None = None, filters: Any = None) -> Any:
    """TF1 `tf.nn.conv2d` (`filter` or `filters`)."""
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    padding, explicit = _convert_padding(padding)
    index = _channel_index(data_format)
    return _conv("Conv2D", [input, filter], get_sequence(strides, 2, index, "strides"), padding, explicit,
                 data_format, get_sequence(dilations, 2, index, "dilations"), use_cudnn_on_gpu, name)


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any, padding: Any = "SAME",  # noqa: A002
                     data_format: str = "NHWC", dilations: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.nn.conv2d_transpose`: the gradient of conv2d w.r.t. its input, as a Conv2DBackpropInput op."""
    with op_scope(name or "conv2d_transpose") as scope:
        index = _channel_index(data_format)
        padding, explicit = _convert_padding(padding)
        strides = get_sequence(strides, 2, index, "strides")
        dilations = get_sequence(dilations, 2, index, "dilations")
        return _conv("Conv2DBackpropInput", [output_shape, filters, input], strides, padding, explicit, data_format,
                     dilations, name=scope or None)


def conv2d_transpose_v1(value: Any = None, filter: Any = None, output_shape: Any = None,  # noqa: A002
                        strides: Any = None, padding: Any = "SAME", data_format: str = "NHWC",
                        name: str | None = None, input: Any = None, filters: Any = None,  # noqa: A002
                        dilations: Any = None) -> Any:
    """TF1 `tf.nn.conv2d_transpose` (`value`/`input`, `filter`/`filters`)."""
    value = _lookup("input", input, "value", value)
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    with op_scope(name or "conv2d_transpose") as scope:
        return conv2d_transpose(value, filter, output_shape, strides, padding, data_format, dilations, scope or None)


def conv2d_backprop_input(input_sizes: Any, filter: Any = None, out_backprop: Any = None,  # noqa: A002
                          strides: Any = None, padding: Any = None, use_cudnn_on_gpu: bool = True,
                          data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1), name: str | None = None,
                          filters: Any = None) -> Any:
    """TF1 `tf.nn.conv2d_backprop_input`: the gradient of conv2d w.r.t. an input of shape `input_sizes`."""
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    padding, explicit = _convert_padding(padding)
    return _conv("Conv2DBackpropInput", [input_sizes, filter, out_backprop], strides, padding, explicit,
                 data_format, dilations, use_cudnn_on_gpu, name)


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,  # noqa: A002
                           padding: Any, use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
                           dilations: Any = (1, 1, 1, 1), name: str | None = None) -> Any:
    """TF1 `tf.nn.conv2d_backprop_filter`: the gradient of conv2d w.r.t. a filter of shape `filter_sizes`."""
    padding, explicit = _convert_padding(padding)
    return _conv("Conv2DBackpropFilter", [input, filter_sizes, out_backprop], strides, padding, explicit,
                 data_format, dilations, use_cudnn_on_gpu, name)


def convolution(input: Any, filters: Any, strides: Any = None, padding: str = "VALID",  # noqa: A002
                data_format: str | None = None, dilations: Any = None, name: str | None = None) -> Any:
    """TF2 `tf.nn.convolution`, for 2-D convolutions (rank-4 input) only: a Conv2D op named 'convolution'."""
    shape = getattr(input, "shape", None)
    rank = shape.rank if hasattr(shape, "rank") else len(values.shape_of(input))
    if rank is not None and rank != 4:
        raise NotImplementedError(f"webflow's convolution supports rank-4 (2-D) inputs only, got rank {rank}")
    index = _channel_index(data_format)
    strides, dilations = get_sequence(strides, 2, index, "strides"), get_sequence(dilations, 2, index, "dilations")
    spatial_strides = spatial_hw(strides, data_format or "NHWC")
    spatial_dilations = spatial_hw(dilations, data_format or "NHWC")
    if max(spatial_strides) > 1 and max(spatial_dilations) > 1:
        raise ValueError(f"`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                         f"strides={np.array(spatial_strides)} and dilation_rate={np.array(spatial_dilations)}")
    with op_scope(name or "convolution") as scope:
        return conv2d_v1(input, filters, strides, padding, True, data_format, dilations, scope or None)


def convolution_v1(input: Any, filter: Any = None, padding: Any = None, strides: Any = None,  # noqa: A002
                   dilation_rate: Any = None, name: str | None = None, data_format: str | None = None,
                   filters: Any = None, dilations: Any = None) -> Any:
    """TF1 `tf.nn.convolution` (`filter`/`filters`, `dilation_rate`/`dilations`)."""
    filter = _lookup("filters", filters, "filter", filter)  # noqa: A001
    dilation_rate = _lookup("dilations", dilations, "dilation_rate", dilation_rate)
    return convolution(input, filter, strides, padding, data_format, dilation_rate, name)
