"""Op table rows for the dataset and iterator ops (ops/dataset_ops.py, ops/iterator_ops.py).

Each row builds a small pipeline on its input tensors and returns the pipeline's first element(s): eagerly
through `iter(dataset)` (AnonymousIteratorV3, MakeIterator, IteratorGetNext), in a graph through an
IteratorV2 whose MakeIterator runs before IteratorGetNext in the same Session.run (or a OneShotIterator).
References are NumPy slices of the inputs, hand-derived values, and for the seeded shuffle the order real
TensorFlow 2.21 gives (tests/data/test_data_tensorflow.py checks many more against TensorFlow itself).
No gradients: TensorFlow registers none for these ops (tf.gradients through DatasetToSingleElement raises
LookupError there too).
"""

import atexit
import os
import shutil
import struct
import tempfile

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.data.iterators import Iterator
from webflow.io.tfrecord import TFRecordWriter

Dataset = wf.data.Dataset
rng = np.random.default_rng(25)

# --- files the reader rows read (written once, removed at exit) ---------------------------------------------
FILES = tempfile.mkdtemp(prefix="webflow-dataset-table-")
atexit.register(shutil.rmtree, FILES, True)
RECORDS = [b"first", b"", b"third record"]
TFRECORD = os.path.join(FILES, "records.tfrecord")
with TFRecordWriter(TFRECORD) as _writer:
    for _record in RECORDS:
        _writer.write(_record)
TEXT = os.path.join(FILES, "lines.txt")
with open(TEXT, "wb") as _file:
    _file.write(b"alpha\nbeta\r\ngamma")
CSV = os.path.join(FILES, "table.csv")
with open(CSV, "w") as _file:
    _file.write("id,score,name\n1,0.5,ann\n2,,bob\n")
FIXED = os.path.join(FILES, "fixed.bin")
with open(FIXED, "wb") as _file:
    _file.write(b"HDR" + struct.pack(">4H", 1, 2, 3, 4) + b"F")  # header 3, records of 2 bytes, footer 1


def string(value: bytes) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def first(dataset):
    """The dataset's first element (a flat list of tensors)."""
    if wf.executing_eagerly():
        element = next(iter(dataset))
    else:
        iterator = Iterator.from_dataset(dataset)
        with wf.control_dependencies([iterator.initializer]):
            element = iterator.get_next()
    return wf.nest.flatten(element) if hasattr(wf, "nest") else _flatten(element)


def _flatten(element):
    if isinstance(element, dict):
        return [leaf for key in sorted(element) for leaf in _flatten(element[key])]
    if isinstance(element, (tuple, list)):
        return [leaf for item in element for leaf in _flatten(item)]
    return [element]


def first_one_shot(dataset):
    """A one-shot iterator's first element in a graph (TF1's make_one_shot_iterator); eagerly iter()."""
    if wf.executing_eagerly():
        return first(dataset)
    return _flatten(Iterator.one_shot(dataset).get_next())


def first_through_string_handle(dataset):
    """In a graph: the first element through a feedable iterator (from_string_handle) naming an initialized one."""
    if wf.executing_eagerly():
        return first(dataset)
    iterator = Iterator.from_dataset(dataset)
    feedable = Iterator.from_string_handle(iterator.string_handle(), wf.int64, wf.TensorShape([]))
    with wf.control_dependencies([iterator.initializer]):
        return [feedable.get_next()]


def _sparse_parts(dataset):
    element = first(dataset)[0] if not hasattr(dataset, "dense_shape") else dataset
    return [element.indices, element.values, element.dense_shape]


def _fill_own_value(v):
    return wf.fill(wf.expand_dims(v, 0), v)


X = rng.standard_normal((4, 3)).astype(np.float32)
Y = np.array([5, 1, 7, 3], np.int32)
SKIP = np.array(1, np.int64)

