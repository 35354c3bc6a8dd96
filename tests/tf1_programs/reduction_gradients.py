"""Gradients of Sum and Mean (tf.reduce_sum / tf.reduce_mean, the last op of nearly every loss): the whole GraphDef
TensorFlow's rules build (Reshape + Tile when the axes are known, reduced_shape + BroadcastTo otherwise, Mean's
divisor as a Const or computed from Shape/GatherV2/Prod) for static, partly known and unknown shapes, and values."""

import numpy as np
from _graph_listing import graph_nodes

CASES = {  # name: (placeholder shape, axis, keepdims, fed shape)
    "all_static": ([2, 3], None, False, (2, 3)),
    "axis1_static": ([2, 3], 1, False, (2, 3)),
    "axis0_keep_static": ([2, 3], [0], True, (2, 3)),
    "negative_axis_static": ([2, 3, 2], [-1, 0], False, (2, 3, 2)),
    "all_partial": ([None, 3], None, False, (4, 3)),
    "axis0_partial": ([None, 3], 0, False, (4, 3)),
    "axis1_keep_partial": ([None, 3], 1, True, (4, 3)),
    "unknown_rank": (None, None, False, (2, 2)),
    "fed_axes": ([2, 3], "fed", False, (2, 3)),
}


def _case(tf, reduce, case):
    out = {}
    shape, axis, keepdims, fed_shape = CASES[case]
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, shape, name="x")
        axes = tf.placeholder(tf.int32, [None], name="axes") if axis == "fed" else axis
        y = reduce(x, axis=axes, keepdims=keepdims)
        grad = tf.gradients(y * y, x)[0]  # (y * y: a gradient that is not all ones)
        out["nodes"] = graph_nodes(graph)
        value = np.arange(np.prod(fed_shape), dtype=np.float32).reshape(fed_shape) / 4.0
        feed = {x: value}
        if axis == "fed":
            feed[axes] = np.array([1], np.int32)
        with tf.Session() as sess:
            out["y"], out["grad"] = sess.run([y, grad], feed)
    return out


def program_sum(tf):
    return {case: _case(tf, tf.reduce_sum, case) for case in CASES}


def program_mean(tf):
    return {case: _case(tf, tf.reduce_mean, case) for case in CASES}
