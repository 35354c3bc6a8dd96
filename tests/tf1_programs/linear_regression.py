"""The first TF1 tutorial: fit y = W*x + b with GradientDescentOptimizer on fixed data."""

import numpy as np


def program(tf):
    x_train = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], dtype=np.float32)
    y_train = np.array([2.1, 3.9, 6.2, 7.8, 10.1, 12.2], dtype=np.float32)

    X = tf.placeholder(tf.float32, name="X")
    Y = tf.placeholder(tf.float32, name="Y")
    W = tf.Variable(0.3, name="weight")
    b = tf.Variable(-0.3, name="bias")
    pred = tf.add(tf.multiply(X, W), b)
    cost = tf.reduce_sum(tf.pow(pred - Y, 2)) / (2 * len(x_train))
    optimizer = tf.train.GradientDescentOptimizer(0.01).minimize(cost)

    costs = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(300):
            _, c = sess.run([optimizer, cost], feed_dict={X: x_train, Y: y_train})
            if step % 50 == 0:
                costs.append(c)
        final_w, final_b, final_cost = sess.run([W, b, cost], feed_dict={X: x_train, Y: y_train})
    return {
        "costs_every_50": np.array(costs),
        "W": final_w,
        "b": final_b,
        "final_cost": final_cost,
        "pred_name": pred.name,
        "cost_name": cost.name,
        "train_op_name": optimizer.name,
        "train_op_type": optimizer.type,
        "W_name": W.name,
        "W_shape": str(W.shape),
        "pred_shape": str(pred.shape),
    }
