"""variable_scope / get_variable: names, reuse rules and the errors TF1 raises."""

from _util import error_name


def program(tf):
    init = tf.constant_initializer(0.5)
    out = {}
    with tf.variable_scope("layer1"):
        w1 = tf.get_variable("w", [2, 3], initializer=init)
        b1 = tf.get_variable("b", [3], initializer=tf.zeros_initializer())
    out["w1"] = w1.name
    out["b1"] = b1.name
    out["w1_shape"] = str(w1.shape)
    out["w1_dtype"] = w1.dtype.name

    # creating it again without reuse is an error
    def again():
        with tf.variable_scope("layer1"):
            tf.get_variable("w", [2, 3], initializer=init)
    out["duplicate"] = error_name(again)

    # reuse=True returns the same variable
    with tf.variable_scope("layer1", reuse=True):
        w1_again = tf.get_variable("w")
    out["reuse_same"] = w1_again is w1

    # reuse=True for a variable that does not exist is an error
    def missing():
        with tf.variable_scope("layer1", reuse=True):
            tf.get_variable("missing", [1])
    out["reuse_missing"] = error_name(missing)

    # shape mismatch on reuse
    def mismatch():
        with tf.variable_scope("layer1", reuse=True):
            tf.get_variable("w", [3, 3])
    out["reuse_shape_mismatch"] = error_name(mismatch)

    # scope.reuse_variables()
    with tf.variable_scope("layer2") as scope:
        v = tf.get_variable("v", [1], initializer=init)
        scope.reuse_variables()
        v2 = tf.get_variable("v")
    out["reuse_variables_same"] = v is v2
    out["v"] = v.name

    # AUTO_REUSE
    def shared_dense(x):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("kernel", [2, 2], initializer=tf.constant_initializer([[1.0, 2.0], [3.0, 4.0]]))
            return tf.matmul(x, w)
    x = tf.constant([[1.0, 1.0]])
    y1 = shared_dense(x)
    y2 = shared_dense(y1)
    out["auto_reuse_var_count"] = len([var for var in tf.global_variables() if var.name.startswith("shared/")])
    out["y1_name"] = y1.name
    out["y2_name"] = y2.name

    # nested scopes, and a variable_scope opened twice gets a unique name scope for ops
    with tf.variable_scope("outer"):
        with tf.variable_scope("inner"):
            nested = tf.get_variable("nested", [], initializer=init)
            op_in_scope = tf.add(nested, 1.0)
    with tf.variable_scope("outer", reuse=True):
        with tf.variable_scope("inner"):
            nested_again = tf.get_variable("nested")
            op_in_scope_again = tf.add(nested_again, 1.0)
    out["nested"] = nested.name
    out["op_in_scope"] = op_in_scope.name
    out["op_in_scope_again"] = op_in_scope_again.name

    # reusing via the scope object
    with tf.variable_scope("layer1") as layer1_scope:
        pass
    with tf.variable_scope(layer1_scope, reuse=True):
        out["scope_object_reuse_same"] = tf.get_variable("b") is b1
    out["scope_name"] = layer1_scope.name

    # name_scope does not affect get_variable names, but affects ops and tf.Variable
    with tf.name_scope("ns"):
        gv = tf.get_variable("gv", [1], initializer=init)
        tv = tf.Variable(1.0, name="tv")
        nop = tf.multiply(tv, 2.0)
    out["gv_in_name_scope"] = gv.name
    out["tv_in_name_scope"] = tv.name
    out["op_in_name_scope"] = nop.name

    # initializing and reading them
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["w1_value"] = sess.run(w1)
        out["y2_value"] = sess.run(y2)
    out["global_variables"] = [var.name for var in tf.global_variables()]
    out["trainable_variables"] = [var.name for var in tf.trainable_variables()]
    return out
