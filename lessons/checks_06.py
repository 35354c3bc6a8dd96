"""The checkers of lesson 6 (broadcasting and shape errors). Each gives a hint, never the answer (see checks.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from checks import Hint, exercise, hint_unless

import webflow.compat.v1 as tf


def _flat(values: Any) -> list:
    values = values.tolist() if hasattr(values, "tolist") else values
    if isinstance(values, (list, tuple)):
        return [x for v in values for x in _flat(v)]
    return [float(values)]


def _close(got: list, want: list) -> bool:
    return len(got) == len(want) and all(abs(a - b) <= 1e-4 * max(1.0, abs(b)) for a, b in zip(got, want))


def _first_line(error: Exception) -> str:
    return str(error).split("\n")[0]


# --- 6.1: flatten images so that the matmul works ---------------------------------------------------------------
def _images(batch: int) -> list:
    return [[[((b * 5 + r * 28 + c) % 7) / 7.0 for c in range(28)] for r in range(28)] for b in range(batch)]


def _weights() -> list:
    return [[((i * 7 + j * 3) % 11 - 5) / 10.0 for j in range(10)] for i in range(784)]


def _logits_by_hand(images: list, weights: list) -> list:
    rows = [[p for row in image for p in row] for image in images]  # row-major: pixel (r, c) is number r * 28 + c
    return [[sum(row[i] * weights[i][j] for i in range(784)) for j in range(10)] for row in rows]


@exercise("6.1")
def exercise_1(logits_of: Callable) -> None:
    """logits_of(images [batch, 28, 28], weights [784, 10]) -> logits [batch, 10], for any batch size."""
    weights = _weights()
    with tf.Graph().as_default():
        images = tf.placeholder(tf.float32, [None, 28, 28], name="images")
        try:
            logits = logits_of(images, tf.constant(weights))
        except ValueError as error:
            raise Hint(f"building your graph failed: {_first_line(error)} — read which two dimensions the message "
                       "says must be equal, and which tensors they belong to.") from None
        hint_unless(logits is not None, "logits_of returned None: return the tensor of logits.")
        hint_unless(hasattr(logits, "graph"), f"logits_of returned {type(logits).__name__}; build the logits with "
                    "TensorFlow ops so they are a tensor.")
        shape = logits.shape.as_list() if logits.shape.ndims is not None else None
        hint_unless(shape is not None and len(shape) == 2 and shape[1] == 10, f"the logits' static shape is "
                    f"{logits.shape}; it should be one row of 10 scores per image: (?, 10).")
        hint_unless(shape[0] != 784, f"the logits' static shape is {logits.shape}: 784 rows, one per pixel, where "
                    "there should be one row per image: (?, 10). Which dimension of your flattened images is which?")
        hint_unless(shape[0] is None, f"the logits' static shape is {logits.shape}: the batch size is fixed in your "
                    "graph, but the placeholder takes any number of images. Let TensorFlow work that dimension out.")
        results = {}
        with tf.Session() as sess:
            for batch in (3, 1):
                try:
                    results[batch] = _flat(sess.run(logits, {images: _images(batch)}))
                except tf.errors.InvalidArgumentError as error:
                    raise Hint(f"with a batch of {batch} images the run failed: {_first_line(error)}") from None
    for batch, got in results.items():
        want = [x for row in _logits_by_hand(_images(batch), weights) for x in row]
        hint_unless(len(got) == len(want), f"for {batch} images you computed {len(got)} numbers, not {len(want)}.")
        hint_unless(_close(got, want), f"for {batch} images the logits are not images × weights: each image's 784 "
                    "pixels should be laid out in a row in the order they are stored (row by row).")


# --- 6.2: add a bias per row --------------------------------------------------------------------------------------
def _with_row_bias(scores: list, bias: list) -> list:
    return [[value + bias[r] for value in row] for r, row in enumerate(scores)]


@exercise("6.2")
def exercise_2(add_row_bias: Callable) -> None:
    """add_row_bias(scores [rows, cols], row_bias [rows]) -> scores with row_bias[r] added to every entry of row r."""
    cases = [([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], [10.0, 20.0, 30.0]),
             ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [100.0, 200.0])]
    for scores, bias in cases:
        size = f"{len(scores)}×{len(scores[0])}"
        with tf.Graph().as_default():
            try:
                result = add_row_bias(tf.constant(scores), tf.constant(bias))
            except ValueError as error:
                raise Hint(f"with a {size} matrix your graph could not be built: {_first_line(error)}. Shapes line "
                           "up from the right: which dimension of the scores does the bias meet?") from None
            hint_unless(result is not None, "add_row_bias returned None: return the tensor you built.")
            with tf.Session() as sess:
                got = _flat(sess.run(result))
        want = _flat(_with_row_bias(scores, bias))
        square = len(scores) == len(scores[0])  # only there does a bias meeting the columns run at all
        along_columns = _flat([[value + bias[c] for c, value in enumerate(row)] for row in scores]) if square else []
        hint_unless(not square or not _close(got, along_columns), f"on the {size} matrix your result added "
                    "row_bias[j] to column j, not to row j: a vector lines up with the *last* dimension. It ran "
                    "without an error — the silent kind of broadcasting bug. Give the bias a shape that lines up "
                    "with the rows.")
        hint_unless(len(got) == len(want), f"on the {size} matrix the result holds {len(got)} numbers; it should "
                    f"keep the scores' shape ({len(want)} numbers).")
        hint_unless(_close(got, want), f"on the {size} matrix the result is not scores + the bias of each row.")


# --- 6.3: the static shape of a broadcast -------------------------------------------------------------------------
SHAPES_THAT_BROADCAST = [([3, 1], [2], [3, 2]), ([2, 3], [3], [2, 3]), ([5, 1, 4], [3, 1], [5, 3, 4]),
                         ([4], [4, 1], [4, 4]), ([], [2, 3], [2, 3]), ([1], [1], [1]), ([1, 6], [7, 1], [7, 6])]
SHAPES_THAT_FAIL = [([3], [4]), ([2, 3], [2]), ([2, 3], [3, 2]), ([4, 1, 2], [3, 3])]


@exercise("6.3")
def exercise_3(broadcast_shape: Callable) -> None:
    """broadcast_shape(a, b) -> the broadcast shape as a list of ints, or raises ValueError as TensorFlow would."""
    for a, b, want in SHAPES_THAT_BROADCAST:
        try:
            got = broadcast_shape(list(a), list(b))
        except ValueError:
            raise Hint(f"you raised ValueError for {a} and {b}, but they broadcast. Compare the dimensions from "
                       "the right (the last ones first); a missing dimension counts as 1.") from None
        hint_unless(got is not None, f"broadcast_shape({a}, {b}) returned None: return the shape as a list.")
        got = [int(d) for d in got]
        hint_unless(len(got) == max(len(a), len(b)), f"for {a} and {b} you gave {got}: the result has as many "
                    "dimensions as the longer shape (the shorter one is padded with 1s on the left).")
        hint_unless(got == want, f"for {a} and {b} you gave {got}: work it through by hand, one dimension at a "
                    "time from the right — where one of the two is 1, the other one wins.")
    for a, b in SHAPES_THAT_FAIL:
        try:
            got = broadcast_shape(list(a), list(b))
        except ValueError:
            continue
        except Exception as error:
            raise Hint(f"for {a} and {b} you raised {type(error).__name__}; TensorFlow raises ValueError when shapes "
                       "cannot be broadcast.") from None
        raise Hint(f"{a} and {b} cannot be broadcast, yet you returned {got}: raise ValueError when two dimensions "
                   "differ and neither of them is 1.")
