"""variable_scope reuse and get_variable sharing: a layer function called twice under reuse, AUTO_REUSE,
name_scope inside variable_scope, and the whole GraphDef that results (which names the ops get and which
variables are shared), with the outputs."""

import numpy as np
from _graph_listing import graph_nodes


def _layer(tf, x, units):
    w = tf.get_variable("w", [x.shape[-1], units], initializer=tf.constant_initializer(0.5))
    b = tf.get_variable("b", [units], initializer=tf.zeros_initializer())
    return tf.nn.relu(tf.matmul(x, w) + b)


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        left = tf.placeholder(tf.float32, [None, 3], name="left")
        right = tf.placeholder(tf.float32, [None, 3], name="right")
        with tf.variable_scope("tower") as scope:
            a = _layer(tf, left, 2)
            scope.reuse_variables()
            b = _layer(tf, right, 2)
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            c = _layer(tf, left, 4)
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            d = _layer(tf, right, 4)
        with tf.variable_scope("outer"):
            with tf.name_scope("inner"):
                v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
                s = tf.reduce_sum(v * 2.0)
        total = tf.add_n([tf.reduce_sum(t) for t in (a, b, c, d)]) + s
        grads = tf.gradients(total, tf.trainable_variables())
        out["nodes"] = graph_nodes(graph)
        out["variables"] = [var.name for var in tf.global_variables()]
        out["names"] = [t.name for t in (a, b, c, d, v, s, total)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            feed = {left: np.ones((2, 3), np.float32), right: np.full((2, 3), -0.5, np.float32)}
            out["total"], out["grads"] = sess.run([total, grads], feed)
    return out
