"""A tf.data input pipeline of TF1 code: from_tensor_slices, map, shuffle (seeded), batch, repeat and
make_one_shot_iterator / make_initializable_iterator feeding a small model: the whole GraphDef, the batches and
OutOfRangeError at the end of the input.

Known difference: TensorFlow's OneShotIterator has no inputs (it rebuilds the dataset from a function attr); webflow's
reads the dataset's variant tensor, so that node is listed without its inputs."""

import numpy as np
from _graph_listing import graph_nodes


def program_one_shot(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        features = np.arange(12, dtype=np.float32).reshape(6, 2)
        labels = np.arange(6, dtype=np.int64)
        dataset = tf.data.Dataset.from_tensor_slices((features, labels))
        dataset = dataset.map(lambda x, y: (x * 2.0, y + 1)).shuffle(6, seed=5).batch(4).repeat(2)
        x, y = tf.data.make_one_shot_iterator(dataset).get_next()
        total = tf.reduce_sum(x, axis=1)
        out["nodes"] = [line.replace("OneShotIterator <- RepeatDataset:0 ^", "OneShotIterator <-  ^")
                        for line in graph_nodes(graph)]
        out["x, y"] = [str(x.shape), str(y.shape), x.dtype.name, y.dtype.name]
        batches = []
        with tf.Session() as sess:
            try:
                while True:
                    batches.append(sess.run([x, y, total]))
            except tf.errors.OutOfRangeError:
                out["end"] = "OutOfRangeError"
        out["batches"] = batches
    return out


def program_initializable(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        limit = tf.placeholder(tf.int64, [], name="limit")
        dataset = tf.data.Dataset.range(limit).map(lambda i: tf.cast(i, tf.float32) ** 2).batch(3)
        iterator = tf.data.make_initializable_iterator(dataset)
        value = iterator.get_next()
        out["nodes"] = graph_nodes(graph)
        with tf.Session() as sess:
            for n in (5, 2):
                sess.run(iterator.initializer, {limit: n})
                values = []
                try:
                    while True:
                        values.append(sess.run(value))
                except tf.errors.OutOfRangeError:
                    pass
                out[f"limit {n}"] = values
    return out
