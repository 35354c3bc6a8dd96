"""Sparse (IndexedSlices) gradients applied as TensorFlow applies them: the optimizers' update ops, their names and
the numbers, against real TensorFlow 2.21 (tf.compat.v1, graph mode) where WEBFLOW_TF_PYTHON is set, and the scatter
ops (ops/scatter_ops.py) against NumPy.

TensorFlow's GradientDescent scatter-subtracts lr * rows (ScatterSub; ResourceScatterAdd of -rows * lr on a resource
variable) without de-duplicating; Momentum / Adagrad / RMSProp / Adadelta de-duplicate (Unique + UnsortedSegmentSum)
and run their SparseApply op; Adam decays m and v and scatter-adds the rows (ScatterAdd). None makes the dense gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow

import webflow.compat.v1 as tf
from webflow.ops import scatter_ops

needs_tf = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

# An embedding of 6 rows looked up by ids with a repeat (row 1 twice), a loss, the optimizer's sparse update:
# the update ops' types and names, and the table after 3 steps.
PROGRAM = """
table = np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0
embeddings = tf.get_variable("embeddings", initializer=tf.constant(table))
ids = tf.constant([1, 3, 1, 5])
targets = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(embeddings, ids) - targets))
optimizer = OPTIMIZER
train = optimizer.minimize(loss)
update_ops = sorted(op.name + ":" + op.type for op in tf.get_default_graph().get_operations()
                    if "/update_" in op.name and op.type not in ("Const",))
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for _ in range(3):
        sess.run(train)
    result = {"ops": update_ops, "table": sess.run(embeddings)}
"""

OPTIMIZERS = {
    "gradient_descent": "tf.train.GradientDescentOptimizer(0.1)",
    "momentum": "tf.train.MomentumOptimizer(0.1, 0.9)",
    "adagrad": "tf.train.AdagradOptimizer(0.1)",
    "adam": "tf.train.AdamOptimizer(0.1)",
    "rmsprop": "tf.train.RMSPropOptimizer(0.1)",
    "centered_rmsprop_momentum": "tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True)",
    "adadelta": "tf.train.AdadeltaOptimizer(1.0)",
}
PROGRAMS = {name: PROGRAM.replace("OPTIMIZER", source) for name, source in OPTIMIZERS.items()}


@pytest.fixture(scope="module")
def tensorflow_results():
    return run_tensorflow(PROGRAMS)


@needs_tf
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_sparse_update_matches_tensorflow(key, tensorflow_results):
    ours, theirs = run_webflow(PROGRAMS[key]), tensorflow_results[key]
    np.testing.assert_allclose(ours["table"], theirs["table"], rtol=1e-6, atol=1e-6)
    assert ours["ops"] == theirs["ops"]   # the update's ops: TensorFlow's names and types


@needs_tf
@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_eager_resource_variable_update_matches_tensorflow(key, tensorflow_results):
    """Eagerly, on a resource variable (ResourceScatterAdd / ResourceSparseApply* / Adam's ResourceScatterAdd):
    TensorFlow's numbers, the same as its TF1 graph's."""
    import webflow as wf

    table = wf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2) / 10.0)
    targets = wf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
    optimizer = eval(OPTIMIZERS[key], {"tf": tf})   # noqa: S307 - the table's own constructor calls

    def loss():
        return wf.reduce_sum(wf.square(wf.nn.embedding_lookup(table, wf.constant([1, 3, 1, 5])) - targets))

    for _ in range(3):
        optimizer.minimize(loss, var_list=[table])
    np.testing.assert_allclose(table.numpy(), tensorflow_results[key]["table"], rtol=1e-6, atol=1e-6)


def test_gradient_descent_makes_no_dense_gradient():
    with tf.Graph().as_default() as graph:
        embeddings = tf.get_variable("e", initializer=tf.zeros([1000, 8]))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(embeddings, [3, 3, 7]))
        tf.train.GradientDescentOptimizer(1.0).minimize(loss)
        types = {op.type for op in graph.get_operations()}
    assert "ScatterSub" in types
    assert not {"UnsortedSegmentSum", "ApplyGradientDescent", "Unique"} & types


def test_repeated_indices_subtract_one_row_after_the_other():
    with tf.Graph().as_default():
        embeddings = tf.get_variable("e", initializer=tf.constant([[1.0], [10.0], [100.0]]))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(embeddings, [1, 1, 2]) * tf.constant([[1.0], [2.0], [3.0]]))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            assert sess.run(embeddings).tolist() == [[1.0], [10.0 - 0.5 - 1.0], [100.0 - 1.5]]


# --- the scatter ops themselves -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_scatter_ops_on_a_ref_variable(dtype, index_dtype):
    start = np.arange(12, dtype=dtype).reshape(4, 3)
    indices = np.array([2, 0, 2], index_dtype)
    rows = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], dtype)
    expected_add, expected_sub = start.copy(), start.copy()
    np.add.at(expected_add, indices, rows)
    np.subtract.at(expected_sub, indices, rows)
    expected_update = start.copy()
    expected_update[[0, 2]] = rows[[1, 2]]
    with tf.Graph().as_default():
        v = tf.Variable(start)
        ops = {"add": scatter_ops.scatter_add(v, indices, rows), "sub": scatter_ops.scatter_sub(v, indices, rows),
               "update": scatter_ops.scatter_update(v, indices, rows)}
        with tf.Session() as sess:
            for name, expected in (("add", expected_add), ("sub", expected_sub), ("update", expected_update)):
                sess.run(v.initializer)
                got = sess.run(ops[name])
                np.testing.assert_array_equal(got, expected)
                np.testing.assert_array_equal(sess.run(v), expected)


def test_a_fetched_value_is_not_changed_by_a_later_scatter():
    """Copy-on-write: the array a fetch returned keeps its values when the next run scatters into the variable."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2), np.float32))
        update = scatter_ops.scatter_add(v, [1], [[1.0, 1.0]])
        with tf.Session() as sess:
            sess.run(v.initializer)
            before = sess.run(v)
            sess.run(update)
            assert before.tolist() == [[0.0, 0.0]] * 3
            assert sess.run(v).tolist() == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]


def test_scalar_updates_broadcast_to_the_rows():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones((3, 2), np.float32))
        update = scatter_ops.scatter_sub(v, [0, 2], 0.5)
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(update).tolist() == [[0.5, 0.5], [1.0, 1.0], [0.5, 0.5]]


def test_index_out_of_range_is_tensorflows_error():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones((3, 2), np.float32))
        update = scatter_ops.scatter_add(v, [0, 3], [[1.0, 1.0], [1.0, 1.0]])
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = 3 is not in \[0, 3\)"):
                sess.run(update)
            assert sess.run(v).tolist() == [[1.0, 1.0]] * 3   # nothing written


def test_update_shape_mismatch_is_a_build_time_value_error():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones((3, 2), np.float32))
        with pytest.raises(ValueError, match=r"Must have updates.shape = indices.shape \+ params.shape\[1:\]"):
            scatter_ops.scatter_add(v, [0, 1], [[1.0, 1.0, 1.0]])


def test_resource_scatter_add_eagerly():
    import webflow as wf

    v = wf.Variable(np.zeros((3, 2), np.float32))
    scatter_ops.resource_scatter_add(v.handle, wf.constant([2, 2]), wf.constant([[1.0, 2.0], [3.0, 4.0]]))
    assert v.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0], [4.0, 6.0]]
