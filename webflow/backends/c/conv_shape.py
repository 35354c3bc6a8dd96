"""`Conv2DShape`: the window geometry every convolution and pooling kernel takes (the C struct `wf_conv2d_shape`).

It mirrors `wf_conv2d_shape` in webflow/wasm/webflow_kernels.h field for field: NHWC input, HWIO filter,
strides, dilations, explicit padding (TensorFlow's SAME: pad_top = total // 2, the extra row/column goes to
the bottom/right) and the output size. `conv2d_shape(...)` builds it from TensorFlow-style arguments.
conv.py, conv_direct.py and pool.py import it from here (conv.py re-exports it).
"""

from __future__ import annotations

import ctypes

from webflow.framework.windows import output_size, padding_before_after

_FIELDS = (
    "batch", "in_height", "in_width", "in_channels", "filter_height", "filter_width", "out_channels",
    "stride_height", "stride_width", "dilation_height", "dilation_width", "pad_top", "pad_left",
    "out_height", "out_width",
)


class Conv2DShape(ctypes.Structure):
    """wf_conv2d_shape: the geometry of a conv or pooling window over NHWC data (all sizes in elements)."""

    _fields_ = [(name, ctypes.c_ssize_t) for name in _FIELDS]


def output_size_and_pad(size: int, window: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """(output size, padding before) along one axis, by TensorFlow's SAME/VALID rules (framework/windows.py)."""
    if padding == "VALID":
        return max(0, output_size(size, window, stride, dilation, "VALID")), 0
    out = output_size(size, window, stride, dilation, "SAME")
    return out, padding_before_after(size, window, stride, dilation, "SAME", out)[0]


def conv2d_shape(input_shape: tuple, window: tuple, out_channels: int, strides: tuple = (1, 1),
                 dilations: tuple = (1, 1), padding: str = "VALID") -> Conv2DShape:
    """The geometry for an NHWC input of `input_shape` and a (height, width) window, TF padding rules."""
    batch, height, width, channels = input_shape
    out_h, pad_top = output_size_and_pad(height, window[0], strides[0], dilations[0], padding)
    out_w, pad_left = output_size_and_pad(width, window[1], strides[1], dilations[1], padding)
    return Conv2DShape(batch, height, width, channels, window[0], window[1], out_channels, strides[0], strides[1],
                       dilations[0], dilations[1], pad_top, pad_left, out_h, out_w)
