"""A small TF1 CNN built from tf.layers (conv2d, max_pooling2d, batch_normalization, flatten, dense,
dropout) with a graph-level seed, trained a few SGD steps with the UPDATE_OPS pattern: variable names,
seeded initial values, losses and moving statistics as in TensorFlow."""

import numpy as np

rng = np.random.RandomState(7)
IMAGES = rng.rand(8, 8, 8, 1).astype(np.float32)
LABELS = rng.randint(0, 3, size=8).astype(np.int64)


def program(tf):
    out = {}
    tf.set_random_seed(1234)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    net = tf.layers.conv2d(images, 4, 3, padding="same", activation=tf.nn.relu)
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.conv2d(net, 6, [3, 3], activation=tf.nn.relu, name="conv_b")
    net = tf.layers.batch_normalization(net, training=True)
    net = tf.layers.average_pooling2d(net, 2, 1, padding="same")
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 16, activation=tf.nn.relu)
    net = tf.layers.dropout(net, rate=0.3, training=True)
    logits = tf.layers.dense(net, 3)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.GradientDescentOptimizer(0.2).minimize(loss)
    out["global"] = [(v.name, str(v.shape)) for v in tf.global_variables()]
    out["trainable"] = [v.name for v in tf.trainable_variables()]
    out["update_ops"] = [op.name for op in update_ops]
    out["tensors"] = [str(t) for t in (net, logits)]
    feed = {images: IMAGES, labels: LABELS}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial"] = sess.run(tf.global_variables())
        out["losses"] = np.array([sess.run([train_op, loss], feed)[1] for _ in range(4)])
        out["final"] = sess.run(tf.global_variables())
    return out
