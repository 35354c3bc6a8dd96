"""The checkers of lesson 5 (convolutions). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from checks import Hint, exercise, hint_unless

import webflow.compat.v1 as tf
from webflow.backends.arrays import carray
from webflow.backends.c import conv as c_conv  # declares the C conv kernels
from webflow.backends.c.adapters import fn


def _plain(values: Any) -> Any:
    return values.tolist() if hasattr(values, "tolist") else values


def _rows(values: Any) -> list:
    """A learner's matrix as a list of lists of floats (TypeError when it is not one)."""
    return [[float(v) for v in _plain(row)] for row in _plain(values)]


# --- 5.1: the output size ---------------------------------------------------------------------------------------------
# (n, k, stride, padding): stride 1 and larger, even and odd sizes, a filter as large as the image.
SIZE_CASES = [(28, 5, 1, "SAME"), (28, 5, 1, "VALID"), (28, 2, 2, "SAME"), (7, 3, 2, "VALID"), (7, 3, 2, "SAME"),
              (5, 5, 1, "VALID"), (10, 3, 3, "VALID"), (10, 3, 3, "SAME"), (9, 4, 2, "VALID")]


def conv_output_size(n: int, k: int, stride: int, padding: str) -> int:
    """The height tf.nn.conv2d gives (its static shape) for one n × n image and a k × k filter."""
    with tf.Graph().as_default():
        y = tf.nn.conv2d(tf.zeros([1, n, n, 1]), tf.zeros([k, k, 1, 1]), [1, stride, stride, 1], padding)
        return y.shape.as_list()[1]


@exercise("5.1")
def exercise_1(output_size: Callable) -> None:
    """output_size(n, k, stride, padding) -> the output size TensorFlow gives."""
    for n, k, stride, padding in SIZE_CASES:
        got = output_size(n, k, stride, padding)
        hint_unless(got is not None, "output_size returned None: return the number of output pixels.")
        want = conv_output_size(n, k, stride, padding)
        hint_unless(isinstance(got, int) or float(got) == int(float(got)), f"for n={n}, k={k}, stride={stride}, "
                    f"{padding} you gave {got}: a size is a whole number of pixels — round (which way?).")
        got = int(float(got))
        if padding == "VALID" and stride == 1:
            hint_unless(got == want, f"VALID, stride 1, n={n}, k={k}: you gave {got}. How many positions can a "
                        f"{k}-pixel filter take inside {n} pixels?")
        if padding == "SAME" and stride == 1:
            hint_unless(got == want, f"SAME with stride 1 keeps the size: n={n} should give {want}, you gave {got}.")
        hint_unless(not (stride > 1 and got == conv_output_size(n, k, 1, padding)), f"n={n}, k={k}, stride={stride}, "
                    f"{padding}: you gave the size for stride 1 — a stride of {stride} only visits every "
                    f"{stride}th position.")
        hint_unless(got == want, f"n={n}, k={k}, stride={stride}, {padding}: you gave {got}. Count the filter's "
                    "positions: the first at 0, then every `stride` pixels; VALID stops while the filter still fits, "
                    "SAME keeps every start inside the image (a partial last step still counts: round up).")


# --- 5.2: im2col by hand ----------------------------------------------------------------------------------------------
IMAGES = [([[1, 2, 3], [4, 5, 6], [7, 8, 9]], 2, 2),
          ([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]], 2, 3),
          ([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3], [5, 8, 9, 7, 9], [3, 2, 3, 8, 4]], 3, 2)]


def engine_im2col(image: list, kh: int, kw: int) -> list:
    """The engine's wf_im2col_f32 on a one-channel image (VALID, stride 1)."""
    x = carray.from_value([[[[float(v)] for v in row] for row in image]], tf.float32)
    geometry = c_conv.conv2d_shape(x.shape, (kh, kw), 1)
    cols = carray.empty((geometry.out_height * geometry.out_width, kh * kw), tf.float32)
    fn("wf_im2col_f32")(ctypes.byref(geometry), x.address(), cols.address())
    return cols.tolist()


