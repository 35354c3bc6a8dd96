"""tf.gradients' given grad_ys (a Python list becomes gradients/grad_y_0, every seed passes through an Identity
gradients/grad_ys_0) and a control dependency on a fed placeholder (the feed meets it: TensorFlow moves a fed
Placeholder's control edges to the feed), also in a second derivative seeded by that placeholder."""


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        seed = tf.placeholder(tf.float32, [2], name="seed")
        y = tf.tanh(x)
        from_list = tf.gradients([y, x * 2.0], x, grad_ys=[[1.0, 2.0], None])[0]
        from_placeholder = tf.gradients(y, x, grad_ys=seed)[0]
        second = tf.gradients(from_placeholder, x, grad_ys=seed)[0]
        with tf.control_dependencies([seed]):
            after_seed = tf.identity(x)
        out["seed_nodes"] = [f"{op.name}:{op.type} <- {','.join(t.name for t in op.inputs)}"
                             for op in graph.get_operations() if "grad_y" in op.name]
        feeds = {x: [1.0, 2.0], seed: [1.0, 0.5]}
        with tf.Session() as sess:
            out["from_list"], out["from_placeholder"], out["second"], out["after_seed"] = sess.run(
                [from_list, from_placeholder, second, after_seed], feeds)
    return out
