"""Session.run fetch structures: lists, tuples, dicts, namedtuples, nesting, string names, ops."""

import collections

import numpy as np
from _util import error_name

Pair = collections.namedtuple("Pair", ["left", "right"])


def program(tf):
    out = {}
    a = tf.constant(1.0, name="a")
    b = tf.constant([2.0, 3.0], name="b")
    c = tf.add(a, b, name="c")
    x = tf.placeholder(tf.float32, [None], name="x")
    doubled = tf.multiply(x, 2.0, name="doubled")
    v = tf.Variable(0, name="v")
    bump = tf.assign_add(v, 1, name="bump")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["single"] = sess.run(a)
        out["list"] = sess.run([a, b])
        out["tuple"] = sess.run((a, c))
        out["tuple_type"] = type(sess.run((a, c))).__name__
        out["dict"] = sess.run({"first": a, "second": [b, c]})
        nt = sess.run(Pair(left=a, right={"k": c}))
        out["namedtuple_type"] = type(nt).__name__
        out["namedtuple"] = [nt.left, nt.right]
        out["nested"] = sess.run([a, [b, (c, {"deep": [a]})]])
        out["string_name"] = sess.run("c:0")
        out["string_names"] = sess.run(["a:0", "b:0"])
        out["op_by_name"] = sess.run("bump") is None
        out["op_fetch"] = sess.run(bump.op) is None
        out["mixed_op_tensor"] = sess.run([bump.op, v])[0] is None
        out["v_now"] = sess.run(v)
        out["feed_by_name"] = sess.run(doubled, {"x:0": [1.0, 2.0]})
        out["feed_tensor_key"] = sess.run(doubled, feed_dict={x: np.array([3.0], np.float32)})
        out["feed_intermediate"] = sess.run(c, {a: 10.0})
        out["same_tensor_twice"] = sess.run([a, a])
        out["value_types"] = [type(value).__name__ for value in sess.run([a, b, bump])]
        out["empty_list"] = sess.run([])
        out["empty_dict"] = sess.run({})
        out["eval"] = c.eval()
        out["eval_feed"] = doubled.eval({x: [5.0]})
        bump.op.run()
        out["v_after_op_run"] = v.eval()
        out["fetch_none"] = error_name(lambda: sess.run(None))
        out["fetch_int"] = error_name(lambda: sess.run(3))
        out["fetch_missing_name"] = error_name(lambda: sess.run("nope:0"))
        out["fetch_bad_output_index"] = error_name(lambda: sess.run("c:5"))
        out["fetch_other_graph"] = error_name(lambda: sess.run(_other_graph_tensor(tf)))
        out["feed_tensor_value"] = error_name(lambda: sess.run(doubled, {x: b}))
    out["closed_session"] = error_name(lambda: sess.run(a))
    out["default_session_none"] = tf.get_default_session() is None
    return out


def _other_graph_tensor(tf):
    with tf.Graph().as_default():
        return tf.constant(1.0)
