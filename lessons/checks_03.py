"""The checkers of lesson 3 (automatic differentiation). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

from checks import Hint, all_close, exercise, flat_numbers, hint_unless

import webflow as wf
import webflow.compat.v1 as tf

# --- 3.1: a gradient by hand ---------------------------------------------------------------------------------------
POINTS = [(1.0, 2.0), (-0.5, 3.0), (2.0, -1.5), (0.3, 0.7)]


def engine_gradient(x: float, y: float) -> list:
    """∂g/∂x and ∂g/∂y of g = x²·y + sin(x·y), by webflow's tf.gradients (float64): what 3.1 is checked against."""
    with tf.Graph().as_default():
        vx, vy = tf.constant(x, tf.float64), tf.constant(y, tf.float64)
        g = vx * vx * vy + tf.sin(vx * vy)
        with tf.Session() as sess:
            return [float(v) for v in sess.run(tf.gradients(g, [vx, vy]))]


def _matches(answer: Callable, formula: Callable) -> bool:
    return all(all_close(flat_numbers(answer(x, y)), formula(x, y)) for x, y in POINTS)


@exercise("3.1")
def exercise_1(gradient_by_hand: Callable) -> None:
    """gradient_by_hand(x, y) -> (∂g/∂x, ∂g/∂y) of g(x, y) = x²·y + sin(x·y), as Python numbers."""
    first = gradient_by_hand(*POINTS[0])
    hint_unless(first is not None, "gradient_by_hand returned None: return the pair (∂g/∂x, ∂g/∂y).")
    hint_unless(len(flat_numbers(first)) == 2,
                f"gradient_by_hand returned {first!r}: return two numbers, (∂g/∂x, ∂g/∂y).")
    hint_unless(not _matches(gradient_by_hand, lambda x, y: engine_gradient(x, y)[::-1]),
                "your two derivatives are right but in the wrong order: ∂g/∂x first, then ∂g/∂y.")
    no_inner_x = lambda x, y: [2 * x * y + math.cos(x * y), engine_gradient(x, y)[1]]  # noqa: E731
    no_inner_y = lambda x, y: [engine_gradient(x, y)[0], x * x + math.cos(x * y)]  # noqa: E731
    hint_unless(not _matches(gradient_by_hand, no_inner_x) and not _matches(gradient_by_hand, no_inner_y),
                "sin(x·y) is sin of the product x·y: the chain rule multiplies its derivative by the derivative "
                "of x·y itself (with respect to the variable you differentiate by).")
    for x, y in POINTS:
        got, want = flat_numbers(gradient_by_hand(x, y)), engine_gradient(x, y)
        hint_unless(all_close(got[:1], want[:1]),
                    f"∂g/∂x is not right at (x, y) = ({x}, {y}): differentiate each term "
                    "of g, holding y fixed; x²·y is y times x².")
        hint_unless(all_close(got[1:], want[1:]),
                    f"∂g/∂y is not right at (x, y) = ({x}, {y}): differentiate each term "
                    "of g, holding x fixed; in x²·y, x² is just a number then.")


# --- 3.2: a numerical gradient --------------------------------------------------------------------------------------
def _cubic(v: list) -> float:
    return v[0] ** 3 + 2.0 * v[0] * v[1] + math.exp(v[1]) - v[2] ** 2


def _cubic_gradient(v: list) -> list:
    return [3 * v[0] ** 2 + 2 * v[1], 2 * v[0] + math.exp(v[1]), -2 * v[2]]


def _forward_difference(f: Callable, xs: list, h: float) -> list:
    return [(f(xs[:i] + [xs[i] + h] + xs[i + 1:]) - f(xs)) / h for i in range(len(xs))]


