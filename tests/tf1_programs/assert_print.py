"""Assertions and printing in TF1 graphs: tf.Assert, the tf.assert_* family, tf.Print and tf.print.

Compared with TensorFlow: the names of the ops they return (op types are not: TensorFlow's guarded Assert returns a
v1 cond's Merge op, webflow an Identity of that name), the errors raised while building (types and texts), the
errors a failing assertion raises in Session.run (type, failing node, "assertion failed: ..." text), values passed
on through control dependencies and through Print (and its gradient), and what Print / tf.print write to stderr
(captured at the file-descriptor level, where TensorFlow's C++ kernels write).
"""

import os
import sys
import tempfile

import numpy as np
from _util import public_error_name


def _stderr_of(function):
    """(function's result, what it wrote to file descriptor 2)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            result = function()
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        return result, capture.read().decode("utf-8", "replace")


def _failure(function):
    """[error class, failing node, the assertion's text] of a Session.run that must fail."""
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the type's name is part of the result
        lines = str(getattr(error, "message", error)).split("\n")
        if lines[0].startswith("Graph execution error"):  # TensorFlow's preamble, up to "Node: '<name>'"
            lines = lines[next(k for k, line in enumerate(lines) if line.startswith("Node: ")) + 1:]
        text = lines[0]
        op = getattr(error, "op", None)
        return [public_error_name(error), op.name if op is not None else None, text]
    return "no error"


def _build_error(function):
    try:
        function()
    except Exception as error:  # noqa: BLE001
        return [public_error_name(error), str(getattr(error, "message", error))]
    return "no error"


def program_run_time(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None], name="x")
    i = tf.placeholder(tf.int32, [None], name="i")
    float_check = tf.Assert(tf.reduce_all(x > 0), ["x must be positive:", x])
    int_check = tf.Assert(tf.reduce_all(i < 10), [i], summarize=2)
    equal = tf.assert_equal(i, 2, message="all twos")
    less = tf.assert_less(x, 5.0)
    positive = tf.assert_positive(x)
    non_positive = tf.assert_non_positive(i)
    near = tf.assert_near(x, tf.ones_like(x))
    ranked = tf.assert_rank(tf.placeholder(tf.float32, None, name="unknown_rank"), 2)
    out["names"] = [float_check.name, int_check.name, equal.name, less.name, positive.name, non_positive.name,
                    near.name, ranked.name]
    with tf.control_dependencies([float_check, less]):
        doubled = tf.identity(x) * 2.0
    with tf.Session() as sess:
        out["passes"] = sess.run(doubled, {x: [1.0, 2.5]})
        out["float_fails"] = _failure(lambda: sess.run(doubled, {x: [1.0, -2.0, 3.0, 4.0]}))
        out["int_fails"] = _failure(lambda: sess.run(int_check, {i: [1, 20, 3]}))
        out["equal_fails"] = _failure(lambda: sess.run(equal, {i: [2, 3]}))
        out["less_fails"] = _failure(lambda: sess.run(less, {x: [7.0]}))
        out["positive_fails"] = _failure(lambda: sess.run(positive, {x: [0.0, 1.0]}))
        out["non_positive_fails"] = _failure(lambda: sess.run(non_positive, {i: [-1, 4]}))
        out["near_fails"] = _failure(lambda: sess.run(near, {x: [1.0, 1.5]}))
        out["near_passes"] = sess.run(near, {x: [1.0, 1.0000001]})
        out["rank_fails"] = _failure(lambda: sess.run(ranked, {"unknown_rank:0": np.ones(3, np.float32)}))
        out["equal_passes"] = sess.run(equal, {i: [2, 2]})
        not_scalar = tf.Assert(tf.constant([[True]]), [i])  # the condition must be a scalar, not only one value
        out["condition_not_scalar"] = _failure(lambda: sess.run(not_scalar, {i: [1]}))
    return out


def program_in_control_flow(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None], name="x")
    take = tf.placeholder(tf.bool, [], name="take")

    def checked():
        with tf.control_dependencies([tf.assert_positive(x)]):
            return tf.identity(x)

    chosen = tf.cond(take, checked, lambda: x * 0)

    def body(i, total):
        with tf.control_dependencies([tf.Assert(i < 3, [i])]):
            return i + 1, total + 1.0

    loop = tf.while_loop(lambda i, total: i < 5, body, [tf.constant(0), tf.constant(0.0)])
    short_loop = tf.while_loop(lambda i, total: i < 3, body, [tf.constant(0), tf.constant(0.0)])
    # (the failing node's name is left out: webflow names ops inside a branch or loop body without the outer
    # "cond/" or "while/" prefix TensorFlow's v1 control flow gives them; the class and the text are compared)
    with tf.Session() as sess:
        out["branch_not_taken"] = sess.run(chosen, {x: [-1.0], take: False})
        out["branch_taken"] = _failure(lambda: sess.run(chosen, {x: [-1.0], take: True}))[::2]
        out["loop_fails"] = _failure(lambda: sess.run(loop))[::2]
        out["loop_passes"] = list(sess.run(short_loop))
    return out