CASES = [
    # sources
    OpCase("tensor_slice", lambda x: first(Dataset.from_tensor_slices(x)), [X], lambda x: x[0], grad=False),
    OpCase("tensor_slice_dict", lambda x, y: first(Dataset.from_tensor_slices({"b": y, "a": x})), [X, Y],
           lambda x, y: [x[0], y[0]], grad=False),
    OpCase("tensor", lambda x: first(Dataset.from_tensors(x)), [X], lambda x: x, grad=False),
    OpCase("range_skip", lambda n: first(Dataset.range(n, n + 9, 3).skip(1)), [np.array(4, np.int64)],
           lambda n: n + 3, grad=False),
    OpCase("generator_args", lambda n: first(Dataset.from_generator(
        lambda k: range(k, k + 3), output_signature=wf.TensorSpec([], wf.int64), args=(n,)).skip(1)),
           [np.array(6, np.int64)], lambda n: np.int64(n + 1), grad=False),
    OpCase("tfrecord", lambda n: first(wf.data.TFRecordDataset(TFRECORD).skip(n * 2)), [SKIP],
           lambda n: string(RECORDS[2]), grad=False),
    OpCase("text_line", lambda n: first(wf.data.TextLineDataset(TEXT).skip(n)), [SKIP],
           lambda n: string(b"beta"), grad=False),
    OpCase("fixed_length", lambda n: first(wf.data.FixedLengthRecordDataset(FIXED, 2, header_bytes=3,
                                                                             footer_bytes=1).skip(n)), [SKIP],
           lambda n: string(struct.pack(">H", 2)), grad=False),
    OpCase("csv", lambda n: first(wf.data.experimental.CsvDataset(CSV, [wf.int32, -1.0, "?"], header=True)
                                  .skip(n)), [SKIP], lambda n: [np.int32(2), np.float32(-1.0), string(b"bob")],
           grad=False),
    # combining, counting, order
    OpCase("zip", lambda x, y: first(Dataset.zip((Dataset.from_tensor_slices(y), Dataset.from_tensor_slices(x)))),
           [X, Y], lambda x, y: [y[0], x[0]], grad=False),
    OpCase("concatenate_take", lambda x: first(Dataset.from_tensor_slices(x).take(0).concatenate(
        Dataset.from_tensor_slices(x * 2.0))), [X], lambda x: x[0] * 2, grad=False),
    OpCase("repeat_skip", lambda x: first(Dataset.from_tensor_slices(x).repeat(2).skip(5)), [X], lambda x: x[1],
           grad=False),
    OpCase("shard", lambda x: first(Dataset.from_tensor_slices(x).shard(3, 1)), [X], lambda x: x[1], grad=False),
    # TensorFlow 2.21: Dataset.range(10).shuffle(10, seed=1) yields 0, 9, 5, 1, 2, 7, 3, 8, 6, 4
    OpCase("shuffle_seeded", lambda n: first(Dataset.range(n).shuffle(10, seed=1).batch(3, drop_remainder=True)),
           [np.array(10, np.int64)], lambda n: np.array([0, 9, 5], np.int64), grad=False),
    OpCase("enumerate", lambda x: first(Dataset.from_tensor_slices(x).enumerate(start=3)), [X],
           lambda x: [np.int64(3), x[0]], grad=False),
    # grouping
    OpCase("batch_drop_remainder", lambda x: first(Dataset.from_tensor_slices(x).batch(3, drop_remainder=True)), [X],
           lambda x: x[:3], grad=False),
    OpCase("batch", lambda x: first(Dataset.from_tensor_slices(x).batch(3)), [X], lambda x: x[:3], grad=False,
           fully_static=False),
    OpCase("padded_batch", lambda y: first(Dataset.from_tensor_slices(y).map(_fill_own_value).padded_batch(
        2, padded_shapes=[None])), [Y],
           lambda y: np.array([[5, 5, 5, 5, 5], [1, 0, 0, 0, 0]], np.int32), grad=False, fully_static=False),
    OpCase("unbatch", lambda x: first(Dataset.from_tensors(x).unbatch()), [X], lambda x: x[0], grad=False),
    OpCase("window_flat_map", lambda x: first(Dataset.from_tensor_slices(x).window(2, shift=1).flat_map(
        lambda w: w.batch(2, drop_remainder=True)).skip(1)), [X], lambda x: x[1:3], grad=False),
    # functions
    OpCase("map", lambda x: first(Dataset.from_tensor_slices(x).map(lambda r: r * 2.0 + 1.0)), [X],
           lambda x: x[0] * 2 + 1, grad=False),
    OpCase("map_parallel_capture", lambda x, y: first(Dataset.from_tensor_slices(y).map(
        lambda v: wf.cast(v, wf.float32) * x[0], num_parallel_calls=2)), [X, Y], lambda x, y: np.float32(y[0]) * x[0],
           grad=False),
    OpCase("filter", lambda y: first(Dataset.from_tensor_slices(y).filter(lambda v: v > 5)), [Y], lambda y: y[2],
           grad=False),
    OpCase("interleave", lambda y: first(Dataset.from_tensor_slices(y).interleave(
        lambda v: Dataset.from_tensors(v).repeat(2), cycle_length=2, block_length=1).batch(4, drop_remainder=True)),
           [Y], lambda y: np.array([y[0], y[1], y[0], y[1]], np.int32), grad=False),
    OpCase("prefetch_cache", lambda x: first(Dataset.from_tensor_slices(x).cache().prefetch(2).skip(2)), [X],
           lambda x: x[2], grad=False),
    # sparse elements: SerializeSparse makes the variant component, DeserializeSparse (after get_next) undoes it
    OpCase("sparse_batch", lambda y: _sparse_parts(Dataset.from_tensors(wf.sparse.SparseTensor(
        [[0], [2]], y[:2], [3])).repeat(2).batch(2)), [Y],
           lambda y: [np.array([[0, 0], [0, 2], [1, 0], [1, 2]], np.int64), np.array([y[0], y[1], y[0], y[1]]),
                      np.array([2, 3], np.int64)], grad=False, fully_static=False),
    # whole-dataset results
    OpCase("cardinality", lambda x: Dataset.from_tensor_slices(x).batch(3).cardinality(), [X],
           lambda x: np.int64(2), grad=False),
    OpCase("single_element", lambda x: Dataset.from_tensors(x).get_single_element(), [X], lambda x: x, grad=False),
    OpCase("reduce_sum", lambda y: Dataset.from_tensor_slices(y).reduce(np.int32(0), lambda s, v: s + v), [Y],
           lambda y: np.int32(y.sum()), grad=False),
    OpCase("string_handle", lambda n: first_through_string_handle(Dataset.range(n, 10)), [np.array(4, np.int64)],
           lambda n: n, grad=False),
    OpCase("one_shot", lambda y: first_one_shot(Dataset.range(3).map(lambda v: v * 7))[0] + wf.cast(y[0] * 0,
                                                                                                    wf.int64),
           [Y], lambda y: np.int64(0), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_dataset_op(case):
    check_case(case)
