"""tf.losses and tf.metrics: values, node names, collections and errors, as a TF1 program would see them.

The ops inside `softmax_cross_entropy_loss/xentropy/` (how tf.nn's softmax cross-entropy flattens its
inputs) are left out of the node-name lists: webflow builds that flattening with fewer nodes.
"""

import numpy as np
from _util import error_name, op_names

LOGITS = np.array([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [1.2, 0.2, 3.1], [0.3, 0.4, 0.2]], np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[[0, 1, 1, 2]]
IDS = np.array([0, 1, 1, 2], np.int32)
TARGET = np.array([[1.0, 0.0], [0.5, -1.0], [2.0, 2.0], [0.0, 1.0]], np.float32)
PRED = np.array([[0.8, 0.3], [0.5, 1.0], [-1.0, 2.5], [0.1, 0.9]], np.float32)


def _visible(names):
    return [n for n in names if not n.startswith("softmax_cross_entropy_loss") or "/xentropy/" not in n]


def program_losses(tf):
    per_example = np.array([[1.0], [0.0], [2.0], [0.5]], np.float32)
    r = tf.losses.Reduction
    losses = {
        "mse": tf.losses.mean_squared_error(TARGET, PRED),
        "mse_weighted": tf.losses.mean_squared_error(TARGET, PRED, weights=per_example),
        "abs_mean": tf.losses.absolute_difference(TARGET, PRED, weights=per_example, reduction=r.MEAN),
        "huber_sum": tf.losses.huber_loss(TARGET, PRED, delta=0.5, reduction=r.SUM),
        "huber_batch": tf.losses.huber_loss(TARGET, PRED, reduction=r.SUM_OVER_BATCH_SIZE),
        "hinge_none": tf.losses.hinge_loss(tf.constant(TARGET > 0.5), PRED, reduction=r.NONE, loss_collection=None),
        "log": tf.losses.log_loss(tf.constant(TARGET > 0.5), tf.sigmoid(PRED), weights=tf.constant(2.0)),
        "cosine": tf.losses.cosine_distance(TARGET / np.linalg.norm(TARGET, axis=1, keepdims=True),
                                            PRED / np.linalg.norm(PRED, axis=1, keepdims=True), axis=1),
        "softmax": tf.losses.softmax_cross_entropy(ONE_HOT, LOGITS, label_smoothing=0.1),
        "softmax_weighted": tf.losses.softmax_cross_entropy(ONE_HOT, LOGITS, weights=[1.0, 0.0, 2.0, 1.0]),
        "sparse": tf.losses.sparse_softmax_cross_entropy(IDS, LOGITS, weights=per_example),
        "sigmoid": tf.losses.sigmoid_cross_entropy(tf.constant(TARGET > 0.5), PRED, label_smoothing=0.2),
        "zero_weights": tf.losses.mean_squared_error(TARGET, PRED, weights=0.0),
    }
    total = tf.losses.get_total_loss()
    out = {"names": {k: v.name for k, v in losses.items()}, "total_name": total.name,
           "collection": [t.name for t in tf.losses.get_losses()],
           "ops": _visible(op_names(tf.get_default_graph()))}
    with tf.Session() as sess:
        out["values"] = sess.run(losses)
        out["total"] = sess.run(total)
    return out


def program_gradients(tf):
    logits = tf.Variable(LOGITS, name="logits")
    pred = tf.Variable(PRED, name="pred")
    loss = (tf.losses.softmax_cross_entropy(ONE_HOT, logits, weights=[1.0, 0.5, 0.0, 2.0], label_smoothing=0.2)
            + tf.losses.huber_loss(TARGET, pred, weights=[[1.0], [2.0], [0.0], [1.0]], delta=0.5)
            + tf.losses.sparse_softmax_cross_entropy(IDS[:, None], logits))
    grads = tf.gradients(loss, [logits, pred])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {"loss": sess.run(loss), "grads": sess.run(grads)}


def program_metrics(tf):
    labels = tf.constant([1, 2, 0, 0, 1], name="labels")
    predictions = tf.constant([1, 2, 1, 0, 0], name="predictions")
    acc, acc_update = tf.metrics.accuracy(labels, predictions)
    acc_w, acc_w_update = tf.metrics.accuracy(labels, predictions, weights=[1.0, 2.0, 0.0, 1.0, 1.0], name="wacc")
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    mean, mean_update = tf.metrics.mean(values, weights=[[1.0], [3.0]], metrics_collections=["m"])
    mse, mse_update = tf.metrics.mean_squared_error(tf.cast(labels, tf.float32), tf.cast(predictions, tf.float32))
    prec, prec_update = tf.metrics.precision(labels, predictions)
    rec, rec_update = tf.metrics.recall(labels, predictions, weights=[1.0, 1.0, 2.0, 1.0, 3.0])
    updates = [acc_update, acc_w_update, mean_update, mse_update, prec_update, rec_update]
    reads = [acc, acc_w, mean, mse, prec, rec]
    out = {"names": [t.name for t in updates + reads],
           "local": [v.name for v in tf.local_variables()],
           "metric_vars": [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)],
           "global": [v.name for v in tf.global_variables()],
           "m": [t.name for t in tf.get_collection("m")],
           "ops": op_names(tf.get_default_graph())}
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        out["initial"] = sess.run(reads)
        out["runs"] = [[sess.run(u) for u in updates] for _ in range(3)]
        out["after"] = sess.run(reads)
        sess.run(tf.local_variables_initializer())
        out["reset"] = sess.run(reads)
    return out


def program_streaming_eval(tf):
    """Train a softmax classifier with tf.losses and evaluate it with a streaming tf.metrics.accuracy."""
    rng = np.random.RandomState(0)
    data = rng.normal(size=(24, 3)).astype(np.float32)
    ids = (data[:, 0] + data[:, 1] > 0).astype(np.int64) + (data[:, 2] > 1).astype(np.int64)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    w = tf.Variable(np.zeros((3, 3), np.float32), name="w")
    b = tf.Variable(np.zeros(3, np.float32), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    acc, acc_update = tf.metrics.accuracy(y, tf.argmax(logits, 1))
    out = {"loss_name": loss.name, "losses": [], "accuracy": []}
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        for step in range(6):
            batch = slice(4 * step, 4 * step + 4)
            out["losses"].append(sess.run([loss, train], {x: data[batch], y: ids[batch]})[0])
        for step in range(3):
            batch = slice(8 * step, 8 * step + 8)
            out["accuracy"].append(sess.run(acc_update, {x: data[batch], y: ids[batch]}))
        out["final"] = sess.run(acc)
    return out


def program_errors(tf):
    target = tf.constant(TARGET)
    out = {}
    for key, weights in (("rank", np.ones(4, np.float32)), ("dim", np.ones((1, 3), np.float32))):
        try:
            tf.losses.mean_squared_error(target, PRED, weights=weights)
            out[key] = "no error"
        except ValueError as error:
            out[key] = str(error)
    out["one_hot_sparse"] = error_name(lambda: tf.losses.sparse_softmax_cross_entropy(ONE_HOT, LOGITS))
    out["bad_reduction"] = error_name(lambda: tf.losses.absolute_difference(TARGET, PRED, reduction="mean"))
    out["shapes"] = error_name(lambda: tf.losses.huber_loss(TARGET[:, :1], PRED))
    out["no_axis"] = error_name(lambda: tf.losses.cosine_distance(TARGET, PRED))
    out["metric_shapes"] = error_name(lambda: tf.metrics.accuracy([1, 2, 3], [1, 2]))
    return out
