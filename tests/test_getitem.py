"""Stories for `tensor[...]`, gathers and embedding lookups: TF1 names and static shapes, run-time index
errors, and the sparse (IndexedSlices) gradient of an embedding lookup in a graph and on a tape."""

import json
import os
import subprocess

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf

# Runs unchanged under webflow.compat.v1 and under tensorflow.compat.v1 (as `tf`).
BUILD = """
tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [None, 3])
y = tf.placeholder(tf.float32, [2, 3, 4])
results = []
for target, spec in SPECS:
    tensor = eval(target + spec)
    results.append([tensor.name, str(tensor.shape)])
"""
SPECS = [("x", "[:, 1]"), ("x", "[0]"), ("x", "[..., None]"), ("x", "[::-1, tf.newaxis, 1:]"), ("y", "[1, ..., ::2]"),
         ("y", "[:, -1]"), ("y", "[tf.constant(1)]"), ("x", "[:, tf.constant(1)]"), ("y", "[None, :, -2::-1]")]


def _names_and_shapes(module):
    scope = {"tf": module, "SPECS": SPECS}
    exec(BUILD, scope)  # noqa: S102 - fixed test code
    return scope["results"]


def test_getitem_names_and_shapes_match_tensorflow():
    tf_python = os.environ.get("WEBFLOW_TF_PYTHON")
    if not tf_python:
        pytest.skip("WEBFLOW_TF_PYTHON not set")
    script = (f"import json\nimport tensorflow.compat.v1 as tf\nSPECS = {SPECS!r}\n{BUILD}\n"
              "print(json.dumps(results))")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([tf_python, "-c", script], capture_output=True, text=True, env=env, check=True).stdout
    expected = json.loads(out.strip().splitlines()[-1])
    assert _names_and_shapes(tf) == expected


def test_getitem_values_match_numpy_including_tensor_indices():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = wf.constant(x)
    assert np.array_equal(t[1, ..., ::-2].numpy(), x[1, ..., ::-2])
    assert np.array_equal(t[wf.constant(1), 1:, None].numpy(), x[1, 1:, None])
    assert np.array_equal(t[:, wf.constant(-1)].numpy(), x[:, -1])
    with pytest.raises(TypeError):
        t[[0, 1]]


def test_getitem_out_of_range_is_an_error():
    with pytest.raises(wf.errors.InvalidArgumentError, match="out of bounds"):
        wf.constant([1.0, 2.0])[5]
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [None])
    with tf.Session() as session, pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        session.run(x[4], {x: np.zeros(2, np.float32)})


def test_gather_index_out_of_range_names_the_op():
    with pytest.raises(wf.errors.InvalidArgumentError, match=r"indices\[1\] = 7 is not in \[0, 5\).*GatherV2"):
        wf.gather(wf.zeros([5, 2]), [1, 7])
    tf.disable_v2_behavior()
    params = tf.placeholder(tf.float32, [None, 2])
    out = tf.gather(params, [1, 7])
    with tf.Session() as session, pytest.raises(tf.errors.InvalidArgumentError,
                                                match=r"(?s)indices\[1\] = 7 is not in \[0, 5\).*GatherV2"):
        session.run(out, {params: np.zeros((5, 2), np.float32)})
    nd = tf.gather_nd(params, [[1, 7]])
    with tf.Session() as session, pytest.raises(tf.errors.InvalidArgumentError, match="does not index into param"):
        session.run(nd, {params: np.zeros((5, 2), np.float32)})


def test_embedding_lookup_tf1_graph_gives_indexed_slices_to_the_variable():
    tf.disable_v2_behavior()
    table = np.arange(10, dtype=np.float32).reshape(5, 2)
    v = tf.Variable(table, name="emb")
    e = tf.nn.embedding_lookup(v, [1, 3, 1])
    assert e.name == "embedding_lookup/Identity:0"
    assert e.shape.as_list() == [3, 2]
    gather_op = tf.get_default_graph().get_operation_by_name("embedding_lookup")
    assert gather_op.type == "GatherV2" and gather_op.inputs[0].name == "emb/read:0"
    weights = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    loss = tf.reduce_sum(e * weights)
    grad = tf.gradients(loss, v)[0]
    assert isinstance(grad, tf.IndexedSlices)
    with tf.Session() as session:
        session.run(tf.global_variables_initializer())
        value, got = session.run([e, grad])
    np.testing.assert_array_equal(value, table[[1, 3, 1]])
    dense = np.zeros_like(table)
    np.add.at(dense, got.indices, got.values)
    expected = np.zeros_like(table)
    np.add.at(expected, [1, 3, 1], weights)  # d loss / d table[k] = sum of the weights of rows that read k
    np.testing.assert_allclose(dense, expected)
    np.testing.assert_array_equal(got.dense_shape, [5, 2])


def test_embedding_lookup_eager_tape_gradient_is_indexed_slices():
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    v = wf.Variable(table)
    with wf.GradientTape() as tape:
        rows = wf.nn.embedding_lookup([v], wf.constant([[0, 2], [2, 2]]))
        loss = wf.reduce_sum(rows)
    grad = tape.gradient(loss, v)
    assert isinstance(grad, wf.IndexedSlices)
    np.testing.assert_array_equal(rows.numpy(), table[[[0, 2], [2, 2]]])
    np.testing.assert_allclose(wf.convert_to_tensor(grad).numpy(), [[1, 1], [0, 0], [3, 3], [0, 0]])


def test_tf1_names_of_array_ops():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, [None, 3])
    got = [tf.transpose(x).name, tf.expand_dims(x, 1).name, tf.squeeze(x).name, tf.slice(x, [0, 0], [1, -1]).name,
           tf.tile(x, [2, 2]).name, tf.pad(x, [[1, 1], [2, 2]]).name,
           tf.pad(x, [[1, 1], [0, 0]], constant_values=1.0).name,
           tf.pad(x, [[1, 1], [1, 1]], mode="REFLECT").name, tf.gather(x, [0]).name, tf.gather_nd(x, [[0, 1]]).name,
           tf.reverse(x, [0]).name, tf.clip_by_value(x, 0.0, 1.0).name, tf.zeros_like(x).name, tf.ones_like(x).name,
           tf.boolean_mask(x, [True]).name]
    assert got == ["transpose:0", "ExpandDims:0", "Squeeze:0", "Slice:0", "Tile:0", "Pad:0", "PadV2:0", "MirrorPad:0",
                   "GatherV2:0", "GatherNd:0", "ReverseV2:0", "clip_by_value:0", "zeros_like:0", "ones_like:0",
                   "boolean_mask/GatherV2:0"]
    assert tf.transpose(x).shape.as_list() == [3, None]
    assert tf.tile(x, [2, 2]).shape.as_list() == [None, 6]
