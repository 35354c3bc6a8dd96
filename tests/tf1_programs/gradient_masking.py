"""compute_gradients / apply_gradients: inspect, mask and rescale gradients before applying them."""

import numpy as np


def program(tf):
    out = {}
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="x")
    y = tf.constant([[1.0], [0.0], [1.0]], name="y")
    w = tf.Variable(np.array([[0.1], [-0.2]], np.float32), name="w")
    b = tf.Variable(np.array([0.05], np.float32), name="b")
    frozen = tf.Variable(np.array([[0.3], [0.4]], np.float32), name="frozen")
    logits = tf.matmul(x, w) + tf.matmul(x, frozen) + b
    loss = tf.reduce_mean(tf.square(logits - y))
    optimizer = tf.train.GradientDescentOptimizer(0.01)
    grads_and_vars = optimizer.compute_gradients(loss)
    out["vars_in_order"] = [v.name for _, v in grads_and_vars]
    out["grad_names"] = [g.name for g, _ in grads_and_vars]
    mask = np.array([[1.0], [0.0]], np.float32)
    masked = []
    for grad, var in grads_and_vars:
        if var is frozen:
            grad = tf.zeros_like(grad)  # freeze this variable by zeroing its gradient
        elif var is w:
            grad = grad * mask  # only update the first weight
        else:
            grad = grad * 2.0
        masked.append((grad, var))
    train = optimizer.apply_gradients(masked)
    out["train_name"] = train.name
    # compute_gradients for a var_list, and a variable the loss does not use
    unused = tf.Variable(1.0, name="unused")
    partial = optimizer.compute_gradients(loss, var_list=[b, unused])
    out["partial_grad_is_none"] = [g is None for g, _ in partial]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["grads_before"] = sess.run([g for g, _ in grads_and_vars])
        for _ in range(10):
            sess.run(train)
        out["w"], out["b"], out["frozen"] = sess.run([w, b, frozen])
        out["loss"] = sess.run(loss)
    return out
