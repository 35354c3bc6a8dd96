"""A 2-layer MLP regressor with tf.layers.dense and tf.layers.dropout (seeded), tf.losses.mean_squared_error,
tf.train.AdamOptimizer and a tf.train.Saver: the GraphDef (the gradients, the Adam slots and update ops), the losses
and the restored values.

Known differences, left out of the comparison and listed in the docstrings they come from: a `training`
placeholder makes dropout a tf.cond, which webflow builds as a functional If where TensorFlow's TF1 graph has
Switch/Merge (so dropout gets the Python bool True here). The listing includes the Saver's save/ nodes; the
softmax cross-entropy gradients are compared node for node in softmax_xent_gradient_graphs.py."""

import os
import tempfile

import numpy as np
from _graph_listing import graph_nodes


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(7)
        images = tf.placeholder(tf.float32, [None, 6], name="images")
        labels = tf.placeholder(tf.float32, [None, 3], name="labels")
        hidden = tf.layers.dense(images, 8, activation=tf.nn.relu, name="hidden")
        dropped = tf.layers.dropout(hidden, rate=0.25, training=True, seed=3)
        logits = tf.layers.dense(dropped, 3, name="logits")
        loss = tf.losses.mean_squared_error(labels=labels, predictions=logits)
        global_step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
        init = tf.global_variables_initializer()
        saver = tf.train.Saver(max_to_keep=2)
        out["nodes"] = graph_nodes(graph)
        out["variables"] = [v.name for v in tf.global_variables()]
        rng = np.random.RandomState(0)
        xs = rng.normal(size=(10, 6)).astype(np.float32)
        ys = rng.normal(size=(10, 3)).astype(np.float32)
        with tf.Session() as sess, tempfile.TemporaryDirectory() as folder:
            sess.run(init)
            out["losses"] = np.array([sess.run([train, loss], {images: xs, labels: ys})[1] for _ in range(5)])
            path = saver.save(sess, os.path.join(folder, "mlp"), global_step=global_step)
            out["saved_as"] = os.path.basename(path)
            kernel = graph.get_tensor_by_name("hidden/kernel:0")
            before = sess.run(kernel)
            sess.run(train, {images: xs, labels: ys})
            saver.restore(sess, path)
            out["restored_equal"] = bool(np.array_equal(sess.run(kernel), before))
            out["step"] = sess.run(global_step)
    return out
