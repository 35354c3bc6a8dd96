"""dtypes, TensorShape, Graph naming, scopes, collections, control dependencies, devices, tensor printing.

Expected names and strings are TensorFlow's (checked by hand against TensorFlow 2.x with
`tf.compat.v1` + `disable_v2_behavior`)."""

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.framework import dtypes
from webflow.framework.tensor_shape import Dimension, TensorShape


@pytest.fixture
def v1():
    tf.disable_v2_behavior()
    tf.reset_default_graph()
    return tf


# --- dtypes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"])
def test_dtype_round_trips_through_numpy(name):
    dtype = dtypes.as_dtype(name)
    assert dtype.name == name
    assert dtypes.as_dtype(np.dtype(dtype.as_numpy_dtype)) is dtype
    assert dtypes.as_dtype(dtype.as_datatype_enum) is dtype


def test_dtype_properties_and_errors():
    assert tf.float32.is_floating and not tf.int32.is_floating and tf.int32.is_integer
    assert tf.as_dtype("float32_ref").base_dtype is tf.float32 and tf.as_dtype("float32_ref").is_ref_dtype
    assert tf.string.name == "string" and tf.as_dtype(np.object_) is tf.string
    assert tf.int8.min == -128 and tf.uint8.max == 255
    with pytest.raises(TypeError):
        tf.as_dtype("not_a_type")


# --- shapes ---------------------------------------------------------------------------------------
def test_tensor_shape_operations():
    shape = TensorShape([None, 2])
    assert shape.as_list() == [None, 2] and shape.ndims == 2
    assert shape.is_compatible_with([5, 2]) and not shape.is_compatible_with([5, 3])
    assert shape.merge_with([5, None]).as_list() == [5, 2]
    assert shape.concatenate([7]).as_list() == [None, 2, 7]
    assert TensorShape(None).ndims is None and TensorShape(None).is_compatible_with([1, 2, 3])
    with pytest.raises(ValueError):
        shape.merge_with([5, 3])
    with pytest.raises(ValueError):
        TensorShape(None).as_list()
    assert TensorShape([3]).num_elements() == 3 and shape.num_elements() is None


def test_shape_printing_v1_and_v2(v1):
    shape = TensorShape([None, 2])
    assert str(shape) == "(?, 2)" and isinstance(shape[0], Dimension) and shape[0].value is None
    tf.enable_v2_tensorshape()
    assert str(shape) == "(None, 2)" and shape[0] is None and shape[1] == 2


# --- graph names ------------------------------------------------------------------------------------
def test_unique_names_follow_tensorflow(v1):
    a = tf.constant([1.0, 2.0, 3.0], name="a")
    b = a + a
    c = a + 1
    d = tf.add(a, 2.0, name="add")
    assert [b.name, c.name, d.name] == ["add:0", "add_1:0", "add_2:0"]
    assert str(d) == 'Tensor("add_2:0", shape=(3,), dtype=float32)'
    assert repr(d) == "<tf.Tensor 'add_2:0' shape=(3,) dtype=float32>"
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert names == ["a", "add", "add_1/y", "add_1", "add_2/y", "add_2"]
    first, second, third = (tf.constant(1, name="k") for _ in range(3))
    assert [first.name, second.name, third.name] == ["k:0", "k_1:0", "k_2:0"]


def test_name_scopes_nest_and_share_the_op_namespace(v1):
    graph = tf.get_default_graph()
    with tf.name_scope("scope"):
        with tf.name_scope("ns"):
            plus = tf.add(1, 2, name="plus")
    assert plus.name == "scope/ns/plus:0"
    assert [op.name for op in graph.get_operations()] == ["scope/ns/plus/x", "scope/ns/plus/y", "scope/ns/plus"]
    tf.constant(0, name="block")
    with tf.name_scope("block") as scope:
        assert scope == "block_1/"
    with tf.name_scope("scope/"):
        assert tf.constant(1, name="again").name == "scope/again:0"
    with pytest.raises(ValueError):
        with tf.name_scope("bad name!"):
            pass


