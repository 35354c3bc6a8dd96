"""Seeded random initialisation (graph seed + op seeds): the values a TF1 tutorial would print."""


def program(tf):
    out = {}
    tf.set_random_seed(1234)
    normal = tf.random_normal([3, 2], seed=1)
    normal_same_seed = tf.random_normal([3, 2], seed=1)
    uniform = tf.random_uniform([4], minval=-1.0, maxval=1.0, seed=2)
    truncated = tf.truncated_normal([2, 3], stddev=0.1, seed=3)
    int_uniform = tf.random_uniform([5], minval=0, maxval=10, dtype=tf.int32, seed=4)
    no_op_seed = tf.random_normal([2])
    w = tf.Variable(tf.truncated_normal([3, 2], stddev=0.5, seed=5), name="w")
    with tf.variable_scope("dense"):
        kernel = tf.get_variable("kernel", [4, 3], initializer=tf.glorot_uniform_initializer(seed=6))
        default_init = tf.get_variable("default_init", [2, 2])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(normal)
        out["normal_run1"] = first
        out["normal_run2_differs"] = bool((sess.run(normal) != first).any())
        out["normal_same_seed"] = sess.run(normal_same_seed)
        out["uniform"] = sess.run(uniform)
        out["truncated"] = sess.run(truncated)
        out["int_uniform"] = sess.run(int_uniform)
        out["no_op_seed"] = sess.run(no_op_seed)
        out["w"] = sess.run(w)
        out["kernel"] = sess.run(kernel)
        out["default_init"] = sess.run(default_init)
    with tf.Session() as sess:
        out["normal_new_session"] = sess.run(normal)
    out["normal_name"] = normal.name
    out["truncated_name"] = truncated.name
    return out
