"""Default node names: add, add_1, a_2, scope/ns/plus, Placeholder, Const and the names of their inputs."""

from _util import op_names


def program(tf):
    out = {}
    graph = tf.Graph()
    with graph.as_default():
        a = tf.constant(1.0)
        b = tf.constant(2.0)
        c = tf.constant(3.0, name="a")
        d = tf.constant(4.0, name="a")
        p = tf.placeholder(tf.float32)
        p2 = tf.placeholder(tf.float32, name="input")
        s1 = a + b
        s2 = tf.add(a, b)
        s3 = a + 1.0
        m = a * b
        with tf.name_scope("scope"):
            with tf.name_scope("ns"):
                plus = tf.add(c, d, name="plus")
            inner = c - d
        with tf.name_scope("scope"):
            second_scope = tf.negative(c)
        with tf.name_scope("scope/"):
            reentered = tf.identity(c)
        div = a / b
        pw = a ** 2
        v = tf.Variable(1.0)
        v2 = tf.Variable(2.0, name="weights")
        assign = v.assign(5.0)
        mm = tf.matmul([[1.0]], [[2.0]])
        mean = tf.reduce_mean([1.0, 2.0])
        cast = tf.cast(p, tf.int32)
        neg = -a
    for key, t in dict(a=a, b=b, c=c, d=d, p=p, p2=p2, s1=s1, s2=s2, s3=s3, m=m, plus=plus, inner=inner,
                       second_scope=second_scope, reentered=reentered, div=div, pw=pw, assign=assign, mm=mm,
                       mean=mean, cast=cast, neg=neg).items():
        out[key] = t.name
    out["s3_input"] = s3.op.inputs[1].name
    out["v"] = v.name
    out["v2"] = v2.name
    out["v_op_type"] = v.op.type
    out["op_types"] = [op.type for op in graph.get_operations()]
    out["op_names"] = op_names(graph)
    out["get_tensor_by_name"] = graph.get_tensor_by_name("scope/ns/plus:0") is plus
    out["get_operation_by_name"] = graph.get_operation_by_name(s2.op.name) is s2.op
    out["unique_name"] = graph.unique_name("add", mark_as_used=False)
    out["default_graph_untouched"] = len(tf.get_default_graph().get_operations())
    return out
