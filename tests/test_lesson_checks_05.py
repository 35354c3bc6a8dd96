"""Lesson 5's exercise checkers (lessons/checks_05.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
The checkers' oracles (the engine's im2col, tf.nn.conv2d's shapes, Conv2DBackpropFilter) are checked against
NumPy where it is installed, and against TensorFlow's documented size formulas.
"""

from __future__ import annotations

import math
import os
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_05 as lesson5  # noqa: E402


def blank(*args): ...


# --- 5.1 the output size ----------------------------------------------------------------------------------------------
def reference_output_size(n, k, stride, padding):
    return math.ceil(n / stride) if padding == "SAME" else math.ceil((n - k + 1) / stride)


def test_5_1_output_size() -> None:
    assert lesson5.exercise_1(reference_output_size, quiet=True).passed
    assert lesson5.exercise_1(lambda n, k, s, p: (n + s - 1) // s if p == "SAME" else (n - k) // s + 1,
                              quiet=True).passed
    fails_with(lesson5.exercise_1, blank, "not started")
    fails_with(lesson5.exercise_1, lambda n, k, s, p: n - k + 1, "SAME with stride 1 keeps the size")
    fails_with(lesson5.exercise_1, lambda n, k, s, p: n if p == "SAME" else n - k + 1, "size for stride 1")
    fails_with(lesson5.exercise_1, lambda n, k, s, p: n / s if p == "SAME" else (n - k) / s + 1, "whole number")
    fails_with(lesson5.exercise_1, lambda n, k, s, p: n // s if p == "SAME" else (n - k) // s + 1, "round up")
    fails_with(lesson5.exercise_1, lambda n, k, s, p: n if p == "SAME" else n - k, "How many positions")


def test_the_sizes_follow_tensorflows_formulas() -> None:
    """TensorFlow's documented rule: SAME gives ceil(n / s), VALID ceil((n - k + 1) / s)."""
    for n, k, stride, padding in lesson5.SIZE_CASES:
        assert lesson5.conv_output_size(n, k, stride, padding) == reference_output_size(n, k, stride, padding)


# --- 5.2 im2col by hand -----------------------------------------------------------------------------------------------
def reference_im2col(image, kh, kw):
    return [[image[i + p][j + q] for p in range(kh) for q in range(kw)]
            for i in range(len(image) - kh + 1) for j in range(len(image[0]) - kw + 1)]


def windows_column_major(image, kh, kw):
    return [[image[i + p][j + q] for q in range(kw) for p in range(kh)]
            for i in range(len(image) - kh + 1) for j in range(len(image[0]) - kw + 1)]


def positions_column_major(image, kh, kw):
    return [[image[i + p][j + q] for p in range(kh) for q in range(kw)]
            for j in range(len(image[0]) - kw + 1) for i in range(len(image) - kh + 1)]


def transposed_im2col(image, kh, kw):
    return [list(column) for column in zip(*reference_im2col(image, kh, kw))]


def same_padded_count(image, kh, kw):
    return [[0] * (kh * kw) for _ in range(len(image) * len(image[0]))]


def test_5_2_im2col() -> None:
    assert lesson5.exercise_2(reference_im2col, quiet=True).passed
    fails_with(lesson5.exercise_2, blank, "not started")
    fails_with(lesson5.exercise_2, windows_column_major, "another order", "row by row")
    fails_with(lesson5.exercise_2, positions_column_major, "output positions row by row")
    fails_with(lesson5.exercise_2, transposed_im2col, "transposed")
    fails_with(lesson5.exercise_2, same_padded_count, "one per position the filter can take")
    fails_with(lesson5.exercise_2, lambda image, kh, kw: [row[1:] for row in reference_im2col(image, kh, kw)],
               "pixels under a")
    fails_with(lesson5.exercise_2, lambda image, kh, kw: [[v + 1 for v in row] for row in
                                                          reference_im2col(image, kh, kw)], "top-left position")


def test_the_engines_im2col_agrees_with_numpy() -> None:
    np = pytest.importorskip("numpy")
    for image, kh, kw in lesson5.IMAGES:
        x = np.asarray(image, dtype=np.float32)
        windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw)).reshape(-1, kh * kw)
        assert lesson5.engine_im2col(image, kh, kw) == windows.tolist()