@exercise("5.2")
def exercise_2(im2col: Callable) -> None:
    """im2col(image, kh, kw) -> one row per output position, the kh * kw pixels under the filter."""
    for image, kh, kw in IMAGES:
        got = im2col([list(row) for row in image], kh, kw)
        hint_unless(got is not None, "im2col returned None: return the matrix, a list of rows.")
        rows = _rows(got)
        want = engine_im2col(image, kh, kw)
        positions, taps = len(want), kh * kw
        size = f"{len(image)} × {len(image[0])}"
        hint_unless(not (len(rows) == taps and len(rows) != positions), f"for a {size} image and a {kh} × {kw} "
                    f"filter you returned {len(rows)} rows: that looks transposed — one row per output position, "
                    "one column per filter tap.")
        hint_unless(len(rows) == positions, f"for a {size} image and a {kh} × {kw} filter you returned {len(rows)} "
                    f"rows: there should be one per position the filter can take inside the image.")
        hint_unless(all(len(row) == taps for row in rows), f"a row should hold the {taps} pixels under a "
                    f"{kh} × {kw} filter; yours hold {sorted({len(row) for row in rows})}.")
        if sorted(map(sorted, rows)) == sorted(map(sorted, want)) and rows != want:
            same_windows = all(sorted(a) == sorted(b) for a, b in zip(rows, want))
            hint_unless(not same_windows, f"for the {size} image, {kh} × {kw} filter, your windows hold the right "
                        "pixels in another order: read the pixels under the filter row by row.")
            raise Hint(f"for the {size} image, {kh} × {kw} filter, your rows are the right windows in another order: "
                       "list the output positions row by row (left to right, then down).")
        hint_unless(rows == want, f"for the image {image} and a {kh} × {kw} filter your first row is {rows[0]}: "
                    "it should be the pixels under the filter at the top-left position.")


# --- 5.3: the filter gradient -----------------------------------------------------------------------------------------
GRADIENT_CASES = [(1, 4, 4, 2, 2, 2, 3), (2, 3, 5, 1, 3, 2, 2)]  # batch, height, width, channels, kh, kw, out


def _numbers(count: int, multiplier: int, modulus: int) -> list:
    return [float(i * multiplier % modulus - modulus // 2) for i in range(count)]


def _tf_filter_gradient(case: tuple) -> tuple:
    """(cols, dy, dW as [K, C_out]) with dW from the Conv2DBackpropFilter tf.gradients adds."""
    n, h, w, c, kh, kw, k = case
    x = _numbers(n * h * w * c, 7, 11)
    oh, ow = h - kh + 1, w - kw + 1
    dy = _numbers(n * oh * ow * k, 3, 5)
    with tf.Graph().as_default():
        x_t = tf.reshape(tf.constant(x), [n, h, w, c])
        w_t = tf.constant(_numbers(kh * kw * c * k, 5, 7), shape=[kh, kw, c, k])
        y = tf.nn.conv2d(x_t, w_t, [1, 1, 1, 1], "VALID")
        (dw,) = tf.gradients(y, [w_t], grad_ys=tf.reshape(tf.constant(dy), [n, oh, ow, k]))
        with tf.Session() as sess:
            dw = sess.run(tf.reshape(dw, [kh * kw * c, k])).tolist()
    geometry = c_conv.conv2d_shape((n, h, w, c), (kh, kw), 1)
    cols = carray.empty((n * oh * ow, kh * kw * c), tf.float32)
    images = carray.from_value(x, tf.float32)  # kept alive while C reads it
    fn("wf_im2col_f32")(ctypes.byref(geometry), images.address(), cols.address())
    return cols.tolist(), [dy[r * k:(r + 1) * k] for r in range(n * oh * ow)], dw


@exercise("5.3")
def exercise_3(filter_gradient: Callable) -> None:
    """filter_gradient(cols [M, K], dy [M, C_out]) -> [K, C_out], as Conv2DBackpropFilter."""
    for case in GRADIENT_CASES:
        cols, dy, want = _tf_filter_gradient(case)
        try:
            got = filter_gradient([list(row) for row in cols], [list(row) for row in dy])
        except (IndexError, ValueError, TypeError) as error:
            raise Hint(f"your function failed on a {len(cols)} × {len(cols[0])} cols and a {len(dy)} × "
                       f"{len(dy[0])} dy: {error}. Which of their dimensions do the two share?") from None
        hint_unless(got is not None, "filter_gradient returned None: return the gradient, a list of rows.")
        rows = _rows(got)
        shape, want_shape = (len(rows), len(rows[0]) if rows else 0), (len(want), len(want[0]))
        hint_unless(not (shape == want_shape[::-1] and shape != want_shape), f"your gradient is {shape[0]} × "
                    f"{shape[1]}: transposed — one row per filter weight (a column of cols), one column per output "
                    "channel.")
        hint_unless(shape == want_shape, f"for cols {len(cols)} × {len(cols[0])} and dy {len(dy)} × {len(dy[0])} "
                    f"your gradient is {shape[0]} × {shape[1]}: it has the filter matrix's shape, "
                    f"{want_shape[0]} × {want_shape[1]}.")
        close = all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for row, wrow in zip(rows, want) for a, b in zip(row, wrow))
        hint_unless(close, f"your gradient's first row is {rows[0]}: the gradient of weight r for output channel j "
                    "adds, over every output position m, the input value that weight multiplied there (cols[m][r]) "
                    "times the output's gradient (dy[m][j]).")
