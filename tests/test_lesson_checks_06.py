"""Lesson 6's exercise checkers (lessons/checks_06.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
The hand-made broadcast table of exercise 6.3 is also checked against webflow's own shape inference.
"""

from __future__ import annotations

import os
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_06 as lesson6  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()


def blank(*args): ...


# --- 6.1 flatten the images for the matmul ------------------------------------------------------------------------
def reference_logits_of(images, weights):
    return tf.matmul(tf.reshape(images, [-1, 784]), weights)


def test_6_1_logits_of() -> None:
    assert lesson6.exercise_1(reference_logits_of, quiet=True).passed
    fails_with(lesson6.exercise_1, blank, "not started")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(images, weights), "must be equal")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(tf.reshape(images, [-1, 784]),
                                                                     tf.transpose(weights)), "must be equal")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(tf.reshape(images, [3, 784]), weights),
               "batch size is fixed")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(tf.reshape(images, [784, -1]), weights),
               "one per pixel")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(tf.reshape(images, [784, -1]), weights,
                                                                     transpose_a=True), "row by row")
    fails_with(lesson6.exercise_1, lambda images, weights: tf.matmul(
        tf.reshape(tf.transpose(images, [0, 2, 1]), [-1, 784]), weights), "row by row")
    fails_with(lesson6.exercise_1, forgets_to_return_logits, "returned None")


def forgets_to_return_logits(images, weights):
    tf.matmul(tf.reshape(images, [-1, 784]), weights)


# --- 6.2 a bias per row -------------------------------------------------------------------------------------------
def reference_add_row_bias(scores, row_bias):
    return scores + tf.expand_dims(row_bias, 1)


def test_6_2_add_row_bias() -> None:
    assert lesson6.exercise_2(reference_add_row_bias, quiet=True).passed
    assert lesson6.exercise_2(lambda s, b: s + tf.reshape(b, [-1, 1]), quiet=True).passed
    fails_with(lesson6.exercise_2, blank, "not started")
    fails_with(lesson6.exercise_2, lambda scores, bias: scores + bias, "silent kind", "3×3")
    fails_with(lesson6.exercise_2, lambda scores, bias: scores + tf.reshape(bias, [1, -1]), "silent kind")
    fails_with(lesson6.exercise_2, lambda scores, bias: scores - tf.expand_dims(bias, 1), "not scores + the bias")
    fails_with(lesson6.exercise_2, lambda scores, bias: tf.expand_dims(bias, 1), "keep the scores' shape")
    fails_with(lesson6.exercise_2, forgets_to_return_sum, "returned None")


def forgets_to_return_sum(scores, bias):
    scores + tf.expand_dims(bias, 1)


def scores_plus_bias_2x3_only(scores, bias):  # right on the square matrix only because rows == columns
    return scores + bias


# --- 6.3 the static shape of a broadcast --------------------------------------------------------------------------
def reference_broadcast_shape(a, b):
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + list(a), [1] * (rank - len(b)) + list(b)
    result = []
    for x, y in zip(a, b):
        if x != y and 1 not in (x, y):
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
        result.append(y if x == 1 else x)
    return result


def left_aligned(a, b):
    result = []
    for i in range(max(len(a), len(b))):
        x, y = (a[i] if i < len(a) else 1), (b[i] if i < len(b) else 1)
        if x != y and 1 not in (x, y):
            raise ValueError("incompatible")
        result.append(max(x, y))
    return result


def no_check(a, b):
    rank = max(len(a), len(b))
    a, b = [1] * (rank - len(a)) + list(a), [1] * (rank - len(b)) + list(b)
    return [max(x, y) for x, y in zip(a, b)]


def forgets_the_padding(a, b):
    return [max(x, y) for x, y in zip(reversed(a), reversed(b))][::-1]


def returns_none_on_failure(a, b):
    try:
        return reference_broadcast_shape(a, b)
    except ValueError:
        return None


def raises_type_error(a, b):
    try:
        return reference_broadcast_shape(a, b)
    except ValueError:
        raise TypeError("no") from None


def test_6_3_broadcast_shape() -> None:
    assert lesson6.exercise_3(reference_broadcast_shape, quiet=True).passed
    assert lesson6.exercise_3(lambda a, b: tuple(reference_broadcast_shape(a, b)), quiet=True).passed
    fails_with(lesson6.exercise_3, blank, "not started")
    fails_with(lesson6.exercise_3, left_aligned, "from the right")
    fails_with(lesson6.exercise_3, no_check, "neither of them is 1")
    fails_with(lesson6.exercise_3, forgets_the_padding, "padded with 1s")
    fails_with(lesson6.exercise_3, returns_none_on_failure, "cannot be broadcast", "raise ValueError")
    fails_with(lesson6.exercise_3, raises_type_error, "TypeError")
    fails_with(lesson6.exercise_3, lambda a, b: [min(x, y) for x, y in zip(a, b)], "you gave")


def test_the_broadcast_table_is_what_webflow_infers() -> None:
    """The hand-made table of 6.3 agrees with the engine's shape rule for AddV2 (build time)."""
    with tf.Graph().as_default():
        for a, b, want in lesson6.SHAPES_THAT_BROADCAST:
            assert (tf.zeros(a) + tf.zeros(b)).shape.as_list() == want
        for a, b in lesson6.SHAPES_THAT_FAIL:
            with pytest.raises(ValueError, match="Dimensions must be equal"):
                tf.zeros(a) + tf.zeros(b)


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson6.exercise_1, lambda images, weights: tf.matmul(images, weights)),
                            (lesson6.exercise_2, scores_plus_bias_2x3_only),
                            (lesson6.exercise_3, no_check)):
        message = checker(answer, quiet=True).message
        for code in ("reshape(", "[-1, 784]", "expand_dims", "[-1, 1]", "[:, None]", "newaxis"):
            assert code not in message, message
    for a, b, want in lesson6.SHAPES_THAT_BROADCAST:  # 6.3 never shows the right shape of a pair
        message = lesson6.exercise_3(lambda x, y: [0] * max(len(x), len(y)), quiet=True).message
        assert f"{a} and {b}" not in message or str(want) not in message.split("you gave")[-1], message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
