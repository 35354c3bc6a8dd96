"""C signatures of the convolution kernels (webflow/wasm/conv.c) and the geometry they share with pooling.

`Conv2DShape` mirrors the C struct `wf_conv2d_shape` (webflow_kernels.h): NHWC input, HWIO filter,
explicit padding (TF's SAME: pad_top = total // 2, the extra row/column goes to the bottom/right).
`conv2d_shape(...)` builds it from TensorFlow-style arguments. Kernels take a pointer to it
(`ctypes.byref(shape)`) and, for the GEMM-based ones, a workspace of at least
`wf_conv2d_workspace_f32(shape)` floats; they return 0 (WF_OK), -1 (bad argument) or -2 (workspace too small).
Every kernel also exists as `_f64` (double buffers; the workspace size is in elements either way).
"""

from __future__ import annotations

import ctypes

from webflow.backends.c.library import INT, PTR, SIZE, VOID, declare

_FIELDS = (
    "batch", "in_height", "in_width", "in_channels", "filter_height", "filter_width", "out_channels",
    "stride_height", "stride_width", "dilation_height", "dilation_width", "pad_top", "pad_left",
    "out_height", "out_width",
)


class Conv2DShape(ctypes.Structure):
    """wf_conv2d_shape: the geometry of a conv or pooling window over NHWC data (all sizes in elements)."""

    _fields_ = [(name, ctypes.c_ssize_t) for name in _FIELDS]


def output_size_and_pad(size: int, window: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """(output size, padding before) along one axis, by TensorFlow's SAME/VALID rules."""
    effective = (window - 1) * dilation + 1
    if padding == "VALID":
        return max(0, (size - effective + stride) // stride), 0
    out = (size + stride - 1) // stride
    total = max(0, (out - 1) * stride + effective - size)
    return out, total // 2


def conv2d_shape(input_shape: tuple, window: tuple, out_channels: int, strides: tuple = (1, 1),
                 dilations: tuple = (1, 1), padding: str = "VALID") -> Conv2DShape:
    """The geometry for an NHWC input of `input_shape` and a (height, width) window, TF padding rules."""
    batch, height, width, channels = input_shape
    out_h, pad_top = output_size_and_pad(height, window[0], strides[0], dilations[0], padding)
    out_w, pad_left = output_size_and_pad(width, window[1], strides[1], dilations[1], padding)
    return Conv2DShape(batch, height, width, channels, window[0], window[1], out_channels, strides[0], strides[1],
                       dilations[0], dilations[1], pad_top, pad_left, out_h, out_w)


for _suffix in ("f32", "f64"):  # the same kernels in float and double (conv_template.h)
    declare(f"wf_im2col_{_suffix}", [PTR, PTR, PTR], VOID)
    declare(f"wf_col2im_{_suffix}", [PTR, PTR, PTR], VOID)
    declare(f"wf_conv2d_workspace_{_suffix}", [PTR], SIZE)
    declare(f"wf_conv2d_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_backprop_input_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_backprop_filter_{_suffix}", [PTR, PTR, PTR, PTR, PTR, SIZE], INT)
    declare(f"wf_conv2d_direct_c1_{_suffix}", [PTR, PTR, PTR, PTR], INT)
