"""The RNN program tests/rnn/test_dynamic_rnn_no_numpy.py runs with and without NumPy; prints its results as JSON.

    python tests/rnn/dynamic_rnn_program.py [--no-numpy] [--forward]

Six small models, each in its own variable scope: dynamic_rnn over a BasicLSTMCell (with sequence_length), an
LSTMCell with peepholes, a projection and cell clipping (time_major), a MultiRNNCell of a GRUCell and a
BasicRNNCell, bidirectional_dynamic_rnn (ReverseSequence), map_fn + scan + foldl, and TensorArrays used directly
(split/concat, unstack/gather, a dynamic_size array). For each: the loss, its tf.gradients w.r.t. the model's
variables, three GradientDescent steps and the variables after them (--forward: the loss only). The variables
start from seeded initializers, which draw the same numbers with and without NumPy.
"""

import json
import sys

if "--no-numpy" in sys.argv:
    sys.modules["numpy"] = None  # type: ignore[assignment]  # import numpy fails from here on, as in Pyodide

import webflow.compat.v1 as tf  # noqa: E402

tf.disable_v2_behavior()
tf.set_random_seed(7)
ROWS = [[[0.1 * ((3 * b + 5 * t + 7 * d) % 11) - 0.5 for d in range(4)] for t in range(5)] for b in range(3)]
x = tf.constant(ROWS, tf.float32)  # [batch 3, time 5, depth 4]
lengths = tf.constant([5, 3, 1])


def basic_lstm() -> tf.Tensor:
    out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(6), x, sequence_length=lengths, dtype=tf.float32)
    return tf.reduce_sum(tf.square(out)) + tf.reduce_sum(state.c * state.h)


def lstm_peepholes() -> tf.Tensor:
    cell = tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True, num_proj=3, cell_clip=0.8)
    out, state = tf.nn.dynamic_rnn(cell, tf.transpose(x, [1, 0, 2]), time_major=True, dtype=tf.float32)
    return tf.reduce_sum(out * out) + tf.reduce_sum(state.c)


def gru_multi() -> tf.Tensor:
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.BasicRNNCell(3)])
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    return tf.reduce_sum(tf.square(out)) + tf.reduce_sum(state[0])


def bidirectional() -> tf.Tensor:
    (fw, bw), _ = tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.BasicLSTMCell(3), x,
                                                  sequence_length=lengths, dtype=tf.float32)
    return tf.reduce_sum(tf.square(tf.concat([fw, bw], 2)))


def scans() -> tf.Tensor:
    w = tf.get_variable("w", initializer=tf.constant([[0.5, -0.3, 0.2, 0.1]] * 4))
    mapped = tf.map_fn(lambda row: tf.tanh(tf.matmul(row, w)), x)
    scanned = tf.scan(lambda acc, row: tf.tanh(acc * 0.5 + tf.matmul(row, w)), tf.transpose(x, [1, 0, 2]))
    folded = tf.foldl(lambda acc, row: acc + tf.reduce_sum(row * tf.reduce_sum(w)), tf.transpose(x, [1, 0, 2]),
                      initializer=tf.constant(0.0))  # a gradient that needs none of the loop's outputs
    return tf.reduce_sum(tf.square(mapped)) + tf.reduce_sum(scanned * scanned) + folded * 0.25


def tensor_array() -> tf.Tensor:
    v = tf.get_variable("v", initializer=tf.constant([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]]))
    joined = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(v * 2.0, [1, 2]).concat()
    picked = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(v).gather([2, 0])
    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(2, v[0] * v[2]).write(0, v[1])
    return (tf.reduce_sum(joined * joined) + tf.reduce_sum(picked * picked) + tf.reduce_sum(grown.stack() * 0.5)
            + tf.cast(grown.size(), tf.float32))


def plain(value: object) -> object:
    return value.tolist() if hasattr(value, "tolist") else value


def run_model(name: str, build: object, forward_only: bool) -> dict:
    """The model's loss (and gradients, 3 training steps, final variables) in a fresh Session."""
    with tf.variable_scope(name):
        loss = build()
    variables = tf.trainable_variables(name)
    result: dict = {"names": [v.name for v in variables]}
    if forward_only:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return dict(result, loss=float(sess.run(loss)))
    grads = tf.gradients(loss, variables)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=variables)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run([loss] + grads)
        losses = [float(sess.run([loss, train])[0]) for _ in range(3)]
        final = [plain(v) for v in sess.run(variables)]
    return dict(result, loss=float(first[0]), grads=[plain(g) for g in first[1:]], losses=losses, final=final)


def main() -> None:
    forward_only = "--forward" in sys.argv
    models = (basic_lstm, lstm_peepholes, gru_multi, bidirectional, scans, tensor_array)
    print(json.dumps({model.__name__: run_model(model.__name__, model, forward_only) for model in models}))


if __name__ == "__main__":
    main()
