"""Op table rows for the nn ops (Relu, Softmax, LogSoftmax, BiasAdd, the softmax cross-entropies), plus the
stories around them: TensorFlow's node names and error messages, and v1's stop-gradient on labels.

References are written in NumPy here, independently of the kernels; see tests/op_harness.py for the checks.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf
from webflow.ops.registry import apply_op

rng = np.random.default_rng(1)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def away_from_zero(*shape):
    """Values with |x| >= 0.2, so relu's kink is never inside a finite-difference step."""
    x = r(*shape)
    return (np.sign(x) * (np.abs(x) + 0.2)).astype(np.float32)


def distribution(*shape):
    p = rng.uniform(0.1, 1.0, shape)
    return (p / p.sum(-1, keepdims=True)).astype(np.float32)


def np_log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def np_softmax(x, axis=-1):
    return np.exp(np_log_softmax(x, axis))


def as32(function):
    """A float64 reference whose results keep the input's float dtype (float32 rows, float64 grad checks)."""
    def reference(*args):
        dtype = np.result_type(*[a.dtype for a in map(np.asarray, args) if a.dtype.kind == "f"])
        out = function(*args)
        return [np.asarray(o, dtype) for o in out] if isinstance(out, list) else np.asarray(out, dtype)

    return reference


def np_xent(labels, logits):
    return -(labels * np_log_softmax(logits)).sum(-1)


def np_sparse_xent(logits, labels):
    log_probs = np_log_softmax(logits)
    return -np.take_along_axis(log_probs, labels[..., None].astype(np.int64), -1)[..., 0]


def np_one_hot(labels, depth):
    return np.eye(depth)[labels]


def raw(op_type):
    return lambda *inputs: apply_op(op_type, list(inputs))


def bias_shape(value, data_format):
    shape = [1] * value.ndim
    shape[1 if data_format == "NCHW" else -1] = -1
    return shape


LABELS = np.array([2, 0, 4], np.int32)

