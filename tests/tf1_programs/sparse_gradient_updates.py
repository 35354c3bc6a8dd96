"""An embedding's IndexedSlices gradient clipped by global norm, then applied by GradientDescent as TensorFlow does:
the clipped tensors' names and a ScatterSub of lr * rows (no dense gradient); repeated ids; the values."""

import numpy as np


def program(tf):
    out = {}
    table = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
    with tf.name_scope("Model"):
        embeddings = tf.get_variable("embeddings", initializer=tf.constant(table))
        proj = tf.get_variable("proj", initializer=tf.constant(np.array([[1.0, -1.0], [0.5, 2.0]], np.float32)))
        ids = tf.placeholder(tf.int32, [None], name="ids")
        loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.embedding_lookup(embeddings, ids), proj) - 1.0))
        grads = tf.gradients(loss, [embeddings, proj])
        clipped, norm = tf.clip_by_global_norm(grads, 0.5)
        train = tf.train.GradientDescentOptimizer(0.3).apply_gradients(zip(clipped, [embeddings, proj]))
    out["clipped_names"] = [clipped[0].values.op.name, clipped[1].op.name]
    out["update_ops"] = [op.name + ":" + op.type for op in tf.get_default_graph().get_operations()
                         if "/update_" in op.name]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(4):
            _, out_norm = sess.run([train, norm], {ids: np.array([1, 3, 1, 5, 1], np.int32)})
        out["norm"] = out_norm
        out["embeddings"], out["proj"] = sess.run([embeddings, proj])
    return out
