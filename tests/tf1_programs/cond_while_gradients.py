"""tf.cond and tf.while_loop: values, static shapes, and gradients through them."""

import numpy as np


def program_cond(tf):
    out = {}
    x = tf.placeholder(tf.float32, [], name="x")
    w = tf.Variable(2.0, name="w")
    y = tf.cond(x > 0.0, lambda: tf.square(x) * w, lambda: -x * w)
    dy_dx, dy_dw = tf.gradients(y, [x, w])
    pair = tf.cond(tf.less(x, 1.0), lambda: (x + 1.0, x * 10.0), lambda: (x - 1.0, x * 100.0))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for value in (3.0, -2.0):
            out[f"y({value})"] = sess.run(y, {x: value})
            out[f"grads({value})"] = sess.run([dy_dx, dy_dw], {x: value})
            out[f"pair({value})"] = sess.run(pair, {x: value})
    out["y_shape"] = str(y.shape)
    out["y_dtype"] = y.dtype.name
    out["pair_len"] = len(pair)
    return out


def program_while(tf):
    out = {}
    # sum of the first n integers
    n = tf.placeholder(tf.int32, [], name="n")
    i0 = tf.constant(0)
    s0 = tf.constant(0)
    _, total = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), [i0, s0])

    # x ** 2**k by repeated squaring, differentiated w.r.t. x
    x = tf.Variable(1.1, name="x")
    k = tf.constant(3)
    _, powered = tf.while_loop(lambda j, v: j < k, lambda j, v: (j + 1, v * v), [tf.constant(0), x])
    grad = tf.gradients(powered, x)[0]

    # a growing tensor with shape_invariants
    start = tf.constant([1.0])
    _, grown = tf.while_loop(lambda j, v: j < 3, lambda j, v: (j + 1, tf.concat([v, v * 2.0], 0)),
                             [tf.constant(0), start],
                             shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["sum(10)"] = sess.run(total, {n: 10})
        out["sum(0)"] = sess.run(total, {n: 0})
        out["powered"], out["grad"] = sess.run([powered, grad])
        out["grown"] = sess.run(grown)
    out["total_shape"] = str(total.shape)
    out["grown_shape"] = str(grown.shape)
    out["expected_grad"] = np.float32(8 * 1.1 ** 7)
    return out


def program_cond_in_loss(tf):
    out = {}
    # train through a cond: the branch taken depends on a placeholder
    use_l1 = tf.placeholder(tf.bool, [], name="use_l1")
    w = tf.Variable(np.array([1.0, -2.0, 3.0], np.float32), name="w")
    loss = tf.cond(use_l1, lambda: tf.reduce_sum(tf.abs(w)), lambda: tf.reduce_sum(tf.square(w)))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, {use_l1: True})
        out["after_l1"] = sess.run(w)
        sess.run(train, {use_l1: False})
        out["after_l2"] = sess.run(w)
    return out
