"""str()/repr() of tensors, ops, shapes and dimensions in TF1 mode (`?` for unknown)."""

from _util import error_name


def program(tf):
    out = {}
    a = tf.constant([1.0, 2.0, 3.0])
    b = tf.constant([4.0, 5.0, 6.0])
    out["add_str"] = str(a + b)
    out["add_1_str"] = str(a + b)
    out["add_2_str"] = str(tf.add(a, b))
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    out["x_str"] = str(x)
    out["x_shape"] = str(x.shape)
    out["x_get_shape"] = str(x.get_shape())
    out["x_shape_list"] = str(x.shape.as_list())
    out["x_dim0"] = str(x.shape[0])
    out["x_dim1"] = str(x.shape[1])
    out["x_dim0_value"] = str(x.shape[0].value) if hasattr(x.shape[0], "value") else "no value attr"
    out["x_dims_repr"] = repr(x.shape)
    unknown = tf.placeholder(tf.int32)
    out["unknown_str"] = str(unknown)
    out["unknown_shape"] = str(unknown.shape)
    out["unknown_ndims"] = str(unknown.shape.ndims)
    w = tf.constant([[1.0], [2.0]])
    y = tf.matmul(x, w)
    out["matmul_str"] = str(y)
    out["matmul_shape"] = str(y.shape)
    r = tf.reduce_sum(y, axis=1, keepdims=True)
    out["reduce_str"] = str(r)
    out["scalar_str"] = str(tf.constant(3))
    out["bool_str"] = str(tf.constant(True))
    out["string_str"] = str(tf.constant("hello"))
    out["int64_str"] = str(tf.constant([1, 2], dtype=tf.int64))
    out["double_str"] = str(tf.constant(1.0, dtype=tf.float64))
    out["tensorshape_str"] = str(tf.TensorShape([None, 3, 4]))
    out["tensorshape_repr"] = repr(tf.TensorShape([None, 3]))
    out["unknown_tensorshape"] = str(tf.TensorShape(None))
    out["scalar_tensorshape"] = str(tf.TensorShape([]))
    out["dimension_str"] = str(tf.Dimension(None))
    out["dimension_repr"] = repr(tf.Dimension(5))
    out["variable_repr_prefix"] = repr(tf.Variable([1.0, 2.0], name="v")).split(" dtype")[0]
    out["op_str_first_line"] = str(y.op).splitlines()[0]
    out["dtype_repr"] = repr(tf.float32)
    out["dtype_str"] = str(tf.int32)
    out["shape_merge"] = str(x.shape.merge_with(tf.TensorShape([3, None])))
    out["shape_concat"] = str(x.shape.concatenate([5]))
    out["shape_compatible"] = x.shape.is_compatible_with([7, 2])
    out["shape_eq"] = x.shape == tf.TensorShape([None, 2])
    out["set_shape"] = error_name(lambda: x.set_shape([3, 3]))
    z = tf.placeholder(tf.float32, name="z")
    z.set_shape([None, 5])
    out["after_set_shape"] = str(z.shape)
    out["tensor_equality_is_identity"] = (a == a) is True
    out["tensor_hashable"] = len({a, b}) == 2
    out["reshape_shape"] = str(tf.reshape(x, [-1]).shape)
    out["shape_of_placeholder"] = str(tf.shape(x))
    out["bool_of_tensor"] = error_name(lambda: bool(a))
    out["iterate_tensor"] = error_name(lambda: list(x))
    return out
