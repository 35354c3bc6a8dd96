"""A word2vec-style model: tf.nn.embedding_lookup into a Variable, tf.nn.nce_loss and
tf.nn.sampled_softmax_loss (seeded log-uniform samplers), trained with SGD: the losses and the embeddings after
training, and the forward graph's nodes.

Known difference, so the gradient graph is not compared: static shapes TensorFlow's C++ shape inference folds from
constant subgraphs (the Slice gradients' Pad is (?, 4) there, (?, ?) in webflow); nce_loss's gradient graph is
otherwise node for node TensorFlow's."""

import numpy as np
from _graph_listing import graph_nodes

VOCABULARY, DIMENSION, SAMPLED = 20, 4, 5


def _model(tf, loss_name):
    tf.set_random_seed(11)
    words = tf.placeholder(tf.int32, [None], name="words")
    targets = tf.placeholder(tf.int64, [None, 1], name="targets")
    embeddings = tf.Variable(tf.random_uniform([VOCABULARY, DIMENSION], -1.0, 1.0, seed=1), name="embeddings")
    weights = tf.Variable(tf.truncated_normal([VOCABULARY, DIMENSION], stddev=0.5, seed=2), name="weights")
    biases = tf.Variable(tf.zeros([VOCABULARY]), name="biases")
    embedded = tf.nn.embedding_lookup(embeddings, words)
    loss_fn = tf.nn.nce_loss if loss_name == "nce" else tf.nn.sampled_softmax_loss
    losses = loss_fn(weights=weights, biases=biases, labels=targets, inputs=embedded, num_sampled=SAMPLED,
                     num_classes=VOCABULARY)
    loss = tf.reduce_mean(losses)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return words, targets, embeddings, loss, train


def _program(tf, loss_name):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        words, targets, embeddings, loss, train = _model(tf, loss_name)
        forward = ("gradients/", "GradientDescent")
        out["nodes"] = [line for line in graph_nodes(graph) if not line.startswith(forward)]
        feed = {words: np.array([1, 5, 7, 5], np.int32), targets: np.array([[2], [6], [8], [6]], np.int64)}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["losses"] = np.array([sess.run([train, loss], feed)[1] for _ in range(3)])
            out["embeddings"] = sess.run(embeddings)
    return out


def program_nce(tf):
    return _program(tf, "nce")


def program_sampled_softmax(tf):
    return _program(tf, "sampled_softmax")
