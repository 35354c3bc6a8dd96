"""A TF1 tutorial's linear regression: placeholders, a Variable weight and bias, a mean squared error,
tf.train.GradientDescentOptimizer, scalar and histogram summaries merged with merge_all. The whole GraphDef (node
names, op types, inputs, control inputs, shapes), the losses while training and the merged summaries' tags."""

import numpy as np
from _graph_listing import graph_nodes


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([1, 1]), name="weight")
        b = tf.Variable(tf.zeros([1]), name="bias")
        prediction = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.square(prediction - y), name="loss")
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        tf.summary.scalar("loss", loss)
        tf.summary.histogram("weight", w)
        merged = tf.summary.merge_all()
        init = tf.global_variables_initializer()
        out["nodes"] = graph_nodes(graph)
        xs = np.linspace(0.0, 1.0, 8, dtype=np.float32).reshape(-1, 1)
        ys = 3.0 * xs - 1.0
        with tf.Session() as sess:
            sess.run(init)
            losses = []
            for _ in range(20):
                _, value = sess.run([train, loss], {x: xs, y: ys})
                losses.append(value)
            out["losses"] = np.array(losses)
            out["w, b"] = sess.run([w, b])
            summary = tf.Summary.FromString(sess.run(merged, {x: xs, y: ys}))
            out["summary_tags"] = [value.tag for value in summary.value]
            out["summary_loss"] = [value.simple_value for value in summary.value if value.tag == "loss"]
    return out
