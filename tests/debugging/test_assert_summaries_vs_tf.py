"""What a failing Assert op says, "assertion failed: [...] [...]", for every dtype, rank and `summarize` against
TensorFlow 2.21 (TF1 graphs, tests/tf_subprocess.py): TensorFlow's Tensor::SummarizeValue, which logging_ops.py
re-implements (row-major first elements, nested brackets, "...", bools as 1/0, C-escaped strings, %g floats).
Also Print's stderr text for the same grid is checked by the TF1 program tests/tf1_programs/assert_print.py.
"""

from __future__ import annotations

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

GRID = r"""
values = {
    "scalar_float": tf.constant(1.5), "scalar_int": tf.constant(7), "vector": tf.constant([1, 2, 3, 4, 5]),
    "matrix": tf.constant([[1, 2, 3], [4, 5, 6]]), "column": tf.constant([[1], [2]]),
    "cube": tf.constant(np.arange(24).reshape(2, 3, 4).astype(np.int32)),
    "float32": tf.constant([0.1, 1e-8, 123456789.0, -2.5, float("nan"), float("inf")], tf.float32),
    "float64": tf.constant([0.1, 1 / 3, 1e20], tf.float64), "float16": tf.constant([0.1, 2.0], tf.float16),
    "bool": tf.constant([True, False, True, True]), "bool_scalar": tf.constant(True),
    "bool_matrix": tf.constant([[True, False], [False, True]]),
    "strings": tf.constant([b"a b", b"c\n\"d", b"\x01\x7f", b"\xc3\xa9", b"'"]), "string_scalar": tf.constant("hi"),
    "empty": tf.zeros([0, 3], tf.int32), "empty_3d": tf.zeros([2, 0, 3], tf.int32), "int64": tf.constant([2**40]),
    "uint8": tf.constant([255, 3], tf.uint8), "int8": tf.constant([-3], tf.int8),
}
checks = {}
for summarize in (None, 0, 1, 2, 10, -1):
    for key, value in values.items():
        checks[f"{key}/{summarize}"] = tf.Assert(tf.constant(False), [value], summarize=summarize)
checks["several"] = tf.Assert(False, ["text", tf.constant(1.0), tf.constant([1, 2])])
checks["holds"] = tf.Assert(True, [tf.constant([1])])
result = {}
with tf.Session() as sess:
    for key, check in checks.items():
        try:
            sess.run(check)
            result[key] = "ok"
        except tf.errors.InvalidArgumentError as error:
            result[key] = [line for line in error.message.split("\n") if line.startswith("assertion failed")][0]
"""


@pytest.fixture(scope="module")
def both() -> tuple:
    if not TF_PYTHON:
        pytest.skip(SKIP_REASON)
    return run_tensorflow({"grid": GRID})["grid"], run_webflow(GRID)


def test_every_message_is_tensorflows(both: tuple) -> None:
    theirs, mine = both
    assert len(theirs) == 6 * 19 + 2
    differ = {key: (mine.get(key), value) for key, value in theirs.items() if mine.get(key) != value}
    assert not differ


def test_a_few_by_hand(both: tuple) -> None:
    """Independent of the oracle: TensorFlow's format written out for three cases."""
    _, mine = both
    assert mine["cube/10"] == "assertion failed: [[[0 1 2 3][4 5 6 7][8 9...]]...]"
    assert mine["bool/0"] == "assertion failed: []"
    assert mine["several"] == "assertion failed: [text] [1] [1 2]"
