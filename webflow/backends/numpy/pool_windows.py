"""Where pooling windows fall on an image, as TensorFlow places them, and vectorized views of them.

A k_h x k_w window slides over the height and width of an NHWC image with strides s_h, s_w. Instead of
looping over pixels, the pooling kernels loop over the k_h * k_w cells of a window: `Windows.view(x, i, j)`
is ONE strided view of the (padded) input holding cell (i, j) of every window of every image and channel,
so each step is one NumPy call. The MNIST CNN's 2x2 stride-2 pooling is four views of its input.

TensorFlow's geometry (framework/windows.py): 'VALID' windows lie inside the input, out = (in - k + s) / s.
'SAME' gives out = ceil(in / s) and pads pad_total = max((out - 1) * s + k - in, 0) cells, pad_total // 2 of
them before (the odd one goes after). NCHW tensors are handled as NHWC views (`to_nhwc`, `from_nhwc`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.framework.errors import InvalidArgumentError, UnimplementedError
from webflow.framework.windows import FROM_NHWC, TO_NHWC, nhwc_dims, output_size, padding_before_after, spatial_hw


def _axis(op_type: str, size: int, k: int, s: int, padding: str) -> tuple:
    """(out, pad_before, pad_after) along one spatial axis; pad_after counts the cells the last window needs."""
    rule = "VALID" if padding == "VALID" else "SAME"      # pooling has no EXPLICIT rule: anything else is SAME
    out = output_size(size, k, s, 1, rule)
    if out < 0:
        raise InvalidArgumentError(None, None, f"{op_type}: Computed output size would be negative: {out} "
                                               f"[input_size: {size}, effective_filter_size: {k}, stride: {s}]")
    return (out, *padding_before_after(size, k, s, 1, rule, out))


def to_nhwc(x: Any, data_format: str) -> Any:
    """An NCHW array as an NHWC view (no copy); NHWC arrays as they are."""
    return x.transpose(TO_NHWC) if data_format == "NCHW" and x.ndim == 4 else x


def from_nhwc(y: Any, data_format: str) -> Any:
    """An NHWC result back in `data_format`'s layout."""
    return np.ascontiguousarray(y.transpose(FROM_NHWC)) if data_format == "NCHW" else y


class Windows:
    """Where the pooling windows fall on an NHWC input of shape `shape`, with views of each window cell."""

    def __init__(self, op_type: str, shape: tuple, ksize: list, strides: list, padding: str, data_format: str):
        _check_window_attrs(op_type, shape, ksize, strides, data_format)
        self.n, self.h, self.w, self.c = shape
        (self.kh, self.kw), (self.sh, self.sw) = spatial_hw(ksize, data_format), spatial_hw(strides, data_format)
        self.out_h, self.top, self.bottom = _axis(op_type, self.h, self.kh, self.sh, padding)
        self.out_w, self.left, self.right = _axis(op_type, self.w, self.kw, self.sw, padding)
        self.out_shape = (self.n, self.out_h, self.out_w, self.c)
        self.empty = 0 in self.out_shape
        self.padded = any((self.top, self.bottom, self.left, self.right))
        # windows tile the input exactly (ksize == strides, size divisible): each cell is in one window
        self.tiles = (not self.padded and (self.kh, self.kw) == (self.sh, self.sw)
                      and self.h == self.out_h * self.kh and self.w == self.out_w * self.kw)
        self.padded_shape = (self.n, self.top + self.h + self.bottom, self.left + self.w + self.right, self.c)

    def pad(self, x: Any, fill: Any) -> Any:
        """x with `fill` around it where the windows reach past the input (x itself when they do not)."""
        if not self.padded:
            return x
        padded = np.full(self.padded_shape, fill, dtype=x.dtype)
        self.crop(padded)[...] = x
        return padded

    def crop(self, padded: Any) -> Any:
        return padded[:, self.top:self.top + self.h, self.left:self.left + self.w] if self.padded else padded

    def view(self, padded: Any, i: int, j: int) -> Any:
        """[n, out_h, out_w, c] view: cell (i, j) of every window (no copy)."""
        return padded[:, i:i + self.sh * (self.out_h - 1) + 1:self.sh, j:j + self.sw * (self.out_w - 1) + 1:self.sw]

    def views(self, padded: Any) -> list:
        return [self.view(padded, i, j) for i in range(self.kh) for j in range(self.kw)]

    def counts(self, dtype: Any) -> Any:
        """[out_h, out_w, 1]: how many in-bounds cells each window covers (the average's divisor)."""
        def per_axis(out: int, k: int, s: int, before: int, size: int) -> Any:
            starts = np.arange(out) * s - before
            return np.minimum(starts + k, size) - np.maximum(starts, 0)

        rows = per_axis(self.out_h, self.kh, self.sh, self.top, self.h)
        cols = per_axis(self.out_w, self.kw, self.sw, self.left, self.w)
        return np.multiply.outer(rows, cols).astype(dtype)[:, :, None]