CASES = [
    OpCase("relu", lambda x: wf.nn.relu(x), [away_from_zero(3, 4)], lambda x: np.maximum(x, 0)),
    OpCase("relu_int32", lambda x: wf.nn.relu(x), [np.array([-2, 0, 3], np.int32)], lambda x: np.maximum(x, 0),
           grad=False),
    OpCase("relu_grad_op", raw("ReluGrad"), [r(3, 4), away_from_zero(3, 4)],
           lambda g, f: np.where(f > 0, g, 0).astype(g.dtype)),
    OpCase("softmax", lambda x: wf.nn.softmax(x), [r(3, 5)], as32(np_softmax)),
    OpCase("softmax_rank3", lambda x: wf.nn.softmax(x), [r(2, 3, 4)], as32(np_softmax)),
    OpCase("log_softmax", lambda x: wf.nn.log_softmax(x), [r(3, 5)], as32(np_log_softmax)),
    OpCase("log_softmax_rank1", lambda x: wf.nn.log_softmax(x), [r(6)], as32(np_log_softmax)),
    OpCase("bias_add", lambda x, b: wf.nn.bias_add(x, b), [r(4, 3), r(3)], np.add),
    OpCase("bias_add_rank4_nhwc", lambda x, b: wf.nn.bias_add(x, b), [r(2, 2, 3, 4), r(4)], np.add),
    OpCase("bias_add_nchw", lambda x, b: wf.nn.bias_add(x, b, data_format="NCHW"), [r(2, 3, 2, 2), r(3)],
           lambda x, b: x + b.reshape(bias_shape(x, "NCHW"))),
    OpCase("bias_add_grad_op", lambda g: apply_op("BiasAddGrad", [g], {"data_format": "NHWC"}), [r(2, 3, 4)],
           lambda g: g.sum((0, 1))),
    OpCase("softmax_xent_v2_logits_and_labels",
           lambda labels, logits: wf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
           [distribution(4, 5), r(4, 5)], as32(np_xent)),
    OpCase("softmax_xent_v2_rank3", lambda labels, logits: wf.nn.softmax_cross_entropy_with_logits(labels, logits),
           [distribution(2, 3, 4), r(2, 3, 4)], as32(np_xent), unknown_shapes=False),
    OpCase("softmax_xent_v2_axis0_rank3",
           lambda labels, logits: wf.nn.softmax_cross_entropy_with_logits(labels, logits, axis=0),
           [distribution(2, 3, 4).transpose(2, 0, 1).copy(), r(4, 2, 3)],
           as32(lambda labels, logits: -(labels * np_log_softmax(logits, 0)).sum(0)), unknown_shapes=False),
    pytest.param(OpCase("softmax_xent_v1_logits_only",
                        lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits),
                        [distribution(3, 4), r(3, 4)], as32(np_xent), grad_inputs=(1,)),
                 marks=pytest.mark.filterwarnings("ignore::DeprecationWarning")),
    # Through `backprop` (output 1) TF's gradient rule reaches the logits only: it gives labels just the loss's
    # share (-log_softmax), leaving out backprop's -1 w.r.t. labels. We keep TF's rule, so check the logits here.
    OpCase("softmax_xent_op_both_outputs", raw("SoftmaxCrossEntropyWithLogits"),
           [r(3, 4).astype(np.float64), distribution(3, 4).astype(np.float64)],
           lambda logits, labels: [np_xent(labels, logits), np_softmax(logits) - labels], grad_inputs=(0,)),
    OpCase("sparse_xent", lambda logits, labels: wf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits),
           [r(3, 5), LABELS], as32(np_sparse_xent)),
    OpCase("sparse_xent_int64_rank3",
           lambda logits, labels: wf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
           [r(2, 3, 4), np.array([[0, 3, 1], [2, 2, 0]], np.int64)], as32(np_sparse_xent), unknown_shapes=False),
    OpCase("sparse_xent_op_both_outputs", raw("SparseSoftmaxCrossEntropyWithLogits"), [r(3, 5), LABELS],
           as32(lambda logits, labels: [np_sparse_xent(logits, labels),
                                        np_softmax(logits) - np_one_hot(labels, 5)])),
    OpCase("sigmoid_xent", lambda labels, logits: wf.nn.sigmoid_cross_entropy_with_logits(labels, logits),
           [rng.uniform(0, 1, (3, 4)).astype(np.float32), away_from_zero(3, 4) * 3],
           as32(lambda z, x: np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x))))),
    OpCase("softmax_axis0", lambda x: wf.nn.softmax(x, axis=0), [r(3, 4)], as32(lambda x: np_softmax(x, 0)),
           unknown_shapes=False),
    OpCase("log_softmax_axis1_rank3", lambda x: wf.nn.log_softmax(x, axis=1), [r(2, 3, 4)],
           as32(lambda x: np_log_softmax(x, 1)), unknown_shapes=False),
    # found by the property tests (tests/property): empty inputs, and no rows without NumPy (the rows slice their
    # inputs to zero rows: tests/no_numpy_tables.py passes inputs as nested lists, where [] loses its other dims)
    OpCase("softmax_empty", lambda x: wf.nn.softmax(x), [np.zeros((0,), np.float32)], lambda x: x.copy()),
    OpCase("log_softmax_empty", lambda x: wf.nn.log_softmax(x), [np.zeros((2, 0), np.float32)], lambda x: x.copy()),
    OpCase("softmax_xent_no_rows", lambda labels, logits: wf.nn.softmax_cross_entropy_with_logits(labels[:0],
                                                                                                 logits[:0]),
           [np.float32([[0.5, 0.5, 0]]), np.float32([[1, 2, 3]])], lambda labels, logits: np.zeros(0, np.float32)),
    OpCase("sparse_xent_no_rows",
           lambda logits, labels: wf.nn.sparse_softmax_cross_entropy_with_logits(labels[:0], logits[:0]),
           [np.float32([[1, 2, 3, 4]]), np.int32([2])], lambda logits, labels: np.zeros(0, np.float32)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)


# --- stories: names, static shapes and errors as TensorFlow gives them (TF 2.x via compat.v1) ----------
def test_node_names_and_static_shapes_match_tensorflow(graph_mode):
    x = tf.placeholder(tf.float32, [None, 10], name="x")
    labels = tf.placeholder(tf.float32, [None, 10], name="l")
    ids = tf.placeholder(tf.int32, [None], name="li")
    b = tf.placeholder(tf.float32, [10], name="b")
    with pytest.warns(DeprecationWarning):
        v1_loss = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x)
    outputs = [tf.nn.relu(x), tf.nn.softmax(x), tf.nn.log_softmax(x), tf.nn.bias_add(x, b),
               tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x), v1_loss,
               tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=x),
               tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x)]
    # Names and shapes printed by TensorFlow 2.x for the same program (tensorflow.compat.v1).
    assert [(t.name, str(t.shape)) for t in outputs] == [
        ("Relu:0", "(?, 10)"), ("Softmax:0", "(?, 10)"), ("LogSoftmax:0", "(?, 10)"), ("BiasAdd:0", "(?, 10)"),
        ("softmax_cross_entropy_with_logits/Reshape_2:0", "(?,)"),
        ("softmax_cross_entropy_with_logits_sg/Reshape_2:0", "(?,)"),
        ("SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0", "(?,)"),
        ("logistic_loss:0", "(?, 10)")]
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    assert ops["softmax_cross_entropy_with_logits"] == "SoftmaxCrossEntropyWithLogits"
    assert ops["softmax_cross_entropy_with_logits_sg/labels_stop_gradient"] == "StopGradient"
    assert [ops[f"logistic_loss/{name}"] for name in ("GreaterEqual", "Select", "Select_1", "Exp", "Log1p")] == [
        "GreaterEqual", "Select", "Select", "Exp", "Log1p"]
    grad = tf.gradients(outputs[0], x)[0]
    assert grad.op.type == "ReluGrad" and grad.op.inputs[1].name == "Relu:0"
    assert tf.gradients(outputs[3], b)[0].op.type == "BiasAddGrad"