def program_build_time(tf):
    out = {}
    x = tf.placeholder(tf.float32, [3], name="x")
    out["equal_constants"] = _build_error(lambda: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3])))
    out["equal_constants_message"] = _build_error(
        lambda: tf.assert_equal(tf.constant(1.0), tf.constant(2.0), message="hey"))
    out["equal_constants_hold"] = tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])).name
    out["same_tensor"] = tf.assert_equal(x, x).name
    out["rank"] = _build_error(lambda: tf.assert_rank(x, 2))
    out["rank_message"] = _build_error(lambda: tf.assert_rank(x, 2, message="wanted a matrix"))
    out["rank_holds"] = tf.assert_rank(x, 1).name
    out["rank_at_least"] = _build_error(lambda: tf.assert_rank_at_least(x, 2))
    out["rank_in"] = _build_error(lambda: tf.assert_rank_in(x, [0, 2]))
    out["rank_in_holds"] = tf.assert_rank_in(x, [1, 2]).name
    out["type"] = _build_error(lambda: tf.assert_type(x, tf.int32))
    out["type_holds"] = tf.assert_type(x, tf.float32).name
    out["integer"] = _build_error(lambda: tf.assert_integer(x))
    out["scalar"] = _build_error(lambda: tf.assert_scalar(x))
    out["is_numeric"] = [tf.is_numeric_tensor(x), tf.is_numeric_tensor(tf.constant("a")), tf.is_numeric_tensor(3)]
    out["proper_iterable"] = [_build_error(lambda: tf.assert_proper_iterable(x))[0],
                              _build_error(lambda: tf.assert_proper_iterable(5)),
                              _build_error(lambda: tf.assert_proper_iterable([1, 2]))]
    order = [tf.is_non_decreasing([1, 2, 2]), tf.is_strictly_increasing([1, 2, 2]),
             tf.debugging.is_strictly_increasing(tf.constant([0.5])), tf.debugging.is_non_decreasing([[3, 1]])]
    out["order_names"] = [t.name for t in order]
    out["order_numeric"] = _build_error(lambda: tf.is_non_decreasing(tf.constant(["a"])))
    out["same_float"] = [str(tf.assert_same_float_dtype([x])), str(tf.assert_same_float_dtype(None, tf.float16)),
                         str(tf.assert_same_float_dtype())]
    out["same_float_differs"] = _build_error(lambda: tf.assert_same_float_dtype([x, tf.constant([1.0], tf.float64)]))
    out["same_float_int"] = _build_error(lambda: tf.assert_same_float_dtype([tf.constant([1])]))
    sizes = tf.placeholder(tf.int32, [None], name="sizes")
    shapes = tf.debugging.assert_shapes([(x, ("N",)), (sizes, ("N",))])
    out["shapes_name"] = shapes.name
    out["shapes_static"] = _build_error(lambda: tf.debugging.assert_shapes([(x, ("N",)), (tf.ones([2]), ("N",))]))
    out["shapes_explicit"] = _build_error(lambda: tf.debugging.assert_shapes([(x, (4,))], message="m"))
    out["shapes_rank"] = _build_error(lambda: tf.debugging.assert_shapes([(x, ("N", "M"))]))
    finite = tf.verify_tensor_all_finite(x, "x has NaN")
    out["verify_name"] = finite.name
    with tf.Session() as sess:
        out["verify_passes"] = sess.run(finite, {x: [1.0, 2.0, 3.0]})
        out["order"] = sess.run(order)
        out["shapes_passes"] = sess.run(shapes, {sizes: [1, 2, 3]})
        out["shapes_fails"] = _failure(lambda: sess.run(shapes, {sizes: [1, 2]}))
        out["verify_fails"] = _failure(lambda: sess.run(finite, {x: [1.0, np.nan, 3.0]}))
    return out


def program_printing(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None], name="x")
    printed = tf.Print(x, [x, "and", tf.constant([[1, 2], [3, 4]])], message="x: ", first_n=2, summarize=2)
    loss = tf.reduce_sum(printed * printed)
    grad = tf.gradients(loss, x)[0]
    format_op = tf.print("tensors:", x, [1, 2], {"b": x, "a": 3}, summarize=1)
    out["names"] = [printed.name, format_op.name, [op.name for op in format_op.inputs[0].op.inputs]]
    with tf.Session() as sess:
        feeds = {x: [1.5, 2.0, -3.0]}
        runs, out["print_stderr"] = _stderr_of(lambda: [sess.run(printed, feeds) for _ in range(3)])
        out["print_values"] = runs
        out["gradient"] = sess.run(grad, feeds)
        _, out["print_v2_stderr"] = _stderr_of(lambda: sess.run(format_op, feeds))
        with tf.control_dependencies([tf.print("side effect", x)]):
            then = tf.identity(x)
        value, out["dependency_stderr"] = _stderr_of(lambda: sess.run(then, {x: [7.0]}))
        out["dependency_value"] = value
    with tf.Session() as sess:  # first_n counts per session: a new one prints again
        _, out["second_session_stderr"] = _stderr_of(lambda: [sess.run(printed, {x: [0.5]}) for _ in range(3)])
    return out
