"""Lesson 3's exercise checkers (lessons/checks_03.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
The engine's gradient that 3.1 is checked against is itself checked against the closed form.
"""

from __future__ import annotations

import math
import os
import sys

from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_03 as lesson3  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402


def blank(*args): ...


# --- 3.1 a gradient by hand -------------------------------------------------------------------------------------------
def reference_gradient_by_hand(x, y):
    return 2 * x * y + y * math.cos(x * y), x * x + x * math.cos(x * y)


def test_the_engine_agrees_with_the_closed_form() -> None:
    for x, y in lesson3.POINTS:
        want = reference_gradient_by_hand(x, y)
        assert all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(lesson3.engine_gradient(x, y), want))


def test_3_1_gradient_by_hand() -> None:
    assert lesson3.exercise_1(reference_gradient_by_hand, quiet=True).passed
    assert lesson3.exercise_1(lambda x, y: list(reference_gradient_by_hand(x, y)), quiet=True).passed
    fails_with(lesson3.exercise_1, blank, "not started")
    fails_with(lesson3.exercise_1, lambda x, y: reference_gradient_by_hand(x, y)[::-1], "wrong order")
    fails_with(lesson3.exercise_1, lambda x, y: (2 * x * y + math.cos(x * y), x * x + x * math.cos(x * y)),
               "chain rule")
    fails_with(lesson3.exercise_1, lambda x, y: (2 * x * y + y * math.cos(x * y), x * x + math.cos(x * y)),
               "chain rule")
    fails_with(lesson3.exercise_1, lambda x, y: (2 * x + y * math.cos(x * y), x * x + x * math.cos(x * y)),
               "∂g/∂x is not right", "holding y fixed")
    fails_with(lesson3.exercise_1, lambda x, y: (2 * x * y + y * math.cos(x * y), 2 * x + x * math.cos(x * y)),
               "∂g/∂y is not right")
    fails_with(lesson3.exercise_1, lambda x, y: 2 * x * y, "two numbers")
    fails_with(lesson3.exercise_1, forgets_to_return, "returned None")


def forgets_to_return(x, y):
    2 * x * y + y * math.cos(x * y)


# --- 3.2 a numerical gradient ---------------------------------------------------------------------------------------
def reference_numerical_gradient(f, xs, h):
    result = []
    for i in range(len(xs)):
        up, down = list(xs), list(xs)
        up[i] += h
        down[i] -= h
        result.append((f(up) - f(down)) / (2 * h))
    return result


def forward_difference(f, xs, h):
    return [(f(xs[:i] + [xs[i] + h] + xs[i + 1:]) - f(xs)) / h for i in range(len(xs))]


def divides_by_h(f, xs, h):
    return [2 * g for g in reference_numerical_gradient(f, xs, h)]


def divides_by_4h(f, xs, h):
    return [g / 2 for g in reference_numerical_gradient(f, xs, h)]


def changes_xs(f, xs, h):
    result = []
    for i in range(len(xs)):
        xs[i] += h
        up = f(xs)
        xs[i] -= 2 * h
        result.append((up - f(xs)) / (2 * h))  # never moved back: xs[i] ends h too low
    return result


def moves_every_coordinate(f, xs, h):
    up, down = [v + h for v in xs], [v - h for v in xs]
    return [(f(up) - f(down)) / (2 * h)] * len(xs)


def test_3_2_numerical_gradient() -> None:
    assert lesson3.exercise_2(reference_numerical_gradient, quiet=True).passed
    fails_with(lesson3.exercise_2, blank, "not started")
    fails_with(lesson3.exercise_2, forward_difference, "only one way")
    fails_with(lesson3.exercise_2, divides_by_h, "twice the derivative")
    fails_with(lesson3.exercise_2, divides_by_4h, "half the derivative")
    fails_with(lesson3.exercise_2, changes_xs, "changed the list")
    fails_with(lesson3.exercise_2, moves_every_coordinate, "move only xs[i]")
    fails_with(lesson3.exercise_2, lambda f, xs, h: reference_numerical_gradient(f, xs, h)[:2], "one partial")


# --- 3.3 clip the gradient ------------------------------------------------------------------------------------------
@tf.custom_gradient
def reference_clip_gradient(x):
    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0)
    return tf.identity(x), grad


def undecorated(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)


@tf.custom_gradient
def clips_the_value(x):
    return tf.clip_by_value(x, -1.0, 1.0), lambda dy: tf.clip_by_value(dy, -1.0, 1.0)


@tf.custom_gradient
def passes_dy_through(x):
    return tf.identity(x), lambda dy: dy


@tf.custom_gradient
def clips_x_in_grad(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(x, -1.0, 1.0)


@tf.custom_gradient
def clips_to_half(x):
    return tf.identity(x), lambda dy: tf.clip_by_value(dy, -0.5, 0.5)


def test_3_3_clip_gradient() -> None:
    assert lesson3.exercise_3(reference_clip_gradient, quiet=True).passed
    assert lesson3.exercise_3(lambda x: reference_clip_gradient(x), quiet=True).passed

    @tf.custom_gradient
    def blank_decorated(x):
        ...

    fails_with(lesson3.exercise_3, blank_decorated, "not started")
    fails_with(lesson3.exercise_3, undecorated, "@tf.custom_gradient")
    fails_with(lesson3.exercise_3, clips_the_value, "the value changed")
    fails_with(lesson3.exercise_3, passes_dy_through, "unclipped")
    fails_with(lesson3.exercise_3, clips_x_in_grad, "clipped *value*")
    fails_with(lesson3.exercise_3, clips_to_half, "nearest end")
    fails_with(lesson3.exercise_3, lambda x: tf.clip_by_value(x, -1.0, 1.0), "the value changed")


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson3.exercise_1, lambda x, y: (2 * x * y + math.cos(x * y), x * x)),
                            (lesson3.exercise_2, forward_difference),
                            (lesson3.exercise_3, passes_dy_through)):
        message = checker(answer, quiet=True).message
        for code in ("cos(x * y)", "y * math.cos", "(f(up) - f(down))", "/ (2 * h)", "clip_by_value(dy", "-1.0, 1.0"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
