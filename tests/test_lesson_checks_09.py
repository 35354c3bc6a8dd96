"""Lesson 9's exercise checkers (lessons/checks_09.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
"""

from __future__ import annotations

import math
import os
import sys

from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_09 as lesson9  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()


def blank(*args): ...


# --- 9.1 perplexity -----------------------------------------------------------------------------------------------
def reference_perplexity(losses):
    return math.exp(sum(losses) / len(losses))


def test_9_1_perplexity() -> None:
    assert lesson9.exercise_1(reference_perplexity, quiet=True).passed
    fails_with(lesson9.exercise_1, blank, "not started")
    fails_with(lesson9.exercise_1, lambda losses: sum(losses) / len(losses), "mean loss itself")
    fails_with(lesson9.exercise_1, lambda losses: 2 ** (sum(losses) / len(losses)), "bits")
    fails_with(lesson9.exercise_1, lambda losses: math.exp(sum(losses)), "average the losses first")
    fails_with(lesson9.exercise_1, lambda losses: sum(math.exp(x) for x in losses) / len(losses), "then exponentiate")
    fails_with(lesson9.exercise_1, forgets_to_return, "returned None")


def forgets_to_return(losses):
    math.exp(sum(losses) / len(losses))


# --- 9.2 the last real output of dynamic_rnn ----------------------------------------------------------------------
def reference_last_output(outputs, lengths):
    rows = tf.range(tf.shape(outputs)[0])
    return tf.gather_nd(outputs, tf.stack([rows, lengths - 1], axis=1))


def one_hot_last_output(outputs, lengths):  # another right way: a mask over time
    mask = tf.one_hot(lengths - 1, tf.shape(outputs)[1])
    return tf.reduce_sum(outputs * tf.expand_dims(mask, 2), axis=1)


def test_9_2_last_output() -> None:
    assert lesson9.exercise_2(reference_last_output, quiet=True).passed
    assert lesson9.exercise_2(one_hot_last_output, quiet=True).passed
    fails_with(lesson9.exercise_2, blank, "not started")
    fails_with(lesson9.exercise_2, lambda outputs, lengths: outputs[:, -1], "zero for the rows shorter")
    fails_with(lesson9.exercise_2, lambda outputs, lengths: outputs[:, 0], "not each row's last real output")
    fails_with(lesson9.exercise_2, lambda outputs, lengths: [0.0, 0.0], "TensorFlow ops")
    fails_with(lesson9.exercise_2, lambda outputs, lengths: outputs, "should be [batch, units]")


# --- 9.3 temperature ----------------------------------------------------------------------------------------------
def reference_with_temperature(logits, temperature):
    return tf.nn.softmax(logits / temperature)


def test_9_3_with_temperature() -> None:
    assert lesson9.exercise_3(reference_with_temperature, quiet=True).passed
    fails_with(lesson9.exercise_3, blank, "not started")
    fails_with(lesson9.exercise_3, lambda logits, t: tf.nn.softmax(logits * t), "Divide instead")
    fails_with(lesson9.exercise_3, lambda logits, t: tf.nn.softmax(logits), "did not change them")
    fails_with(lesson9.exercise_3, lambda logits, t: logits / t, "not 1")
    fails_with(lesson9.exercise_3, lambda logits, t: tf.nn.softmax(logits / t) ** 2, "sum to")


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson9.exercise_1, lambda losses: 0.0),
                            (lesson9.exercise_2, lambda outputs, lengths: outputs[:, 0]),
                            (lesson9.exercise_3, lambda logits, t: tf.nn.softmax(logits))):
        message = checker(answer, quiet=True).message
        for code in ("gather_nd", "math.exp(", "softmax(logits /", "sum(losses)"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
