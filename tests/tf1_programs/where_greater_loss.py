"""A piecewise custom loss with tf.where / tf.greater, and its gradient (the book's "profit" loss)."""

import numpy as np


def program(tf):
    out = {}
    y_true = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0], name="y_true")
    y_pred_init = np.array([1.5, 1.0, 3.5, 2.0, 5.0], np.float32)
    y_pred = tf.Variable(y_pred_init, name="y_pred")
    loss_more, loss_less = 10.0, 1.0
    # selling more than demand costs 1, less than demand costs 10 (penalise under-prediction)
    loss = tf.reduce_sum(tf.where(tf.greater(y_pred, y_true),
                                  (y_pred - y_true) * loss_less,
                                  (y_true - y_pred) * loss_more))
    grad = tf.gradients(loss, y_pred)[0]
    greater = tf.greater(y_pred, y_true)
    huber_delta = 1.0
    err = y_true - y_pred
    huber = tf.where(tf.abs(err) < huber_delta, 0.5 * tf.square(err), huber_delta * (tf.abs(err) - 0.5 * huber_delta))
    huber_grad = tf.gradients(tf.reduce_mean(huber), y_pred)[0]
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["greater"] = sess.run(greater)
        out["loss"], out["grad"] = sess.run([loss, grad])
        out["huber"], out["huber_grad"] = sess.run([huber, huber_grad])
        for _ in range(5):
            sess.run(train)
        out["y_pred_after"] = sess.run(y_pred)
        out["loss_after"] = sess.run(loss)
    out["where_name"] = loss.op.inputs[0].name
    out["greater_name"] = greater.name
    out["greater_dtype"] = greater.dtype.name
    out["grad_shape"] = str(grad.shape)
    return out
