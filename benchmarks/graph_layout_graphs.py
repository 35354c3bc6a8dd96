"""Writes the two graphs of issue 31's layout comparison as webflow.lab graph documents (JSON), for
benchmarks/graph_layout_compare.mjs: the Deep MNIST tutorial's training graph (~370 ops) and an LSTM language
model trained with dynamic_rnn (webflow keeps the loop body in a While op's function: ~320 ops drawn) and the same
model unrolled over 5 steps by static_rnn (~1,400 ops, about what TensorFlow's dynamic_rnn graph shows with its
Enter/Merge/Switch loop ops).

    python benchmarks/graph_layout_graphs.py [OUT_DIR]     # default benchmarks/_bench_out/
"""

from __future__ import annotations

import json
import os
import sys

import webflow.compat.v1 as tf
from webflow.lab.graph_document import graph_document

HERE = os.path.dirname(os.path.abspath(__file__))


def deep_mnist() -> None:
    """The Deep MNIST tutorial: two conv + pool layers, a 1024-unit layer, dropout, Adam."""
    x = tf.placeholder(tf.float32, [None, 784], name="x")
    labels = tf.placeholder(tf.float32, [None, 10], name="labels")

    def weight(shape: list) -> object:
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def bias(shape: list) -> object:
        return tf.Variable(tf.constant(0.1, shape=shape))

    def conv_pool(inputs: object, shape: list) -> object:
        conv = tf.nn.conv2d(inputs, weight(shape), strides=[1, 1, 1, 1], padding="SAME")
        return tf.nn.max_pool(tf.nn.relu(conv + bias(shape[-1:])), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")

    h1 = conv_pool(tf.reshape(x, [-1, 28, 28, 1]), [5, 5, 1, 32])
    h2 = conv_pool(h1, [5, 5, 32, 64])
    fc = tf.nn.relu(tf.matmul(tf.reshape(h2, [-1, 7 * 7 * 64]), weight([7 * 7 * 64, 1024])) + bias([1024]))
    keep = tf.placeholder(tf.float32, name="keep_prob")
    logits = tf.matmul(tf.nn.dropout(fc, keep), weight([1024, 10])) + bias([10])
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    tf.train.AdamOptimizer(1e-4).minimize(loss)


def lstm_language_model() -> None:
    """A 2-layer LSTM word model over 20 steps, dynamic_rnn (a while loop), clipped gradients, Adam."""
    vocab, hidden, steps = 65, 128, 20
    ids = tf.placeholder(tf.int32, [None, steps], name="ids")
    targets = tf.placeholder(tf.int32, [None, steps], name="targets")
    inputs = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab, hidden]), ids)
    cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(2)])
    outputs, _ = tf.nn.dynamic_rnn(cells, inputs, dtype=tf.float32)
    logits = tf.layers.dense(tf.reshape(outputs, [-1, hidden]), vocab)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                                          logits=logits))
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tf.trainable_variables()), 5.0)
    tf.train.AdamOptimizer(0.002).apply_gradients(zip(grads, tf.trainable_variables()))


def lstm_unrolled(steps: int = 5) -> None:
    """The same model unrolled by static_rnn (as TensorFlow's own dynamic_rnn graph shows its loop ops, ~1,000+)."""
    vocab, hidden = 65, 128
    ids = tf.placeholder(tf.int32, [None, steps], name="ids")
    targets = tf.placeholder(tf.int32, [None, steps], name="targets")
    inputs = tf.nn.embedding_lookup(tf.get_variable("embedding", [vocab, hidden]), ids)
    cells = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(hidden) for _ in range(2)])
    outputs, _ = tf.nn.static_rnn(cells, tf.unstack(inputs, axis=1), dtype=tf.float32)
    logits = tf.layers.dense(tf.reshape(tf.stack(outputs, axis=1), [-1, hidden]), vocab)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(targets, [-1]),
                                                                          logits=logits))
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tf.trainable_variables()), 5.0)
    tf.train.AdamOptimizer(0.002).apply_gradients(zip(grads, tf.trainable_variables()))


def write(build: object, path: str) -> int:
    tf.reset_default_graph()
    build()
    doc = graph_document(tf.get_default_graph())
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f)
    os.replace(tmp, path)  # never half-written
    return len(doc["nodes"])


def main() -> None:
    tf.disable_v2_behavior()
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "_bench_out")
    os.makedirs(out, exist_ok=True)
    for name, build in (("deep_mnist", deep_mnist), ("lstm_lm", lstm_language_model),
                        ("lstm_unrolled", lstm_unrolled)):
        count = write(build, os.path.join(out, f"graph_{name}.json"))
        print(f"{name}: {count} ops -> {os.path.join(out, f'graph_{name}.json')}")


if __name__ == "__main__":
    main()
