"""Every tf.train optimizer on the same small least-squares problem, constant initial values.

Each optimizer is its own program so a missing one fails alone. 100 steps of a float32 optimizer:
rounding differences can compound, so the comparison for these programs is looser (see TOLERANCES).
"""

import numpy as np

# 100 float32 update steps: summation-order differences compound to ~1e-5 relative
TOLERANCES = {"*": (1e-4, 1e-5)}

X = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
Y = np.array([[3.0], [1.0], [-2.0], [1.5]], np.float32)


def _train(tf, make_optimizer, steps=100):
    w = tf.Variable(np.array([[0.5], [-0.5]], np.float32), name="w")
    b = tf.Variable(0.1, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(X), w) + b - Y))
    optimizer = make_optimizer()
    train = optimizer.minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(steps):
            _, current = sess.run([train, loss])
            if step % 20 == 0:
                losses.append(current)
        final = sess.run({"w": w, "b": b, "loss": loss})
        slots = sorted(optimizer.get_slot_names())
        final["slot_names"] = slots
        final["slot_vars"] = sorted(optimizer.get_slot(w, name).name for name in slots)
        final["slot_values"] = [sess.run(optimizer.get_slot(w, name)) for name in slots]
    final["losses"] = np.array(losses)
    final["variables"] = sorted(v.name for v in tf.global_variables())
    final["train_name"] = train.name
    return final


def program_gradient_descent(tf):
    return _train(tf, lambda: tf.train.GradientDescentOptimizer(0.05))


def program_momentum(tf):
    return _train(tf, lambda: tf.train.MomentumOptimizer(0.02, momentum=0.9))


def program_nesterov(tf):
    return _train(tf, lambda: tf.train.MomentumOptimizer(0.02, momentum=0.9, use_nesterov=True))


def program_adam(tf):
    return _train(tf, lambda: tf.train.AdamOptimizer(0.05))


def program_rmsprop(tf):
    return _train(tf, lambda: tf.train.RMSPropOptimizer(0.01))


def program_rmsprop_momentum_centered(tf):
    # epsilon=1e-2, not the default 1e-10: near the optimum ms - mg^2 tends to 0 and, with a tiny
    # epsilon, float32 rounding alone moves w by 0.5% (webflow and TF agree to 1e-11 in float64)
    return _train(tf, lambda: tf.train.RMSPropOptimizer(0.01, decay=0.8, momentum=0.5, epsilon=1e-2,
                                                        centered=True))


def program_adagrad(tf):
    return _train(tf, lambda: tf.train.AdagradOptimizer(0.3))


def program_adadelta(tf):
    return _train(tf, lambda: tf.train.AdadeltaOptimizer(1.0, rho=0.9))
