"""L2 regularisation through collections: get_variable(regularizer=...) and custom add_to_collection."""

import numpy as np


def program(tf):
    out = {}
    x = tf.constant(np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32))
    y = tf.constant(np.array([[1.0], [0.0], [1.0]], np.float32))

    def regularizer(weights):  # what tf.contrib.layers.l2_regularizer(0.1) computed
        return 0.1 * tf.nn.l2_loss(weights)

    with tf.variable_scope("dense1"):
        w1 = tf.get_variable("w", initializer=tf.constant(np.array([[0.1, 0.2, 0.3], [0.4, -0.5, 0.6]], np.float32)),
                             regularizer=regularizer)
        h = tf.nn.relu(tf.matmul(x, w1))
    with tf.variable_scope("dense2"):
        w2 = tf.get_variable("w", initializer=tf.constant(np.array([[0.3], [-0.2], [0.1]], np.float32)),
                             regularizer=regularizer)
        pred = tf.matmul(h, w2)
    mse = tf.reduce_mean(tf.square(pred - y))
    reg_losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    out["reg_loss_names"] = [t.name for t in reg_losses]
    reg_total = tf.losses.get_regularization_loss()
    out["reg_total_name"] = reg_total.name
    total_loss = mse + reg_total
    # the book's way: add the l2 term of each weight to a custom collection, then add_n
    for weight in (w1, w2):
        tf.add_to_collection("losses", 0.01 * tf.nn.l2_loss(weight))
    tf.add_to_collection("losses", mse)
    collected = tf.add_n(tf.get_collection("losses"))
    out["collected_name"] = collected.name
    train = tf.train.GradientDescentOptimizer(0.1).minimize(total_loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["reg_values"] = sess.run(reg_losses)
        out["reg_total"] = sess.run(reg_total)
        out["collected"] = sess.run(collected)
        out["l2_loss"] = sess.run(tf.nn.l2_loss(w1))
        for _ in range(30):
            sess.run(train)
        out["w1"], out["w2"], out["total"] = sess.run([w1, w2, total_loss])
    return out
