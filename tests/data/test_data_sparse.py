"""SparseTensor elements in tf.data: parsed VarLenFeatures mapped, batched, unbatched and iterated (eager and TF1
graph), from_tensor_slices / from_tensors of a SparseTensor, their element_spec, and padded_batch's refusal.
Compared with real TensorFlow 2.21 (WEBFLOW_TF_PYTHON) and with hand-derived values."""

import os
import tempfile

import numpy as np
import pytest
from data_oracle import SKIP_REASON, TF_PYTHON, run_tensorflow, run_webflow, same

import webflow as wf

_RECORDS = (
    "def ex(vals):\n"
    "    f = tf.train.Feature(int64_list=tf.train.Int64List(value=vals))\n"
    "    return tf.train.Example(features=tf.train.Features(feature={'v': f})).SerializeToString()\n"
    "recs = [ex([1, 2, 3]), ex([]), ex([7])]\n"
    "ds = tf.data.Dataset.from_tensor_slices(recs).map(\n"
    "    lambda r: tf.io.parse_single_example(r, {'v': tf.io.VarLenFeature(tf.int64)})['v'])\n"
    "def parts(s):\n"
    "    return [s.indices, s.values, s.dense_shape]\n")

EAGER = {
    "parsed": _RECORDS + "result = [repr(ds.element_spec)] + [parts(s) for s in ds]",
    "batched": _RECORDS + "b = ds.batch(2)\nresult = [repr(b.element_spec)] + [parts(s) for s in b]",
    "unbatched": _RECORDS + "u = ds.batch(2).unbatch()\nresult = [repr(u.element_spec)] + [parts(s) for s in u]",
    "to_dense": _RECORDS + "result = [d for d in ds.batch(3).map(tf.sparse.to_dense)]",
    "types": _RECORDS + "result = [type(s).__name__ for s in ds] + [type(ds.element_spec).__name__]",
    "padded_batch_refuses": _RECORDS + "try:\n    ds.padded_batch(2)\n    result = 'no error'\n"
                                       "except TypeError as e:\n    result = str(e)",
    "slices": ("st = tf.sparse.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4])\n"
               "s = tf.data.Dataset.from_tensor_slices(st)\n"
               "result = [repr(s.element_spec), repr(tf.data.Dataset.from_tensors(st).element_spec)] + "
               "[[x.indices, x.values, x.dense_shape] for x in s]"),
    "dict_and_dense": _RECORDS + ("d = tf.data.Dataset.zip((ds, tf.data.Dataset.range(3))).map(lambda s, n: "
                                  "{'s': s, 'n': n * 2}).batch(2)\n"
                                  "result = [sorted(repr(v) for v in d.element_spec.values())] + "
                                  "[[parts(e['s']), e['n']] for e in d]"),
    "concatenate_filter_reduce": _RECORDS + (
        "c = ds.concatenate(ds).filter(lambda s: tf.size(s.values) > 0)\n"
        "result = [repr(c.element_spec), [parts(s) for s in c], "
        "c.reduce(tf.constant(0, tf.int64), lambda t, s: t + tf.reduce_sum(s.values))]"),
    "shuffle_prefetch_zip": _RECORDS + (
        "z = tf.data.Dataset.zip((ds, ds.map(lambda s: tf.sparse.to_dense(s)))).shuffle(3, seed=4).prefetch(2)\n"
        "result = [[parts(s), d] for s, d in z]"),
    "from_generator": (
        "def gen():\n    yield tf.sparse.SparseTensor([[0, 1]], [2.5], [2, 3])\n"
        "    yield tf.sparse.SparseTensor(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [1, 3])\n"
        "g = tf.data.Dataset.from_generator(gen, output_signature=tf.SparseTensorSpec([None, 3], tf.float32))\n"
        "result = [repr(g.element_spec)] + [[x.indices, x.values, x.dense_shape] for x in g.batch(2)]"),
}

GRAPH = {
    "graph_batched": _RECORDS + ("n = tf.data.make_one_shot_iterator(ds.batch(2)).get_next()\nout = []\n"
                                 "with tf.Session() as sess:\n    while True:\n        try:\n"
                                 "            v = sess.run(n)\n        except tf.errors.OutOfRangeError:\n"
                                 "            break\n        out.append([type(v).__name__, v.indices, v.values, "
                                 "v.dense_shape])\nresult = out"),
    "graph_reinitializable": _RECORDS + (
        "b = ds.batch(2)\nit = tf.data.Iterator.from_structure(tf.data.get_output_types(b), "
        "tf.data.get_output_shapes(b), tf.data.get_output_classes(b))\nn = it.get_next()\n"
        "with tf.Session() as sess:\n    sess.run(it.make_initializer(b))\n    v = sess.run(n)\n"
        "    sess.run(it.make_initializer(b.skip(1)))\n    w = sess.run(n)\n"
        "result = [v.indices, v.values, v.dense_shape, w.indices, w.values, w.dense_shape]"),
    "graph_book_pipeline": (
        "def ex(pixels, tags):\n"
        "    f = {'img': tf.train.Feature(float_list=tf.train.FloatList(value=pixels)),\n"
        "         'tags': tf.train.Feature(bytes_list=tf.train.BytesList(value=tags))}\n"
        "    return tf.train.Example(features=tf.train.Features(feature=f)).SerializeToString()\n"
        "recs = tf.placeholder(tf.string, [None])\n"
        "spec = {'img': tf.FixedLenFeature([2], tf.float32), 'tags': tf.VarLenFeature(tf.string)}\n"
        "d = tf.data.Dataset.from_tensor_slices(recs).map(lambda r: tf.parse_single_example(r, spec)).batch(2)\n"
        "d = d.map(lambda f: (f['img'] * 2.0, tf.sparse_tensor_to_dense(f['tags'], default_value=b'-')))\n"
        "it = d.make_initializable_iterator()\nn = it.get_next()\nout = [d.output_shapes]\n"
        "with tf.Session() as sess:\n"
        "    sess.run(it.initializer, {recs: [ex([1, 2], [b'a', b'b']), ex([3, 4], []), ex([5, 6], [b'c'])]})\n"
        "    out += [sess.run(n), sess.run(n)]\n"
        "result = out"),
    "graph_legacy": _RECORDS + ("b = ds.batch(2)\nresult = [tf.data.get_output_types(b), "
                                "tf.data.get_output_shapes(b), tf.data.get_output_classes(b).__name__]"),
}


