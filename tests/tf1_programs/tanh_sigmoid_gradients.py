"""Gradients of tanh and sigmoid: TensorFlow's TanhGrad / SigmoidGrad nodes (names, inputs, control inputs), their
own gradients (second derivatives), and the values, first and second order."""

import numpy as np


def _rule_nodes(graph, prefix):
    """'name:type <- inputs ^controls' for the ops under `prefix` that the Tanh, Sigmoid, TanhGrad and SigmoidGrad
    gradient rules made, in creation order (the other ops of a gradient graph are other rules' business)."""
    return [f"{op.name}:{op.type} <- {','.join(t.name for t in op.inputs)} "
            f"^{','.join(c.name for c in op.control_inputs)}"
            for op in graph.get_operations()
            if op.name.startswith(prefix) and ("Tanh_grad/" in op.name or "Sigmoid_grad/" in op.name)]


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None], name="x")
        first_tanh = tf.gradients(tf.tanh(x), x, name="first")[0]
        first_sigmoid = tf.gradients(tf.sigmoid(x), x, name="first")[0]
        second_tanh = tf.gradients(first_tanh, x, name="second")[0]
        second_sigmoid = tf.gradients(first_sigmoid, x, name="second")[0]
        out["first_order_nodes"] = _rule_nodes(graph, "first")
        out["second_order_nodes"] = _rule_nodes(graph, "second")
        # 21 elements: past two 8-float packets, a tail of 5; |x| <= 2, where 1 - tanh(x)^2 does not magnify an ulp of
        # difference between the engines' tanh beyond float32 tolerance
        values = np.linspace(-2.0, 2.0, 21, dtype=np.float32)
        with tf.Session() as sess:
            out["first_tanh"], out["first_sigmoid"], out["second_tanh"], out["second_sigmoid"] = sess.run(
                [first_tanh, first_sigmoid, second_tanh, second_sigmoid], {x: values})
    return out
