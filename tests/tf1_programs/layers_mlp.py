"""tf.layers MLP: dense + batch_normalization (a `training` placeholder) + dropout, trained with the
UPDATE_OPS pattern; variable names, seeded initial values, losses and moving statistics as in TensorFlow.

Dropout is always on here (training=True): with a `training` placeholder its forward pass matches TF, but
webflow's gradient of an If re-runs the branch and so draws a new mask (see tests/test_layers.py).
"""

import numpy as np
from _util import error_name

rng = np.random.RandomState(3)
FEATURES = rng.randn(16, 5).astype(np.float32)
LABELS = (FEATURES[:, 0] + FEATURES[:, 1] > 0).astype(np.int64)


def _model(tf, x, training):
    hidden = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_regularizer=lambda w: 0.01 * tf.nn.l2_loss(w))
    hidden = tf.layers.batch_normalization(hidden, training=training, momentum=0.9)
    hidden = tf.layers.dropout(hidden, rate=0.25, training=True)
    return tf.layers.dense(hidden, 2, name="logits")


def program(tf):
    out = {}
    tf.set_random_seed(42)
    x = tf.placeholder(tf.float32, [None, 5], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    training = tf.placeholder(tf.bool, [], name="training")
    logits = _model(tf, x, training)
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    loss = xent + tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    out["global"] = [v.name for v in tf.global_variables()]
    out["trainable"] = [v.name for v in tf.trainable_variables()]
    out["update_ops"] = [op.name for op in update_ops]
    out["regularization"] = [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)]
    out["logits"] = str(logits)
    train_feed = {x: FEATURES, y: LABELS, training: True}
    eval_feed = {x: FEATURES, y: LABELS, training: False}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["initial"] = sess.run(tf.global_variables())
        out["eval_loss_before"] = sess.run(loss, eval_feed)
        out["train_losses"] = np.array([sess.run([train_op, loss], train_feed)[1] for _ in range(5)])
        out["final"] = sess.run(tf.global_variables())
        out["eval_logits"] = sess.run(logits, eval_feed)
    return out


def program_reuse(tf):
    """Sharing: a second `dense(name=..., reuse=True)`, AUTO_REUSE inside an outer scope, a reused Layer object."""
    out = {}
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    first = tf.layers.dense(x, 4, name="shared")
    second = tf.layers.dense(x, 4, name="shared", reuse=True)
    with tf.variable_scope("outer"):
        a = tf.layers.dense(x, 2, reuse=tf.AUTO_REUSE)
        b = tf.layers.dense(x, 2, reuse=tf.AUTO_REUSE)
        c = tf.layers.dense(x, 2)
    layer = tf.layers.Dense(3, use_bias=False, trainable=False)
    d, e = layer(x), layer(x)
    out["wrong_input"] = error_name(lambda: layer(first))
    frozen = tf.layers.batch_normalization(first, training=True, trainable=False)
    out["names"] = [t.name for t in (first, second, a, b, c, d, e, frozen)]
    out["global"] = [v.name for v in tf.global_variables()]
    out["trainable"] = [v.name for v in tf.trainable_variables()]
    out["update_ops"] = [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)]
    out["layer"] = [layer.name, layer.scope_name, len(layer.weights), len(layer.trainable_weights)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        feed = {x: np.arange(6, dtype=np.float32).reshape(2, 3)}
        r = sess.run([first, second, a, b], feed)
        out["shared_equal"] = [bool(np.array_equal(r[0], r[1])), bool(np.array_equal(r[2], r[3]))]
    return out