def test_v1_cross_entropy_stops_gradient_into_labels_but_v2_does_not(graph_mode):
    logits = tf.placeholder(tf.float32, [2, 3])
    labels = tf.placeholder(tf.float32, [2, 3])
    with pytest.warns(DeprecationWarning):
        v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    assert tf.gradients(v1, labels) == [None]
    grad_v2 = tf.gradients(v2, labels)[0]
    feed = {logits: r(2, 3), labels: distribution(2, 3)}
    with tf.Session() as session:
        value = session.run(grad_v2, feed)
    np.testing.assert_allclose(value, -np_log_softmax(feed[logits]), rtol=1e-5)


def test_sparse_labels_of_logits_rank_raise_value_error(graph_mode):
    logits = tf.placeholder(tf.float32, [None, 10])
    one_hot = tf.placeholder(tf.float32, [None, 10])
    with pytest.raises(ValueError, match=r"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                                         r"labels.shape=\(\?, 10\) of rank 2 and logits.shape=\(\?, 10\) of rank 2"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=one_hot, logits=logits)
    with pytest.raises(TypeError, match="has DataType float32 not in list of allowed values: int32, int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.placeholder(tf.float32, [3]),
                                                       logits=tf.placeholder(tf.float32, [3, 4]))
    with pytest.raises(ValueError, match="Only call `sparse_softmax_cross_entropy_with_logits` with named"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(one_hot, logits)


def test_sparse_label_out_of_range_is_invalid_argument_at_run_time(graph_mode):
    logits = tf.placeholder(tf.float32, [None, 10])
    ids = tf.placeholder(tf.int32, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=ids, logits=logits)
    with tf.Session() as session:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Received a label value of 10 which is outside the valid range of \[0, 10\)"):
            session.run(loss, {logits: np.zeros((2, 10)), ids: [3, 10]})


def test_sparse_label_out_of_range_eagerly():
    with pytest.raises(wf.errors.InvalidArgumentError, match=r"label value of -1 .* range of \[0, 3\)"):
        wf.nn.sparse_softmax_cross_entropy_with_logits(wf.constant([-1]), wf.constant([[1.0, 2.0, 3.0]]))


@pytest.mark.parametrize("build, message", [
    (lambda: tf.nn.bias_add(tf.placeholder(tf.float32, [3]), tf.placeholder(tf.float32, [3])),
     "Shape must be at least rank 2 but is rank 1"),
    (lambda: tf.nn.bias_add(tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.float32, [4])),
     "Dimensions must be equal, but are 3 and 4"),
    (lambda: tf.nn.bias_add(tf.placeholder(tf.float32, [2, 3]), tf.placeholder(tf.float32, [1, 3])),
     "Shape must be rank 1 but is rank 2"),
    (lambda: tf.nn.softmax(tf.placeholder(tf.float32, [])), "Shape must be at least rank 1 but is rank 0"),
    (lambda: tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.placeholder(tf.float32, [2, 4]),
                                                        logits=tf.placeholder(tf.float32, [2, 3])),
     "Dimensions must be equal, but are 3 and 4"),
])
def test_build_time_shape_errors(graph_mode, build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_dtype_errors(graph_mode):
    with pytest.raises(TypeError, match="parameter 'features' has DataType bool"):
        tf.nn.relu(tf.placeholder(tf.bool, [3]))
    with pytest.raises(TypeError, match="parameter 'logits' has DataType int32"):
        tf.nn.softmax(tf.placeholder(tf.int32, [3]))


def test_softmax_is_stable_for_large_logits():
    logits = wf.constant([[1000.0, 0.0, -1000.0]])
    np.testing.assert_allclose(wf.nn.softmax(logits).numpy(), [[1.0, 0.0, 0.0]])
    loss = wf.nn.softmax_cross_entropy_with_logits(wf.constant([[0.0, 1.0, 0.0]]), logits)
    np.testing.assert_allclose(loss.numpy(), [1000.0])
