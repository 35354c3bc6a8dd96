"""tf.train.exponential_decay (staircase and smooth) driven by the global step while training."""

import numpy as np


def program(tf):
    out = {}
    global_step = tf.Variable(0, trainable=False, name="global_step")
    smooth = tf.train.exponential_decay(0.1, global_step, decay_steps=10, decay_rate=0.5)
    stairs = tf.train.exponential_decay(0.1, global_step, 10, 0.5, staircase=True)
    w = tf.Variable(np.array([5.0, -3.0], np.float32), name="w")
    loss = tf.reduce_sum(tf.square(w))
    train = tf.train.GradientDescentOptimizer(stairs).minimize(loss, global_step=global_step)
    smooth_values, stair_values, steps, ws = [], [], [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(25):
            smooth_values.append(sess.run(smooth))
            stair_values.append(sess.run(stairs))
            sess.run(train)
            steps.append(sess.run(global_step))
            ws.append(sess.run(w))
    out["smooth"] = np.array(smooth_values)
    out["stairs"] = np.array(stair_values)
    out["steps"] = np.array(steps)
    out["w_trajectory"] = np.array(ws)
    out["smooth_name"] = smooth.name
    out["stairs_name"] = stairs.name
    out["smooth_dtype"] = smooth.dtype.name

    # get_or_create_global_step and a decay with a float global step fed as a constant
    tf.reset_default_graph()
    gs = tf.train.get_or_create_global_step()
    out["global_step_name"] = gs.name
    out["global_step_dtype"] = gs.dtype.name
    out["same_global_step"] = tf.train.get_global_step() is gs
    rate = tf.train.exponential_decay(1.0, 35, 10, 0.9, staircase=True)
    with tf.Session() as sess:
        out["rate_at_35"] = sess.run(rate)
    return out
