"""A variable created with trainable=False is not in TRAINABLE_VARIABLES and minimize leaves it untouched."""

import numpy as np


def program(tf):
    out = {}
    scale = tf.Variable(3.0, trainable=False, name="scale")
    w = tf.Variable(np.array([1.0, 2.0], np.float32), name="w")
    with tf.variable_scope("layer"):
        v = tf.get_variable("v", initializer=tf.constant([0.5, 0.5]), trainable=False)
        u = tf.get_variable("u", [2], initializer=tf.ones_initializer())
    global_step = tf.Variable(0, trainable=False, name="global_step")
    loss = tf.reduce_sum(tf.square(w * scale + v * u - 1.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=global_step)
    out["trainable"] = [var.name for var in tf.trainable_variables()]
    out["global"] = [var.name for var in tf.global_variables()]
    out["collection_trainable"] = [var.name for var in tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(20):
            sess.run(train)
        out["scale"], out["v"], out["w"], out["u"], out["step"] = sess.run([scale, v, w, u, global_step])
    # explicitly asking to train a non-trainable var through var_list still works
    train_scale = tf.train.GradientDescentOptimizer(0.001).minimize(loss, var_list=[scale])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_scale)
        out["scale_trained_via_var_list"] = sess.run(scale)
    return out
