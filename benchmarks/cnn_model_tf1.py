"""The Deep MNIST CNN timed under a TF1 API: run as a worker by cnn_throughput.py, once under webflow and once
under TensorFlow, with the very same code (the module named `tf` is the only difference).

    python cnn_model_tf1.py {webflow|tensorflow} --batches 50 128 --threads 2

Prints one JSON object: training images/s per batch size (best block) with the process CPU ms per step, and per
layer the forward and forward+backward times (unless --no-layers).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from bench_timing import best_seconds, timed_steps

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (layer, input shape without the batch, weight shape or pooling window) for the Deep MNIST CNN, NHWC.
LAYERS = [
    ("conv1 5x5x1->32", "conv", (28, 28, 1), (5, 5, 1, 32)),
    ("pool1 2x2", "pool", (28, 28, 32), None),
    ("conv2 5x5x32->64", "conv", (14, 14, 32), (5, 5, 32, 64)),
    ("pool2 2x2", "pool", (14, 14, 64), None),
    ("fc1 3136->1024", "dense", (3136,), (3136, 1024)),
    ("fc2 1024->10", "dense", (1024,), (1024, 10)),
]


def load(framework: str, threads: int):
    os.environ["OPENBLAS_NUM_THREADS"] = str(threads)   # webflow's GEMMs run in OpenBLAS, as NumPy's
    if framework == "tensorflow":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf
    else:
        sys.path.insert(0, REPO)
        import webflow.compat.v1 as tf
    tf.disable_v2_behavior()
    config = tf.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=1)
    return tf, config


def build_cnn(tf, batch: int):
    x = tf.placeholder(tf.float32, [batch, 784])
    y_ = tf.placeholder(tf.float32, [batch, 10])
    keep_prob = tf.placeholder(tf.float32)
    return x, y_, keep_prob, cnn_train_op(tf, x, y_, keep_prob)


def cnn_train_op(tf, x, y_, keep_prob):
    """The CNN on any [batch, 784] float images and [batch, 10] one-hot labels (placeholders, or a tf.data
    iterator's get_next as in cnn_input_pipeline.py): its Adam training op. Each layer has its name scope, so
    that a trace's ops name their layer (cnn_profile.py); the scopes change no computation."""

    def weight(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1))

    def conv_relu_pool(inputs, shape, number):
        with tf.name_scope(f"conv{number}"):
            h = tf.nn.relu(tf.nn.conv2d(inputs, weight(shape), [1, 1, 1, 1], "SAME") + weight([shape[-1]]))
        with tf.name_scope(f"pool{number}"):
            return tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")

    h = conv_relu_pool(tf.reshape(x, [-1, 28, 28, 1]), [5, 5, 1, 32], 1)
    h = conv_relu_pool(h, [5, 5, 32, 64], 2)
    with tf.name_scope("fc1"):
        h = tf.nn.relu(tf.matmul(tf.reshape(h, [-1, 3136]), weight([3136, 1024])) + weight([1024]))
    with tf.name_scope("fc2"):
        logits = tf.matmul(tf.nn.dropout(h, keep_prob), weight([1024, 10])) + weight([10])
    with tf.name_scope("loss"):
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y_, logits=logits))
    return tf.train.AdamOptimizer(1e-4).minimize(loss)


def training_rate(tf, config, batch: int, steps: int, rng) -> tuple:
    """Images per second of full training steps (forward, backward, Adam) of the whole CNN."""
    graph = tf.Graph()
    with graph.as_default():
        tf.set_random_seed(0)
        x, y_, keep_prob, train_op = build_cnn(tf, batch)
        images = rng.random((batch, 784), dtype="float32")
        labels = rng.multinomial(1, [0.1] * 10, size=batch).astype("float32")
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            feed = {x: images, y_: labels, keep_prob: 0.5}
            seconds, cpu_seconds = timed_steps(lambda: sess.run(train_op, feed), steps)
    return batch / seconds, 1e3 * cpu_seconds


def layer_graph(tf, kind: str, batch: int, in_shape: tuple, weight_shape):
    """(output, [gradients w.r.t. input and weight]) of one layer, with a fed upstream gradient."""
    x = tf.Variable(tf.random_uniform((batch, *in_shape)))
    params = [x]
    if kind == "conv":
        w = tf.Variable(tf.random_uniform(weight_shape))
        y, params = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), [x, w]
    elif kind == "pool":
        y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    else:
        w = tf.Variable(tf.random_uniform(weight_shape))
        y, params = tf.matmul(x, w), [x, w]
    upstream = tf.Variable(tf.random_uniform(y.shape.as_list()))
    return y, tf.gradients(y, params, grad_ys=upstream)


def time_layer(tf, config, kind: str, batch: int, in_shape: tuple, weight_shape, number: int) -> dict:
    """Milliseconds for one layer's forward pass and for forward + backward (both gradients)."""
    graph = tf.Graph()
    with graph.as_default():
        y, grads = layer_graph(tf, kind, batch, in_shape, weight_shape)
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            forward = best_seconds(lambda: sess.run(y.op), number)
            both = best_seconds(lambda: sess.run([y.op] + [g.op for g in grads]), number)
    return {"forward_ms": 1e3 * forward, "forward_backward_ms": 1e3 * both}


def layer_times(tf, config, batch: int, number: int) -> dict:
    return {name: time_layer(tf, config, kind, batch, in_shape, weight_shape, number)
            for name, kind, in_shape, weight_shape in LAYERS}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("framework", choices=["webflow", "tensorflow"])
    parser.add_argument("--batches", type=int, nargs="+", default=[50, 128])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--no-layers", action="store_true", help="training steps only")
    parser.add_argument("--steps", type=int, default=10, help="timed training steps per repeat")
    args = parser.parse_args()
    tf, config = load(args.framework, args.threads)
    import numpy as np

    rng = np.random.default_rng(0)
    result = {"framework": args.framework, "threads": args.threads, "images_per_second": {}, "cpu_ms_per_step": {},
              "layers": {}}
    for batch in args.batches:
        rate, cpu_ms = training_rate(tf, config, batch, args.steps, rng)
        result["images_per_second"][batch], result["cpu_ms_per_step"][batch] = rate, cpu_ms
        if not args.no_layers:
            result["layers"][batch] = layer_times(tf, config, batch, max(3, args.steps // 2))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
