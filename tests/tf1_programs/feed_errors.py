"""Errors a TF1 user meets: wrong feed shape, unfed placeholder, uninitialised variable, int32 + float32."""

import numpy as np
from _util import error_name, public_error_name


def program(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = x * 2.0
    n = tf.placeholder(tf.int32, [3], name="n")
    v = tf.Variable(1.0, name="v")
    uses_v = v + 1.0
    with tf.Session() as sess:
        out["wrong_rank"] = error_name(lambda: sess.run(y, {x: np.ones(3)}))
        out["wrong_dim"] = error_name(lambda: sess.run(y, {x: np.ones((2, 3))}))
        out["right_shape"] = sess.run(y, {x: np.ones((1, 2))})
        out["unfed_placeholder"] = error_name(lambda: sess.run(y))
        out["unfed_is_op_error"] = _is_op_error(tf, lambda: sess.run(y))
        out["uninitialized"] = error_name(lambda: sess.run(uses_v))
        out["uninitialized_variable_read"] = error_name(lambda: sess.run(v))
        # Not compared: TF silently truncates 1.5 fed to int32; webflow refuses (tests/test_session.py).
        out["whole_floats_into_int"] = sess.run(n, {n: [1.0, 2.0, 3.0]})
        out["int_feed_ok"] = sess.run(n, {n: [1, 2, 3]})
        out["string_into_float"] = error_name(lambda: sess.run(y, {x: [["a", "b"]]}))
        out["feed_non_tensor_key"] = error_name(lambda: sess.run(y, {"nope:0": 1.0}))
        sess.run(v.initializer)
        out["after_init"] = sess.run(uses_v)
    out["int32_plus_float32"] = error_name(lambda: tf.constant(1) + tf.constant(2.0))
    out["add_int_float"] = error_name(lambda: tf.add(tf.constant([1, 2]), tf.constant([1.0, 2.0])))
    out["matmul_shape_mismatch"] = error_name(lambda: tf.matmul(tf.ones([2, 3]), tf.ones([2, 3])))
    out["add_shape_mismatch"] = error_name(lambda: tf.ones([2, 3]) + tf.ones([4]))
    out["reshape_bad"] = error_name(lambda: tf.reshape(tf.ones([2, 3]), [4]))
    out["constant_int_with_float_value"] = error_name(lambda: tf.constant(1.5, dtype=tf.int32))
    # a runtime shape error (only known once fed) is an InvalidArgumentError
    p = tf.placeholder(tf.float32, [None])
    q = tf.placeholder(tf.float32, [None])
    total = p + q
    with tf.Session() as sess:
        out["runtime_broadcast"] = error_name(lambda: sess.run(total, {p: [1.0, 2.0], q: [1.0, 2.0, 3.0]}))
        out["runtime_ok"] = sess.run(total, {p: [1.0], q: [1.0, 2.0, 3.0]})
    out["error_classes_are_op_errors"] = [issubclass(cls, tf.errors.OpError) for cls in (
        tf.errors.InvalidArgumentError, tf.errors.FailedPreconditionError, tf.errors.NotFoundError)]
    return out


def _is_op_error(tf, function):
    try:
        function()
    except tf.errors.OpError as error:
        return [public_error_name(error), error.op.name if error.op is not None else None]
    return "no error"
