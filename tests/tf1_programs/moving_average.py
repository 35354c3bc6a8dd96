"""tf.train.ExponentialMovingAverage applied after each training step; shadow values and names."""

import numpy as np


def program(tf):
    out = {}
    w = tf.Variable(np.array([2.0, -1.0], np.float32), name="w")
    b = tf.Variable(1.0, name="b")
    global_step = tf.Variable(0, trainable=False, name="global_step")
    loss = tf.reduce_sum(tf.square(w)) + tf.square(b - 3.0)
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    train = optimizer.minimize(loss, global_step=global_step)
    ema = tf.train.ExponentialMovingAverage(0.9, num_updates=global_step)
    with tf.control_dependencies([train]):
        train_and_average = ema.apply([w, b])
    out["average_name_w"] = ema.average_name(w)
    out["average_name_b"] = ema.average_name(b)
    out["average_var_name"] = ema.average(w).name
    out["moving_average_variables"] = [v.name for v in tf.moving_average_variables()]
    out["variables_to_restore"] = sorted(ema.variables_to_restore().keys())
    shadows = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["shadow_at_init"] = sess.run([ema.average(w), ema.average(b)])
        for _ in range(6):
            sess.run(train_and_average)
            shadows.append(sess.run(ema.average(w)))
        out["shadows_w"] = np.array(shadows)
        out["shadow_b"] = sess.run(ema.average(b))
        out["w"], out["b"] = sess.run([w, b])
        out["step"] = sess.run(global_step)

    # without num_updates the decay is constant
    tf.reset_default_graph()
    v = tf.Variable(0.0, name="v")
    ema2 = tf.train.ExponentialMovingAverage(decay=0.5)
    maintain = ema2.apply([v])
    values = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for target in (4.0, 8.0, 8.0):
            sess.run(tf.assign(v, target))
            sess.run(maintain)
            values.append(sess.run(ema2.average(v)))
    out["constant_decay_shadows"] = np.array(values)
    out["maintain_type"] = maintain.type
    return out
