"""An embedding table looked up by ids, a loss, gradients clipped by global norm, then applied."""

import numpy as np


def program(tf):
    out = {}
    table = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
    embeddings = tf.get_variable("embeddings", initializer=tf.constant(table))
    ids = tf.placeholder(tf.int32, [None], name="ids")
    targets = tf.placeholder(tf.float32, [None, 2], name="targets")
    proj = tf.get_variable("proj", initializer=tf.constant(np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)))
    looked_up = tf.nn.embedding_lookup(embeddings, ids)
    out["looked_up"] = str(looked_up)
    pred = tf.matmul(looked_up, proj)
    loss = tf.reduce_sum(tf.square(pred - targets))
    params = [embeddings, proj]
    grads = tf.gradients(loss, params)
    out["embedding_grad_type"] = type(grads[0]).__name__
    clipped, global_norm = tf.clip_by_global_norm(grads, 5.0)
    out["clipped_type"] = type(clipped[0]).__name__
    optimizer = tf.train.GradientDescentOptimizer(0.1)
    train = optimizer.apply_gradients(zip(clipped, params))
    feed = {ids: np.array([1, 3, 1, 5], np.int32),
            targets: np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]], np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["global_norm_before"] = sess.run(global_norm, feed)
        out["proj_grad"] = sess.run(grads[1], feed)
        out["clipped_proj_grad"] = sess.run(clipped[1], feed)
        dense = sess.run(tf.convert_to_tensor(clipped[0]), feed)
        out["clipped_embedding_grad_dense"] = dense
        norms = []
        for _ in range(20):
            _, norm = sess.run([train, global_norm], feed)
            norms.append(norm)
        out["norms"] = np.array(norms)
        out["embeddings"], out["proj"], out["loss"] = sess.run([embeddings, proj, loss], feed)
    with tf.Session() as sess:
        v = tf.constant([3.0, 4.0])
        out["clip_by_norm"] = sess.run(tf.clip_by_norm(v, 1.0))
        out["clip_by_value"] = sess.run(tf.clip_by_value(v, 3.5, 10.0))
    return out