def test_graph_lookups_and_errors(v1):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.identity(x, name="y")
    graph = tf.get_default_graph()
    assert graph.get_tensor_by_name("y:0") is y and graph.get_operation_by_name("y") is y.op
    assert y.op.inputs[0] is x and y.op.type == "Identity" and x.op.outputs == [x]
    with pytest.raises(KeyError, match="does not exist"):
        graph.get_tensor_by_name("missing:0")
    with pytest.raises(ValueError, match="refers to an Operation, not a Tensor"):
        graph.get_tensor_by_name("y")
    assert x.op.get_attr("dtype") is tf.float32
    with pytest.raises(ValueError, match="no attr named"):
        x.op.get_attr("nonexistent")


def test_default_graph_stack_and_finalize(v1):
    outer = tf.get_default_graph()
    inner = tf.Graph()
    with inner.as_default():
        assert tf.get_default_graph() is inner
        tensor = tf.constant(1.0)
    assert tf.get_default_graph() is outer and tensor.graph is inner
    inner.finalize()
    with inner.as_default(), pytest.raises(RuntimeError, match="finalized"):
        tf.constant(2.0)
    tf.reset_default_graph()
    assert tf.get_default_graph() is not outer


def test_collections(v1):
    tf.add_to_collection("my_things", 1)
    tf.add_to_collections(["my_things", "other"], 2)
    assert tf.get_collection("my_things") == [1, 2] and tf.get_collection("other") == [2]
    tf.get_collection_ref("my_things").append(3)
    assert tf.get_collection("my_things") == [1, 2, 3]
    assert set(tf.get_all_collection_keys()) == {"my_things", "other"}
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(2.0, name="w", trainable=False)
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES) == [v, w]
    assert tf.trainable_variables() == [v] and tf.GraphKeys.TRAINABLE_VARIABLES == "trainable_variables"
    assert tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, scope="w") == [w]


def test_control_dependencies_and_devices(v1):
    a = tf.constant(1.0, name="a")
    b = tf.constant(2.0, name="b")
    with tf.control_dependencies([a]):
        c = tf.identity(b, name="c")
        d = tf.identity(c, name="d")  # dominated by c, which already depends on a
        with tf.control_dependencies(None):
            e = tf.identity(b, name="e")
    assert c.op.control_inputs == [a.op] and d.op.control_inputs == [] and e.op.control_inputs == []
    with tf.device("/cpu:0"):
        f = tf.identity(b, name="f")
        with tf.device("/job:worker"):
            g = tf.identity(b, name="g")
    assert f.op.device == "/device:CPU:0" and g.op.device == "/job:worker/device:CPU:0"


def test_tensor_properties(v1):
    x = tf.placeholder(tf.float32, [None, 3], name="inp")
    assert x.shape.as_list() == [None, 3] and x.get_shape() == x.shape and x.value_index == 0
    x.set_shape([4, None])
    assert x.shape.as_list() == [4, 3]
    with pytest.raises(ValueError):
        x.set_shape([5, 3])
    with pytest.raises(TypeError, match="bool"):
        bool(x)
    assert x.dtype is tf.float32 and x.graph is tf.get_default_graph()


def test_errors_have_tensorflow_names():
    for name in ["InvalidArgumentError", "NotFoundError", "OutOfRangeError", "FailedPreconditionError",
                 "DataLossError", "ResourceExhaustedError", "UnimplementedError", "AbortedError", "CancelledError"]:
        error_class = getattr(tf.errors, name)
        error = error_class(None, None, "message")
        assert isinstance(error, tf.errors.OpError) and str(error) == "message"
    assert tf.errors.OutOfRangeError(None, None, "").error_code == tf.errors.OUT_OF_RANGE