def _check_window_attrs(op_type: str, shape: tuple, ksize: list, strides: list, data_format: str) -> None:
    """TensorFlow's kernel-time checks of a pooling op's input rank and window attrs."""
    if len(shape) != 4:
        raise InvalidArgumentError(None, None, f"{op_type}: input must be 4-dimensional, got shape {list(shape)}")
    if len(ksize) != 4 or len(strides) != 4:
        raise InvalidArgumentError(None, None, f"{op_type}: Sliding window ksize and stride fields must specify 4 "
                                               "dimensions")
    if min(ksize) <= 0:
        raise InvalidArgumentError(None, None, f"{op_type}: Sliding window ksize must be positive. The specified "
                                               f"or inferred ksize is: {','.join(map(str, ksize))}")
    if min(strides) <= 0:
        raise InvalidArgumentError(None, None, f"{op_type}: Stride must be > 0, but got {min(strides)}")
    if ksize[0] != 1 or strides[0] != 1:
        raise UnimplementedError(None, None, f"{op_type}: Pooling is not yet supported on the batch dimension.")
    channel = 1 if data_format == "NCHW" else 3
    if ksize[channel] != 1 or strides[channel] != 1:
        raise UnimplementedError(None, None, f"{op_type}: pooling over the channel dimension (ksize={ksize}, "
                                             f"strides={strides}) is not supported in webflow")


def windows_for(op_type: str, x: Any, ksize: list, strides: list, padding: str, data_format: str) -> Windows:
    return Windows(op_type, nhwc_dims(x.shape, data_format), ksize, strides, padding, data_format)


def never_max(dtype: Any) -> Any:
    """Padding for max pooling: NaN for floats (np.fmax skips it, and it equals nothing), else the minimum."""
    return np.nan if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def window_max(windows: Windows, padded: Any) -> Any:
    """Elementwise max over the window cells (np.fmax: padding NaNs never win)."""
    views = windows.views(padded)
    if len(views) == 1:
        return views[0].copy()
    best = np.fmax(views[0], views[1])
    for view in views[2:]:
        np.fmax(best, view, out=best)
    return best


def first_max_cells(windows: Windows, x: Any) -> Iterator[tuple]:
    """Yields (i, j, hit) per window cell in row-major order; hit marks the windows whose first max is there."""
    padded = windows.pad(x, never_max(x.dtype))
    best = window_max(windows, padded)
    unclaimed = np.ones(best.shape, dtype=bool)
    for i in range(windows.kh):
        for j in range(windows.kw):
            hit = np.equal(windows.view(padded, i, j), best)
            hit &= unclaimed
            unclaimed ^= hit        # a later equal cell (a tie) is not the argmax
            yield i, j, hit


def check_same_shape(op_type: str, what: str, expected: tuple, got: tuple) -> None:
    if tuple(expected) != tuple(got):
        expected_text, got_text = ",".join(map(str, expected)), ",".join(map(str, got))
        raise InvalidArgumentError(None, None, f"{op_type}: Expected {what} shape to be [{expected_text}], "
                                               f"but got [{got_text}]")