@pytest.fixture(scope="module")
def tensorflow_results():
    if TF_PYTHON is None:
        pytest.skip(SKIP_REASON)
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "e"))
        os.makedirs(os.path.join(tmp, "g"))
        return {"eager": run_tensorflow(EAGER, "eager", os.path.join(tmp, "e")),
                "graph": run_tensorflow(GRAPH, "graph", os.path.join(tmp, "g"))}


@pytest.mark.parametrize("key", sorted(EAGER))
def test_eager_sparse_program_matches_tensorflow(key, tensorflow_results, tmp_path):
    got = run_webflow(EAGER[key], "eager", str(tmp_path))
    assert same(got, tensorflow_results["eager"][key]), f"{got!r} vs {tensorflow_results['eager'][key]!r}"


@pytest.mark.parametrize("key", sorted(GRAPH))
def test_graph_sparse_program_matches_tensorflow(key, tensorflow_results, tmp_path):
    got = run_webflow(GRAPH[key], "graph", str(tmp_path))
    assert same(got, tensorflow_results["graph"][key]), f"{got!r} vs {tensorflow_results['graph'][key]!r}"


def _example(values):
    feature = wf.train.Feature(int64_list=wf.train.Int64List(value=values))
    return wf.train.Example(features=wf.train.Features(feature={"v": feature})).SerializeToString()


def test_batched_varlen_features_equal_the_hand_built_sparse_batch():
    rows = [[4, 5], [], [6, 7, 8], [9]]
    dataset = wf.data.Dataset.from_tensor_slices([_example(r) for r in rows]).map(
        lambda r: wf.io.parse_single_example(r, {"v": wf.io.VarLenFeature(wf.int64)})["v"]).batch(3)
    batches = list(dataset)
    # the batch's dense shape is [rows, longest row]; entry (i, j) is rows[i][j]
    for batch, chunk in zip(batches, [rows[:3], rows[3:]]):
        expected_indices = [[i, j] for i, r in enumerate(chunk) for j in range(len(r))]
        assert batch.indices.numpy().tolist() == expected_indices
        assert batch.values.numpy().tolist() == [v for r in chunk for v in r]
        assert batch.dense_shape.numpy().tolist() == [len(chunk), max(len(r) for r in chunk)]
    dense = wf.sparse.to_dense(batches[0]).numpy()
    assert dense.tolist() == [[4, 5, 0], [0, 0, 0], [6, 7, 8]]


def test_sparse_slices_and_as_numpy_iterator():
    st = wf.sparse.SparseTensor([[0, 1], [2, 0], [2, 3]], np.array([1.0, 2.0, 3.0], np.float32), [3, 4])
    values = list(wf.data.Dataset.from_tensor_slices(st).as_numpy_iterator())
    assert type(values[0]).__name__ == "SparseTensorValue"
    assert [v.values.tolist() for v in values] == [[1.0], [], [2.0, 3.0]]
    assert [v.indices.tolist() for v in values] == [[[1]], [], [[0], [3]]]
    assert all(v.dense_shape.tolist() == [4] for v in values)


def test_graph_get_next_is_a_sparse_tensor_of_known_rank():
    import webflow.compat.v1 as tf1

    graph = wf.Graph()
    with graph.as_default():
        st = wf.sparse.SparseTensor([[0, 0], [1, 2]], np.array([3, 4], np.int32), [2, 3])
        element = tf1.data.make_one_shot_iterator(wf.data.Dataset.from_tensors(st).repeat(2).batch(2)).get_next()
        assert isinstance(element, wf.sparse.SparseTensor)
        assert element.indices.shape.as_list() == [None, 3]
        with tf1.Session(graph=graph) as session:
            value = session.run(element)
    assert value.indices.tolist() == [[0, 0, 0], [0, 1, 2], [1, 0, 0], [1, 1, 2]]
    assert value.values.tolist() == [3, 4, 3, 4] and value.dense_shape.tolist() == [2, 2, 3]
