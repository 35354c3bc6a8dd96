"""Gradients of the broadcasting binary ops (AddV2, Sub, Mul, RealDiv, Maximum, Minimum, Pow, SquaredDifference):
the whole GraphDef TensorFlow's rules build (node names, op types, inputs, control inputs, Sum's keep_dims) for
shapes that are statically equal, statically broadcast (also a scalar and a leading 1), partly known
([None, 3] + [3]: the axes are still known) and unknown, and the gradients' values."""

import numpy as np

SHAPES = {
    "equal": ([2, 3], [2, 3]),
    "broadcast": ([2, 3], [3]),
    "scalar": ([], [2, 3]),
    "leading_one": ([3], [1, 3]),
    "partial": ([None, 3], [3]),
    "unknown": ([None, None], [None, None]),
}
FEEDS = {"equal": ([2, 3], [2, 3]), "broadcast": ([2, 3], [3]), "scalar": ([], [2, 3]),
         "leading_one": ([3], [1, 3]), "partial": ([2, 3], [3]), "unknown": ([2, 3], [1, 3])}


def _binary_ops(tf):
    return {
        "add": lambda x, y: x + y,
        "sub": lambda x, y: x - y,
        "mul": lambda x, y: x * y,
        "div": lambda x, y: x / y,
        "maximum": tf.maximum,
        "minimum": tf.minimum,
        "pow": tf.pow,
        "squared_difference": tf.squared_difference,
    }


def _nodes(graph):
    """'name:type <- inputs ^controls' for every node, in creation order (Sum adds its keep_dims)."""
    lines = []
    for op in graph.get_operations():
        extra = f" keep_dims={op.get_attr('keep_dims')}" if op.type == "Sum" else ""
        lines.append(f"{op.name}:{op.type} <- {','.join(t.name for t in op.inputs)} "
                     f"^{','.join(c.name for c in op.control_inputs)}{extra}")
    return lines


def _values(shape):
    size = int(np.prod(shape)) if shape else 1
    return (np.arange(size, dtype=np.float32).reshape(shape) + 1.0) / 4.0


def _case(tf, build, case, dtype):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        x_shape, y_shape = SHAPES[case]
        x = tf.placeholder(dtype, x_shape, name="x")
        y = tf.placeholder(dtype, y_shape, name="y")
        z = build(x, y)
        gx, gy = tf.gradients(z, [x, y])
        out["nodes"] = _nodes(graph)
        x_feed, y_feed = FEEDS[case]
        # y's values step past x's so maximum/minimum pick both sides, and stay positive for pow and div
        feed = {x: _values(x_feed).astype(dtype), y: (1.6 - _values(y_feed)).astype(dtype) ** 2 + 0.5}
        with tf.Session() as sess:
            out["z"], out["gx"], out["gy"] = sess.run([z, gx, gy], feed)
    return out


def _program(tf, op_name):
    build = _binary_ops(tf)[op_name]
    out = {case: _case(tf, build, case, np.float32) for case in SHAPES}
    # float64: Mul's equal-shape shortcut is for float32 and int32 only
    out["equal_float64"] = _case(tf, build, "equal", np.float64)
    return out


def program_add(tf):
    return _program(tf, "add")


def program_sub(tf):
    return _program(tf, "sub")


def program_mul(tf):
    return _program(tf, "mul")


def program_div(tf):
    return _program(tf, "div")


def program_maximum(tf):
    return _program(tf, "maximum")


def program_minimum(tf):
    return _program(tf, "minimum")


def program_pow(tf):
    return _program(tf, "pow")


def program_squared_difference(tf):
    return _program(tf, "squared_difference")
