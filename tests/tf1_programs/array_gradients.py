"""Gradients through array ops (reshape, transpose, concat, gather, strided slice, tile, pad, ...)."""

import numpy as np


def program(tf):
    out = {}
    x_value = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0
    x = tf.Variable(x_value, name="x")
    # a non-uniform weight so each gradient has distinct entries
    def weighted(t):
        weights = tf.reshape(tf.range(1.0, tf.cast(tf.size(t), tf.float32) + 1.0), tf.shape(t))
        return tf.reduce_sum(t * weights)

    ys = {
        "reshape": tf.reshape(x, [6, 4]),
        "reshape_infer": tf.reshape(x, [-1, 2]),
        "transpose": tf.transpose(x, [2, 0, 1]),
        "transpose_default": tf.transpose(x),
        "concat": tf.concat([x, x * 2.0], axis=1),
        "stack": tf.stack([x, x], axis=0),
        "gather": tf.gather(x, [1, 0, 1], axis=0),
        "gather_axis2": tf.gather(x, [3, 3, 0], axis=2),
        "strided_slice": x[:, 1:, ::2],
        "slice_neg": x[1, -1, :],
        "newaxis": x[:, None, 0],
        "tile": tf.tile(x, [2, 1, 2]),
        "pad": tf.pad(x, [[1, 0], [0, 2], [1, 1]]),
        "slice": tf.slice(x, [0, 1, 1], [2, 2, -1]),
        "expand_squeeze": tf.squeeze(tf.expand_dims(x, 1), axis=1),
        "split": tf.split(x, 2, axis=2)[1],
        "reverse": tf.reverse(x, axis=[1]),
        "unstack": tf.unstack(x, axis=1)[2],
        "broadcast_to": tf.broadcast_to(x[:, :1, :], [2, 3, 4]),
        "gather_nd": tf.gather_nd(x, [[0, 1], [1, 2]]),
        "boolean_mask": tf.boolean_mask(tf.reshape(x, [6, 4]), [True, False, True, True, False, True]),
        "reduce_max": tf.reduce_max(x, axis=2),
        "cumsum": tf.cumsum(x, axis=2),
    }
    grads = {key: tf.gradients(weighted(y), x)[0] for key, y in ys.items()}
    for key, y in ys.items():
        out[f"{key}/shape"] = str(y.shape)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(ys)
        grad_values = sess.run({key: tf.convert_to_tensor(g) for key, g in grads.items()})
    for key in ys:
        out[f"{key}/value"] = values[key]
        out[f"{key}/grad"] = grad_values[key]
    out["gather_grad_type"] = type(grads["gather"]).__name__
    return out
