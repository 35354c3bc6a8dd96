"""Session.run: fetch structures, feed validation, errors, pruning, lifetime, default sessions."""

import collections

import numpy as np
import pytest

import webflow.compat.v1 as tf


@pytest.fixture(autouse=True)
def v1():
    tf.disable_v2_behavior()
    tf.reset_default_graph()


def test_nested_fetches_keep_their_structure():
    a = tf.constant(2.0, name="a")
    b = a * 3.0
    Pair = collections.namedtuple("Pair", ["first", "second"])
    with tf.Session() as sess:
        result = sess.run({"x": [a, (b, "a:0")], "p": Pair(a, b), "op": b.op})
    assert result["x"][0] == 2.0 and result["x"][1] == (6.0, 2.0)
    assert isinstance(result["x"][1], tuple) and result["p"] == Pair(2.0, 6.0) and result["op"] is None


def test_feeds_by_tensor_and_by_name():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.reduce_sum(x * 2.0)
    with tf.Session() as sess:
        assert sess.run(y, {x: [[1, 2], [3, 4]]}) == 20.0
        assert sess.run(y, {"x:0": np.ones((3, 2))}) == 12.0
        # any tensor can be fed, cutting the graph there
        assert sess.run(y, {y: 5.0}) == 5.0


def test_feed_errors_name_the_tensor_and_shapes():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    i = tf.placeholder(tf.int32, [], name="i")
    y = x + 1.0
    with tf.Session() as sess:
        expected = r"Cannot feed value of shape \(3,\) for Tensor x:0, which has shape \(\?, 2\)"
        with pytest.raises(ValueError, match=expected):
            sess.run(y, {x: [1, 2, 3]})
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor: The name 'nope:0'"):
            sess.run(y, {"nope:0": 1})
        with pytest.raises(TypeError, match="i:0"):
            sess.run(i, {i: 1.5})
        with pytest.raises(ValueError, match="i:0"):
            sess.run(i, {i: "text"})
        with pytest.raises(TypeError, match="cannot be a tf.Tensor"):
            sess.run(y, {x: tf.constant([[1.0, 2.0]])})
        other = tf.Graph()
        with other.as_default():
            foreign = tf.placeholder(tf.float32, name="foreign")
        with pytest.raises(TypeError, match="not an element of this graph"):
            sess.run(y, {foreign: 1.0})
        with pytest.raises(ValueError, match="cannot be interpreted as a Tensor"):
            sess.run(foreign)


def test_unfed_placeholder_and_uninitialized_variable():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    v = tf.Variable(1.0, name="v")
    with tf.Session() as sess:
        expected = r"You must feed a value for placeholder tensor 'x' with dtype float and shape \[\?,2\]"
        with pytest.raises(tf.errors.InvalidArgumentError, match=expected):
            sess.run(x + 1.0)
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value v"):
            sess.run(v + 1.0)
        sess.run(v.initializer)
        assert sess.run(v + 1.0) == 2.0


def test_pruning_runs_only_what_fetches_need():
    x = tf.placeholder(tf.float32, name="x")
    needs_x = x + 1.0
    free = tf.constant(3.0) * 2.0
    counter = tf.Variable(0, name="counter")
    with tf.control_dependencies([tf.assign_add(counter, 1)]):
        gated = tf.identity(free)
    with tf.Session() as sess:
        sess.run(counter.initializer)
        assert sess.run(free) == 6.0  # x is not fed and not needed
        assert sess.run(counter) == 0
        sess.run(gated)
        sess.run(gated)
        assert sess.run(counter) == 2
        del needs_x


def test_runtime_shape_errors_name_the_op_and_shapes():
    a = tf.placeholder(tf.float32, [None, None], name="a")
    b = tf.placeholder(tf.float32, [None, None], name="b")
    product = tf.matmul(a, b, name="product")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(product, {a: np.ones((2, 3)), b: np.ones((4, 5))})
    message = str(info.value)  # TensorFlow's words (issue 31): the op's type is on the error, not in the text
    assert message == "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]\n\t [[{{node product}}]]"
    assert info.value.op.name == "product" and info.value.op.type == "MatMul"


def test_build_time_shape_errors_are_value_errors():
    with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 4 .*MatMul"):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.ones([2]) + tf.ones([3])
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32 that does not match type int32"):
        tf.constant(1) + tf.constant(2.0)


def test_closed_session_and_context_manager():
    a = tf.constant(1.0)
    sess = tf.Session()
    assert sess.run(a) == 1.0
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(a)
    with tf.Session() as sess2:
        assert tf.get_default_session() is sess2
        assert a.eval() == 1.0
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="No default session"):
        a.eval()


def test_interactive_session_and_operation_run():
    v = tf.Variable(5.0)
    sess = tf.InteractiveSession()
    v.initializer.run()
    assert v.eval() == 5.0 and tf.get_default_session() is sess
    sess.close()
    assert tf.get_default_session() is None


def test_log_device_placement_prints_one_line_per_op(capsys):
    a = tf.constant(1.0, name="a")
    b = tf.add(a, a, name="b")
    with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as sess:
        sess.run(b)
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("a: (Const): /job:localhost/replica:0/task:0/device:CPU:0")
    assert lines[1].startswith("b: (AddV2): /job:localhost/replica:0/task:0/device:CPU:0")
    assert len(lines) == 2


def test_run_metadata_collects_per_op_timings():
    a = tf.constant(np.ones((3, 3), np.float32), name="a")
    b = tf.matmul(a, a, name="b")
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(b, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
    stats = metadata.step_stats.dev_stats
    # constants are looked up when the run is planned, not executed, so only b appears
    assert [s.node_name for s in stats] == ["b"] and stats[0].output_shapes == [[3, 3]]
    assert all(s.all_end_rel_micros >= 0 for s in stats)