# --- 5.3 the filter gradient ------------------------------------------------------------------------------------------
def reference_filter_gradient(cols, dy):
    return [[sum(cols[m][r] * dy[m][j] for m in range(len(cols))) for j in range(len(dy[0]))]
            for r in range(len(cols[0]))]


def test_5_3_filter_gradient() -> None:
    assert lesson5.exercise_3(reference_filter_gradient, quiet=True).passed
    fails_with(lesson5.exercise_3, blank, "not started")
    fails_with(lesson5.exercise_3, lambda cols, dy: [list(r) for r in zip(*reference_filter_gradient(cols, dy))],
               "transposed")
    fails_with(lesson5.exercise_3, lambda cols, dy: [[sum(cols[m][r] * dy[m][j] for m in range(len(cols)))
                                                      for r in range(len(cols[0]))] for j in range(len(dy))],
               "Which of their dimensions")
    fails_with(lesson5.exercise_3, lambda cols, dy: [[cols[0][r] * dy[0][j] for j in range(len(dy[0]))]
                                                     for r in range(len(cols[0]))], "over every output position")
    fails_with(lesson5.exercise_3, lambda cols, dy: [[1.0]], "filter matrix's shape")


def test_the_filter_gradient_oracle_agrees_with_numpy() -> None:
    """Conv2DBackpropFilter (through tf.gradients) equals im2col(x)ᵀ · dy computed by NumPy."""
    np = pytest.importorskip("numpy")
    for case in lesson5.GRADIENT_CASES:
        cols, dy, want = lesson5._tf_filter_gradient(case)
        assert np.allclose(np.asarray(cols).T @ np.asarray(dy), np.asarray(want), atol=1e-4)


def test_the_oracles_agree_with_real_tensorflow() -> None:
    """5.1's sizes and 5.3's filter gradients, from TensorFlow 2.21 itself (WEBFLOW_TF_PYTHON)."""
    if not os.environ.get("WEBFLOW_TF_PYTHON"):
        pytest.skip("WEBFLOW_TF_PYTHON is not set: no TensorFlow to compare with")
    pytest.importorskip("numpy")
    from tf_subprocess import run_tensorflow

    programs = {}
    for i, (n, k, stride, padding) in enumerate(lesson5.SIZE_CASES):
        programs[f"size{i}"] = (f"result = tf.nn.conv2d(tf.zeros([1, {n}, {n}, 1]), tf.zeros([{k}, {k}, 1, 1]), "
                                f"[1, {stride}, {stride}, 1], {padding!r}).shape.as_list()[1]")
    for i, (n, h, w, c, kh, kw, k) in enumerate(lesson5.GRADIENT_CASES):
        oh, ow = h - kh + 1, w - kw + 1
        numbers = "lambda count, m, q: [float(i * m % q - q // 2) for i in range(count)]"
        programs[f"grad{i}"] = (
            f"numbers = {numbers}\n"
            f"x = tf.reshape(tf.constant(numbers({n * h * w * c}, 7, 11)), [{n}, {h}, {w}, {c}])\n"
            f"f = tf.constant(numbers({kh * kw * c * k}, 5, 7), shape=[{kh}, {kw}, {c}, {k}])\n"
            f"dy = tf.reshape(tf.constant(numbers({n * oh * ow * k}, 3, 5)), [{n}, {oh}, {ow}, {k}])\n"
            f"(dw,) = tf.gradients(tf.nn.conv2d(x, f, [1, 1, 1, 1], 'VALID'), [f], grad_ys=dy)\n"
            f"result = tf.Session().run(tf.reshape(dw, [{kh * kw * c}, {k}]))")
    real = run_tensorflow(programs)
    for i, case in enumerate(lesson5.SIZE_CASES):
        assert real[f"size{i}"] == lesson5.conv_output_size(*case)
    for i, case in enumerate(lesson5.GRADIENT_CASES):
        assert real[f"grad{i}"] == lesson5._tf_filter_gradient(case)[2]


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson5.exercise_1, lambda n, k, s, p: n - k + 1),
                            (lesson5.exercise_2, transposed_im2col),
                            (lesson5.exercise_3, lambda cols, dy: [[1.0]])):
        message = checker(answer, quiet=True).message
        for code in ("ceil(", "// s", "image[i + p][j + q]", "zip(*"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
