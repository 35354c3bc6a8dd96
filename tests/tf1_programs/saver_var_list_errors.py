"""tf.train.Saver given things that are not variables: a forged MetaGraphDef whose `variables` collection holds int64
values (import_meta_graph builds a Saver over that collection), ints and a constant in var_list. The exception type
and message each engine raises, and a Saver over the real variable still saving and restoring."""

import os
import tempfile

import numpy as np


def _failure(function):
    """'ExceptionType: message' of what function() raises, or 'no error'."""
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the type and text are the result
        return f"{type(error).__name__}: {error}"
    return "no error"


def _forged_meta_graph(tf):
    with tf.Graph().as_default():
        tf.Variable(np.float32(1.5), name="v")
        meta = tf.train.export_meta_graph()
    meta.collection_def["variables"].Clear()
    meta.collection_def["variables"].int64_list.value.extend([3, 4])
    return meta


def program(tf):
    out = {}
    meta = _forged_meta_graph(tf)
    with tf.Graph().as_default():
        out["import_meta_graph"] = _failure(lambda: tf.train.import_meta_graph(meta))
        out["collection"] = [type(value).__name__ for value in tf.get_collection("variables")]
        out["saver_after_import"] = _failure(tf.train.Saver)
    with tf.Graph().as_default():
        v = tf.Variable(np.float32(2.5), name="v")
        out["int_in_var_list"] = _failure(lambda: tf.train.Saver([v, 7]))
        out["constant_in_var_list"] = _failure(lambda: tf.train.Saver([tf.constant(1.0, name="c")]))
        saver = tf.train.Saver([v])
        with tf.Session() as sess, tempfile.TemporaryDirectory() as folder:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(folder, "model"))
            sess.run(v.assign(0.0))
            saver.restore(sess, path)
            out["restored"] = sess.run(v)
    return out
