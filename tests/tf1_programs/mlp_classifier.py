"""A two-layer softmax classifier in the MNIST-tutorial style, on a fixed tiny data set."""

import numpy as np


def program(tf):
    out = {}
    features = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.5, 0.2], [0.1, 0.9]], np.float32)
    labels = np.array([0, 1, 1, 0, 1, 1], np.int64)
    one_hot = np.eye(2, dtype=np.float32)[labels]

    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y_ = tf.placeholder(tf.float32, [None, 2], name="y_")
    W1 = tf.Variable(np.array([[0.5, -0.4, 0.3], [-0.2, 0.6, -0.1]], np.float32), name="W1")
    b1 = tf.Variable(tf.zeros([3]), name="b1")
    W2 = tf.Variable(np.array([[0.4, -0.3], [-0.5, 0.2], [0.1, 0.3]], np.float32), name="W2")
    b2 = tf.Variable(tf.constant(0.1, shape=[2]), name="b2")
    hidden = tf.nn.relu(tf.matmul(x, W1) + b1)
    logits = tf.matmul(hidden, W2) + b2
    probabilities = tf.nn.softmax(logits)
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    sparse_ce = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.argmax(y_, 1),
                                                                              logits=logits))
    manual_ce = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(probabilities), reduction_indices=[1]))
    sigmoid_ce = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y_, logits=logits))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    feed = {x: features, y_: one_hot}
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial"] = sess.run([cross_entropy, sparse_ce, manual_ce, sigmoid_ce], feed)
        for step in range(60):
            _, loss = sess.run([train, cross_entropy], feed)
            if step % 10 == 0:
                losses.append(loss)
        out["losses"] = np.array(losses)
        out["accuracy"] = sess.run(accuracy, feed)
        out["probabilities"] = sess.run(probabilities, feed)
        out["weights"] = sess.run([W1, b1, W2, b2])
    out["logits"] = str(logits)
    out["cross_entropy"] = cross_entropy.name
    out["correct"] = str(correct)
    return out
