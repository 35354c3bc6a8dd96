"""The gradient graphs of Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits (v1 and v2, labels with and without a
gradient) and SparseSoftmaxCrossEntropyWithLogits, node for node as TensorFlow's nn_grad.py builds them, and their
values (second order too: the gradient of a gradient goes through the backprop output)."""

import numpy as np
from _graph_listing import graph_nodes

LOGITS = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], np.float32)
LABELS = np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]], np.float32)


def _gradient_nodes(tf, build):
    """The nodes `build` adds (the forward op and its gradients)."""
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(LOGITS, name="x")
        before = len(graph.get_operations())
        fetches = build(tf, x)
        nodes = graph_nodes(graph)[before:]
        with tf.Session() as sess:
            values = sess.run(fetches)
    return {"nodes": nodes, "values": values}


def program_softmax(tf):
    def build(tf, x):
        y = tf.nn.softmax(x)
        weights = tf.constant([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], name="weights")
        return tf.gradients(tf.reduce_sum(y * weights), x)
    return _gradient_nodes(tf, build)


def program_sparse_xent(tf):
    def build(tf, x):
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([2, 1], name="labels"), logits=x)
        return tf.gradients(tf.reduce_mean(loss), x)
    return _gradient_nodes(tf, build)


def program_xent(tf):
    def build(tf, x):
        labels = tf.constant(LABELS, name="labels")
        loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x)
        return tf.gradients(tf.reduce_sum(loss * [1.0, 2.0]), x)
    return _gradient_nodes(tf, build)


def program_xent_v2_label_gradient(tf):
    def build(tf, x):
        labels = tf.constant(LABELS, name="labels") * 1.5
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x)
        return tf.gradients(tf.reduce_sum(loss), [x, labels])
    return _gradient_nodes(tf, build)


def program_sparse_xent_second_order(tf):
    def build(tf, x):
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([0, 2], name="labels"), logits=x)
        grad = tf.gradients(tf.reduce_sum(loss), x)[0]
        return tf.gradients(tf.reduce_sum(grad * grad), x)
    return _gradient_nodes(tf, build)


def program_log_softmax(tf):
    def build(tf, x):
        y = tf.nn.log_softmax(x)
        return tf.gradients(tf.reduce_sum(y * tf.constant([[1.0, 0.0, 2.0], [0.5, 0.5, -1.0]])), x)
    return _gradient_nodes(tf, build)
