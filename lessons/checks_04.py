"""The checkers of lesson 4 (MNIST and its metrics). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

from collections.abc import Callable

from checks import Hint, all_close, exercise, flat_numbers, hint_unless

import webflow.compat.v1 as tf

# --- 4.1: accuracy as a tensor ----------------------------------------------------------------------------------------
# Five images, four classes: the highest score of each row is at 2, 0, 3, 3, 1; the labels agree on rows 0, 1 and 3.
LOGITS = [[0.1, 0.5, 2.0, -1.0], [3.0, 0.2, 0.1, 0.0], [0.0, 0.5, 0.2, 0.9], [-2.0, -1.0, 0.0, 4.0],
          [0.3, 0.8, -0.4, 0.1]]
LABELS = [2, 0, 1, 3, 3]


def _accuracy_by_hand(logits: list, labels: list) -> float:
    hits = sum(row.index(max(row)) == label for row, label in zip(logits, labels))
    return hits / len(labels)


@exercise("4.1")
def exercise_1(accuracy_of: Callable) -> None:
    """accuracy_of(logits [batch, classes] float32, labels [batch] int64) -> a scalar float32 tensor: the fraction
    of rows whose highest score is at the label."""
    with tf.Graph().as_default():
        logits = tf.placeholder(tf.float32, [None, 4], name="logits")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        try:
            accuracy = accuracy_of(logits, labels)
        except (TypeError, ValueError) as error:
            raise Hint(f"building your graph failed: {str(error).splitlines()[0]} — read which op refused which "
                       "dtype: tf.equal compares two tensors of one dtype (argmax gives int64), and tf.reduce_mean "
                       "refuses booleans: turn them into numbers first.") from None
        hint_unless(accuracy is not None, "accuracy_of returned None: return the accuracy tensor.")
        hint_unless(hasattr(accuracy, "graph"),
                    f"accuracy_of returned {type(accuracy).__name__}: build it from "
                    "TensorFlow ops, so that it is a tensor computed when the graph runs.")
        hint_unless(accuracy.dtype.base_dtype == tf.float32, f"your accuracy is {accuracy.dtype.name}: it should be "
                    "a float32 fraction (an integer mean of 0s and 1s rounds down to 0).")
        hint_unless(accuracy.shape.ndims in (0, None),
                    f"your accuracy has shape {accuracy.shape}: one number for "
                    "the whole batch — average over the rows.")
        cases = [(LOGITS, LABELS), (LOGITS[:2], LABELS[:2]), ([row[::-1] for row in LOGITS], LABELS)]
        with tf.Session() as sess:
            try:
                got = [float(sess.run(accuracy, {logits: x, labels: y})) for x, y in cases]
            except tf.errors.InvalidArgumentError as error:
                raise Hint(f"running it failed: {error.message.splitlines()[0]} — the prediction of an image is the "
                           "position of the highest score in its *row* (one per image): which axis is that?") from None
    want = [_accuracy_by_hand(x, y) for x, y in cases]
    hint_unless(not all_close(got, [w * len(y) for w, (_, y) in zip(want, cases)]), "you counted the right "
                "predictions; accuracy is their fraction of the batch.")
    hint_unless(all_close(got, want),
                f"on a batch of 5 your accuracy is {got[0]:.3f}; count by hand which rows have "
                "their largest score at the label's position, and compare.")


# --- 4.2: the confusion matrix ----------------------------------------------------------------------------------------
CASES = [([0, 1, 2, 2, 1, 0, 2], [0, 2, 2, 1, 1, 0, 2], 3),
         ([3, 3, 0, 1], [3, 0, 0, 3], 4),
         ([1, 1, 1], [1, 1, 1], 2),
         ([0, 1, 0], [1, 1, 0], 4)]  # classes 2 and 3 never occur: still a row and a column each


def _confusion_by_hand(labels: list, predictions: list, n: int) -> list:
    table = [[0] * n for _ in range(n)]
    for label, prediction in zip(labels, predictions):
        table[label][prediction] += 1
    return table


@exercise("4.2")
def exercise_2(confusion_matrix: Callable) -> None:
    """confusion_matrix(labels, predictions, num_classes) -> list of rows: entry [i][j] counts the examples of true
    class i predicted as j (TensorFlow's tf.math.confusion_matrix layout). Plain Python lists of ints."""
    for labels, predictions, n in CASES:
        got = confusion_matrix(list(labels), list(predictions), n)
        hint_unless(got is not None, "confusion_matrix returned None: return the table, a list of rows.")
        got = got.tolist() if hasattr(got, "tolist") else got
        rows = [list(row) for row in got]
        hint_unless(len(rows) == n and all(len(row) == n for row in rows), f"for {n} classes the table has "
                    f"{len(rows)} rows of {[len(r) for r in rows]} entries: it should be {n} × {n}, one row and one "
                    "column per class, even for a class that never occurs.")
        want = _confusion_by_hand(labels, predictions, n)
        transposed = [list(column) for column in zip(*want)]
        hint_unless(not (rows == transposed and rows != want), "your table is transposed: rows are the true "
                    "labels, columns the predictions.")
        hint_unless(sum(map(sum, rows)) == len(labels), f"your table counts {sum(map(sum, rows))} examples for "
                    f"{len(labels)} given: each example adds 1 to exactly one entry.")
        hint_unless(rows == want, f"for labels {labels} and predictions {predictions} your table is {rows}: check "
                    "one example at a time — which entry should it add 1 to?")


# --- 4.3: precision and recall ----------------------------------------------------------------------------------------
TABLE = [[50, 2, 0], [10, 30, 0], [5, 3, 0]]  # class 2 is never predicted: its precision is 0 / 0


def _by_hand(k: int) -> tuple:
    column, row = sum(r[k] for r in TABLE), sum(TABLE[k])
    return (TABLE[k][k] / column if column else 0.0, TABLE[k][k] / row if row else 0.0)


@exercise("4.3")
def exercise_3(precision_recall: Callable) -> None:
    """precision_recall(confusion, k) -> (precision, recall) of class k; 0.0 where the division would be by 0
    (as tf.metrics.precision / recall)."""
    for k, want in ((0, _by_hand(0)), (1, _by_hand(1))):
        got = precision_recall([list(row) for row in TABLE], k)
        hint_unless(got is not None, "precision_recall returned None: return the pair (precision, recall).")
        got = flat_numbers(got)
        hint_unless(len(got) == 2, f"you returned {len(got)} numbers: return (precision, recall).")
        hint_unless(not all_close(got, list(want[::-1])),
                    f"for class {k} your precision and recall are swapped: "
                    "precision asks \"of the examples *predicted* k, how many are k?\" — a column of the table.")
        total = sum(map(sum, TABLE))
        hint_unless(not all_close(got[:1], [TABLE[k][k] / total]) and not all_close(got[1:], [TABLE[k][k] / total]),
                    "you divided by all the examples: that would be a share of the whole table. Precision divides by "
                    "the predictions of class k, recall by the true examples of class k.")
        hint_unless(all_close(got, list(want)),
                    f"for class {k} of the table {TABLE} you gave {got}: precision is the "
                    "fraction of the column of k that is on the diagonal, recall the fraction of the row of k.")
    try:
        got = flat_numbers(precision_recall([list(row) for row in TABLE], 2))
    except ZeroDivisionError:
        raise Hint("class 2 is never predicted: its precision is 0 / 0. Return 0.0 there, as TensorFlow's "
                   "tf.metrics.precision does, instead of dividing.") from None
    hint_unless(all_close(got, list(_by_hand(2))),
                f"class 2 (never predicted, 8 examples, none right): you gave {got}; "
                "with nothing to count, precision and recall are 0.0.")
