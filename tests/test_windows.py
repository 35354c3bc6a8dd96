"""framework/windows.py (TensorFlow's sliding-window arithmetic) against values derived by hand.

Each row: size, window, stride, dilation, padding, explicit pads -> output size, (pad before, pad after).
SAME: out = ceil(size / stride), pad_total = max((out - 1) * stride + effective - size, 0), the odd cell after.
VALID: out = (size - effective + stride) / stride truncated toward zero (C++), so it may be negative.
"""

from __future__ import annotations

import pytest

from webflow.framework import windows

CASES = [
    # size, window, stride, dilation, padding, pads, out, (before, after)
    (28, 5, 1, 1, "SAME", (0, 0), 28, (2, 2)),      # 27 + 5 - 28 = 4 cells of padding
    (28, 5, 1, 1, "VALID", (0, 0), 24, (0, 0)),     # (28 - 5 + 1) / 1
    (7, 3, 2, 1, "VALID", (0, 0), 3, (0, 0)),       # (7 - 3 + 2) / 2
    (7, 3, 2, 1, "SAME", (0, 0), 4, (1, 1)),        # ceil(7 / 2); 3 * 2 + 3 - 7 = 2
    (5, 2, 2, 1, "SAME", (0, 0), 3, (0, 1)),        # ceil(5 / 2); 2 * 2 + 2 - 5 = 1: the odd cell after
    (4, 2, 2, 1, "SAME", (0, 0), 2, (0, 0)),        # windows tile the input: no padding
    (7, 3, 1, 2, "VALID", (0, 0), 3, (0, 0)),       # dilation 2: effective window 5, (7 - 5 + 1) / 1
    (7, 3, 1, 2, "SAME", (0, 0), 7, (2, 2)),        # 6 * 1 + 5 - 7 = 4
    (5, 3, 2, 1, "EXPLICIT", (1, 2), 3, (1, 2)),    # (5 + 3 - 3 + 2) / 2 = 7 / 2
    (5, 3, 2, 1, "VALID", (1, 2), 2, (0, 0)),       # pads only count for EXPLICIT
    (2, 5, 1, 1, "VALID", (0, 0), -2, (0, 0)),      # negative: (2 - 5 + 1) / 1, each caller raises its error
    (1, 5, 2, 1, "VALID", (0, 0), -1, (0, 0)),      # (1 - 5 + 2) / 2 = -2 / 2
    (2, 5, 2, 1, "VALID", (0, 0), 0, (0, 0)),       # (2 - 5 + 2) / 2 = -1 / 2 truncates to 0 (floor would be -1)
]


@pytest.mark.parametrize("size, window, stride, dilation, padding, pads, out, before_after", CASES)
def test_output_size_and_padding(size, window, stride, dilation, padding, pads, out, before_after):
    assert windows.output_size(size, window, stride, dilation, padding, pads) == out
    assert windows.padding_before_after(size, window, stride, dilation, padding, out, pads) == before_after


def test_same_ignores_the_window():
    assert windows.output_size(10, None, 3, 1, "SAME") == 4     # a partial shape: the filter size is unknown


@pytest.mark.parametrize("window, dilation, effective", [(1, 1, 1), (3, 1, 3), (3, 2, 5), (1, 4, 1), (2, 3, 4)])
def test_effective_window(window, dilation, effective):
    assert windows.effective_window(window, dilation) == effective


@pytest.mark.parametrize("a, b, quotient", [(7, 2, 3), (-7, 2, -3), (-1, 2, 0), (7, -2, -3), (-7, -2, 3), (6, 3, 2)])
def test_c_div_truncates_toward_zero(a, b, quotient):
    assert windows.c_div(a, b) == quotient


@pytest.mark.parametrize("data_format, dims, nhwc", [
    ("NCHW", (1, 2, 3, 4), (1, 3, 4, 2)),
    ("NCHW", (None, 3, None, 5), (None, None, 5, 3)),
    ("NHWC", (1, 2, 3, 4), (1, 2, 3, 4)),
    ("NCHW", (6, 7), (6, 7)),                                   # not 4 dims: as they are
])
def test_dims_order(data_format, dims, nhwc):
    assert windows.nhwc_dims(dims, data_format) == nhwc
    assert windows.nhwc_dims(list(dims), data_format) == nhwc  # lists come back as tuples
    assert windows.from_nhwc_dims(nhwc, data_format) == tuple(dims)


def test_permutations_are_inverse():
    assert windows.TO_NHWC == (0, 2, 3, 1) and windows.FROM_NHWC == (0, 3, 1, 2)
    assert tuple(windows.TO_NHWC[i] for i in windows.FROM_NHWC) == (0, 1, 2, 3)


@pytest.mark.parametrize("data_format, hw", [("NCHW", (30, 40)), ("NHWC", (20, 30))])
def test_spatial_hw(data_format, hw):
    assert windows.spatial_hw([10, 20, 30, 40], data_format) == hw
