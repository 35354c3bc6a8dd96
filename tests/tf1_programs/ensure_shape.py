"""tf.ensure_shape in TF1 graphs: the op's name, type and shape attr, the static shape it gives (its `shape` merged
with x's), TensorFlow's ValueError texts when the two disagree at build time, the InvalidArgumentError text and failing
node when a fed value disagrees at run time (a fed placeholder is named as TensorFlow's feed rewrite names it,
"_arg_x_0_0"; another input by its tensor name: "split:1"), its gradient (the incoming one) and values passed on.
"""

from _util import public_error_name


def _build_error(function):
    try:
        function()
    except Exception as error:  # noqa: BLE001 - the type's name is part of the result
        return [public_error_name(error), str(getattr(error, "message", error))]
    return "no error"


def _failure(function):
    """[error class, failing node, the text after TensorFlow's "Graph execution error" preamble]."""
    try:
        function()
    except Exception as error:  # noqa: BLE001
        lines = str(getattr(error, "message", error)).split("\n")
        if lines[0].startswith("Graph execution error"):  # TensorFlow's preamble, up to "Node: '<name>'"
            lines = lines[next(k for k, line in enumerate(lines) if line.startswith("Node: ")) + 1:]
        op = getattr(error, "op", None)
        return [public_error_name(error), op.name if op is not None else None, lines[0]]
    return "no error"


def _without_node_attrs(text):
    """A build error's text with the node's attrs cut: TensorFlow prints them ("EnsureShape[T=DT_FLOAT,
    shape=[3,3]](x)"), webflow's node descriptions leave them out ("EnsureShape[](x)")."""
    start = text.find("EnsureShape[")
    end = text.find("](", start)
    return text if start < 0 or end < 0 else text[:start] + "EnsureShape" + text[end + 1:]


def program_build_time(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    refined = tf.ensure_shape(x, [3, None])
    named = tf.ensure_shape(x, tf.TensorShape([None, 2]), name="checked")
    unknown = tf.placeholder(tf.float32, None, name="unknown")
    out["names"] = [refined.name, named.name, refined.op.type, named.op.name]
    out["static_shapes"] = [str(refined.shape), str(named.shape), str(tf.ensure_shape(unknown, [2, None]).shape),
                            str(tf.ensure_shape(unknown, None).shape), str(tf.ensure_shape(unknown, []).shape)]
    out["shape_attr"] = [str(tf.TensorShape(refined.op.get_attr("shape"))), refined.op.get_attr("T").name]
    out["dtypes"] = [tf.ensure_shape(tf.constant([1, 2]), [2]).dtype.name,
                     tf.ensure_shape(tf.constant(["a"]), [None]).dtype.name]
    for key, shape in (("dimension_differs", [3, 3]), ("rank_differs", [3]), ("unknown_rank_shape", None)):
        error = _build_error(lambda shape=shape: tf.ensure_shape(x, shape))
        out[key] = error if error == "no error" else [error[0], _without_node_attrs(error[1])]
    return out


def program_run_time(tf):
    out = {}
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    checked = tf.ensure_shape(x, [3, None])
    halves = tf.split(x, 2, axis=1)
    second = tf.ensure_shape(halves[1], [4, 1])
    doubled = tf.ensure_shape(x * 2.0, [None, 2], name="doubled_checked")
    with_default = tf.placeholder_with_default([1.0, 2.0], None, name="d")
    default_checked = tf.ensure_shape(with_default, [1])
    gradient = tf.gradients(tf.reduce_sum(checked * checked), x)[0]
    six = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    with tf.Session() as sess:
        out["passes"] = sess.run([checked, doubled], {x: six})
        out["gradient"] = sess.run(gradient, {x: six})
        out["placeholder_fails"] = _failure(lambda: sess.run(checked, {x: [[1.0, 2.0]]}))
        out["gradient_fails"] = _failure(lambda: sess.run(gradient, {x: [[1.0, 2.0]]}))
        out["second_output_fails"] = _failure(lambda: sess.run(second, {x: six}))
        out["default_fails"] = _failure(lambda: sess.run(default_checked))
    return out