@exercise("3.2")
def exercise_2(numerical_gradient: Callable) -> None:
    """numerical_gradient(f, xs, h) -> [∂f/∂xs[i] by central differences], f a Python function of a list of floats."""
    xs, h = [1.5, -0.5, 2.0], 1e-3
    before = list(xs)
    got = numerical_gradient(_cubic, xs, h)
    hint_unless(xs == before, f"your function changed the list it was given (now {xs}): change a copy, or put each "
                "coordinate back after using it.")
    hint_unless(got is not None, "numerical_gradient returned None: return the list of partial derivatives.")
    got = flat_numbers(got)
    want = _cubic_gradient(xs)
    hint_unless(len(got) == len(xs),
                f"you returned {len(got)} numbers for a function of {len(xs)} variables: one "
                "partial derivative per coordinate.")
    hint_unless(not all_close(got, [2 * w for w in want], 1e-4),
                "each of your numbers is about twice the derivative: "
                "how far apart are the two points you evaluate f at?")
    hint_unless(not all_close(got, [w / 2 for w in want], 1e-4),
                "each of your numbers is about half the derivative: "
                "how far apart are the two points you evaluate f at?")
    hint_unless(not all_close(got, _forward_difference(_cubic, xs, h), 1e-9),
                "you step only one way (f(x + h) - f(x)): "
                "its error shrinks like h. Step both ways, x + h and x - h, for an error like h².")
    hint_unless(all_close(got, want, 1e-5),
                f"at {xs} your numbers are {[round(g, 6) for g in got]}: for coordinate i, "
                "move only xs[i] (by +h and by -h), leave the others where they are.")


# --- 3.3: a gradient you choose --------------------------------------------------------------------------------------
VALUES, UPSTREAM = [-3.0, 0.5, 2.0, 0.0], [4.0, 0.3, -2.5, -1.0]
WANTED = [max(-1.0, min(1.0, g)) for g in UPSTREAM]


def _graph_run(clip_gradient: Callable) -> tuple:
    with tf.Graph().as_default():
        x = tf.constant(VALUES)
        y = clip_gradient(x)
        if isinstance(y, tuple):
            raise Hint("clip_gradient returned a pair (value, gradient function): that is what the function under "
                       "@tf.custom_gradient returns. Put @tf.custom_gradient on the line above `def`.")
        hint_unless(y is not None, "clip_gradient returned None: return the pair (value, grad).")
        (dx,) = tf.gradients(y, x, grad_ys=tf.constant(UPSTREAM))
        hint_unless(dx is not None, "no gradient reaches x: your value must be computed from x.")
        with tf.Session() as sess:
            value, gradient = sess.run([y, dx])
    return flat_numbers(value), flat_numbers(gradient)


@exercise("3.3")
def exercise_3(clip_gradient: Callable) -> None:
    """clip_gradient(x): the value x unchanged; the gradient flowing back through it clipped to [-1, 1]."""
    value, gradient = _graph_run(clip_gradient)
    hint_unless(len(value) == len(VALUES) and all_close(value, VALUES),
                f"the value changed ({value} for {VALUES}): "
                "in the forward pass clip_gradient must give x back as it is; only the gradient is clipped.")
    hint_unless(not all_close(gradient, UPSTREAM),
                f"the gradient came back unclipped ({gradient} for the upstream "
                f"{UPSTREAM}): grad(dy) must limit dy to [-1, 1].")
    hint_unless(not all_close(gradient, [max(-1.0, min(1.0, v)) for v in VALUES]),
                "your gradient is the clipped *value* "
                "x: grad(dy) receives the gradient flowing back, dy — that is what to clip.")
    hint_unless(all_close(gradient, WANTED),
                f"for the upstream gradient {UPSTREAM} yours is {gradient}: each entry of dy "
                "should be kept where it lies in [-1, 1], and set to the nearest end otherwise.")
    x = wf.constant(VALUES)
    with wf.GradientTape() as tape:  # the same function eagerly, as TF2 code would use it
        tape.watch(x)
        y = clip_gradient(x)
    eager = flat_numbers(tape.gradient(y, x, output_gradients=wf.constant(UPSTREAM)))
    hint_unless(all_close(eager, WANTED),
                f"in a graph it works, but eagerly (GradientTape) the gradient is {eager}: use "
                "only TensorFlow ops on tensors inside clip_gradient and grad.")
