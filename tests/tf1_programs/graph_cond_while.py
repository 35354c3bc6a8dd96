"""tf.cond and tf.while_loop and their gradients: the values, and the nodes outside the control-flow constructs.

Known difference: TensorFlow's TF1 graph builds them from Switch/Merge (and Enter/Exit/NextIteration/LoopCond for
the loop), and their gradients from more of the same; webflow builds functional If/While ops (as TF2 does) whose
gradients are If/WhileGrad. So only the nodes outside "cond/", "while/" and their gradients are compared."""

import numpy as np
from _graph_listing import graph_nodes


def _outside_control_flow(graph):
    return [line for line in graph_nodes(graph) if not line.startswith(("cond/", "while/", "gradients/"))]


def program_cond(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.Variable(2.0, name="w")
        y = tf.cond(x > 0.0, lambda: tf.square(x) * w, lambda: x * 3.0)
        dy_dx, dy_dw = tf.gradients(y, [x, w])
        out["nodes"] = _outside_control_flow(graph)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["positive"] = sess.run([y, dy_dx, dy_dw], {x: 1.5})
            out["negative"] = sess.run([y, dy_dx, dy_dw], {x: -1.5})
    return out


def program_while(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        _, power = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [tf.constant(0), tf.constant(1.0)])
        grad = tf.gradients(power, x)[0]
        out["nodes"] = _outside_control_flow(graph)
        with tf.Session() as sess:
            out["power, grad"] = sess.run([power, grad], {x: np.float32(1.5)})
    return out
