"""A counter with assign_add and control_dependencies: what runs, and in what order."""


def program(tf):
    out = {}
    counter = tf.Variable(0, name="counter")
    increment = tf.assign_add(counter, 1)
    with tf.control_dependencies([increment]):
        read_after = tf.identity(counter, name="read_after")
    total = tf.Variable(0.0, name="total")
    x = tf.placeholder(tf.float32, [], name="x")
    add_to_total = tf.assign_add(total, x)
    with tf.control_dependencies([add_to_total]):
        doubled = total * 2.0
    with tf.control_dependencies([increment, add_to_total]):
        step = tf.no_op(name="step")
    group = tf.group(increment, add_to_total, name="both")

    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["after_init"] = sess.run(counter)
        out["increment_results"] = [sess.run(increment) for _ in range(3)]
        out["read_after"] = [sess.run(read_after) for _ in range(2)]
        out["counter_now"] = sess.run(counter)
        out["doubled"] = sess.run(doubled, {x: 1.5})
        sess.run(step, {x: 2.0})
        out["after_step"] = sess.run([counter, total])
        out["group_result"] = sess.run(group, {x: 0.5}) is None
        out["after_group"] = sess.run([counter, total])
        sess.run(tf.assign(counter, 100))
        out["after_assign"] = sess.run(counter)
        sub = tf.assign_sub(counter, 7)
        out["assign_sub"] = sess.run(sub)
    out["increment_name"] = increment.name
    out["read_after_name"] = read_after.name
    out["doubled_name"] = doubled.name
    out["step_control_inputs"] = sorted(op.name for op in step.control_inputs)
    out["doubled_control_inputs"] = sorted(op.name for op in doubled.op.control_inputs)
    out["group_type"] = group.type
    out["counter_dtype"] = counter.dtype.name
    out["increment_dtype"] = increment.dtype.name
    return out
