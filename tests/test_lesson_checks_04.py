"""Lesson 4's exercise checkers (lessons/checks_04.py), tested both ways: the reference solution passes; a blank and
typical wrong answers fail with a hint pointing at the mistake. Also run with NumPy blocked, as in JupyterLite.
The reference solutions live here, not in lessons/, so a learner reading the lesson's folder does not find them.
The checkers' hand-made answers are checked against NumPy where it is installed.
"""

from __future__ import annotations

import os
import sys

import pytest
from lesson_check_helpers import fails_with, rerun_without_numpy

LESSONS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lessons")
sys.path.insert(0, LESSONS)

import checks_04 as lesson4  # noqa: E402

import webflow.compat.v1 as tf  # noqa: E402


def blank(*args): ...


# --- 4.1 accuracy as a tensor -----------------------------------------------------------------------------------------
def reference_accuracy_of(logits, labels):
    return tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))


def test_4_1_accuracy_of() -> None:
    assert lesson4.exercise_1(reference_accuracy_of, quiet=True).passed
    assert lesson4.exercise_1(lambda logits, labels: tf.reduce_mean(tf.cast(tf.equal(
        tf.argmax(tf.nn.softmax(logits), axis=-1), labels), tf.float32)), quiet=True).passed
    fails_with(lesson4.exercise_1, blank, "not started")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.reduce_mean(tf.cast(tf.equal(
        tf.argmax(logits, 1), labels), tf.int32)), "int32", "float32 fraction")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.reduce_sum(tf.cast(tf.equal(
        tf.argmax(logits, 1), labels), tf.float32)), "their fraction")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.reduce_mean(tf.cast(tf.equal(
        tf.argmax(logits, 0), labels), tf.float32)), "which axis")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.reduce_mean(tf.cast(tf.equal(
        tf.argmax(logits, 1, output_type=tf.int32), labels), tf.float32)), "building your graph failed", "int64")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32),
               "one number for the whole batch")
    fails_with(lesson4.exercise_1, lambda logits, labels: 0.5, "TensorFlow ops")
    fails_with(lesson4.exercise_1, lambda logits, labels: tf.reduce_mean(tf.cast(tf.equal(
        tf.argmin(logits, 1), labels), tf.float32)), "largest score")


# --- 4.2 the confusion matrix -----------------------------------------------------------------------------------------
def reference_confusion_matrix(labels, predictions, num_classes):
    table = [[0] * num_classes for _ in range(num_classes)]
    for label, prediction in zip(labels, predictions):
        table[label][prediction] += 1
    return table


def transposed(labels, predictions, num_classes):
    return [list(row) for row in zip(*reference_confusion_matrix(labels, predictions, num_classes))]


def sized_by_the_data(labels, predictions, num_classes):
    n = max(labels + predictions) + 1
    return reference_confusion_matrix(labels, predictions, n)


def shared_rows(labels, predictions, num_classes):
    table = [[0] * num_classes] * num_classes  # one row object repeated: every += lands in all rows
    for label, prediction in zip(labels, predictions):
        table[label][prediction] += 1
    return table


def test_4_2_confusion_matrix() -> None:
    assert lesson4.exercise_2(reference_confusion_matrix, quiet=True).passed
    fails_with(lesson4.exercise_2, blank, "not started")
    fails_with(lesson4.exercise_2, transposed, "transposed")
    fails_with(lesson4.exercise_2, sized_by_the_data, "even for a class that never occurs")
    fails_with(lesson4.exercise_2, shared_rows, "each example adds 1 to exactly one entry")
    fails_with(lesson4.exercise_2, counts_predictions_only, "your table is")


def counts_predictions_only(labels, predictions, num_classes):
    table = [[0] * num_classes for _ in range(num_classes)]
    for prediction in predictions:
        table[prediction][prediction] += 1
    return table


def test_the_confusion_cases_agree_with_numpy() -> None:
    np = pytest.importorskip("numpy")
    for labels, predictions, n in lesson4.CASES:
        table = np.zeros((n, n), dtype=np.int64)
        np.add.at(table, (np.asarray(labels), np.asarray(predictions)), 1)
        assert table.tolist() == reference_confusion_matrix(labels, predictions, n)


# --- 4.3 precision and recall -----------------------------------------------------------------------------------------
def reference_precision_recall(confusion, k):
    predicted = sum(row[k] for row in confusion)
    present = sum(confusion[k])
    return (confusion[k][k] / predicted if predicted else 0.0, confusion[k][k] / present if present else 0.0)


def test_4_3_precision_recall() -> None:
    assert lesson4.exercise_3(reference_precision_recall, quiet=True).passed
    fails_with(lesson4.exercise_3, blank, "not started")
    fails_with(lesson4.exercise_3, lambda c, k: reference_precision_recall(c, k)[::-1], "swapped")
    fails_with(lesson4.exercise_3, lambda c, k: (c[k][k] / sum(map(sum, c)), c[k][k] / sum(map(sum, c))),
               "all the examples")
    fails_with(lesson4.exercise_3, lambda c, k: (c[k][k] / sum(row[k] for row in c), c[k][k] / sum(c[k])),
               "0 / 0")
    fails_with(lesson4.exercise_3, lambda c, k: (c[k][k] / max(1, sum(c[k])), c[k][k] / max(1, sum(c[k]))),
               "fraction of the column")
    fails_with(lesson4.exercise_3, lambda c, k: c[k][k], "return (precision, recall)")


def test_the_metrics_table_agrees_with_tf_metrics() -> None:
    """4.3's hand values are what tf.metrics.precision / recall give on the examples the table counts."""
    labels, predictions = [], []
    for i, row in enumerate(lesson4.TABLE):
        for j, count in enumerate(row):
            labels += [i] * count
            predictions += [j] * count
    with tf.Graph().as_default():
        for k in range(3):
            is_k, said_k = tf.equal(tf.constant(labels), k), tf.equal(tf.constant(predictions), k)
            precision, update_precision = tf.metrics.precision(is_k, said_k)
            recall, update_recall = tf.metrics.recall(is_k, said_k)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                sess.run([update_precision, update_recall])
                got = [float(v) for v in sess.run([precision, recall])]
            assert got == pytest.approx(list(reference_precision_recall(lesson4.TABLE, k)), rel=1e-6)


def test_hints_never_hold_the_answer() -> None:
    for checker, answer in ((lesson4.exercise_1, lambda logits, labels: tf.reduce_sum(tf.cast(tf.equal(
                                tf.argmax(logits, 1), labels), tf.float32))),
                            (lesson4.exercise_2, transposed),
                            (lesson4.exercise_3, lambda c, k: reference_precision_recall(c, k)[::-1])):
        message = checker(answer, quiet=True).message
        for code in ("argmax(logits, 1)", "reduce_mean(tf.cast", "[label][prediction] += 1", "50 / 65", "0.769"):
            assert code not in message, message


def test_the_checkers_hold_without_numpy() -> None:
    """Every test above again in a child Python where `import numpy` fails, as in JupyterLite's kernel."""
    rerun_without_numpy(__file__)
