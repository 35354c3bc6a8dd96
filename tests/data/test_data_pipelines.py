"""tf.data pipelines checked against independent values: the MNIST IDX files read with gzip + struct, records
written by the TFRecord writer, hand-derived elements, and the engine's own promises (threads stop, errors
name what failed, ops show in the graph). tests/data/test_data_tensorflow.py compares with TensorFlow itself.
"""

import gc
import gzip
import os
import threading
import time

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.framework import errors
from webflow.io.tfrecord import TFRecordOptions, TFRecordWriter

DATA = os.environ.get("WEBFLOW_DATA")


def graph_values(build, feeds=None, runs=1):
    """Builds in a fresh graph; returns the fetched values of `runs` Session.run calls of build()'s result."""
    graph = wf.Graph()
    with graph.as_default():
        fetch = build()
        with tf1.Session(graph=graph) as session:
            return [session.run(fetch, feeds) for _ in range(runs)]


# --- files --------------------------------------------------------------------------------------------------
@pytest.mark.skipif(DATA is None, reason="WEBFLOW_DATA is not set")
def test_fixed_length_records_read_the_raw_mnist_idx_files():
    """t10k-images: a 16-byte header then 10,000 records of 28*28 bytes; labels: 8 bytes, then 1 byte each."""
    images_path = os.path.join(DATA, "mnist", "t10k-images-idx3-ubyte.gz")
    labels_path = os.path.join(DATA, "mnist", "t10k-labels-idx1-ubyte.gz")
    raw = gzip.decompress(open(images_path, "rb").read())
    images = wf.data.FixedLengthRecordDataset(images_path, 784, header_bytes=16, compression_type="GZIP")
    labels = wf.data.FixedLengthRecordDataset(labels_path, 1, header_bytes=8, compression_type="GZIP")
    records = [r.numpy() for r in images]
    assert len(records) == 10000
    assert records[0] == raw[16:16 + 784] and records[-1] == raw[-784:]
    first_labels = [ord(r) for r in labels.take(5).as_numpy_iterator()]
    assert first_labels == [7, 2, 1, 0, 4]  # the test set's first labels (LeCun's file)


@pytest.mark.parametrize("compression", ["", "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_what_the_writer_wrote(tmp_path, compression):
    path = str(tmp_path / "data.tfrecord")
    records = [bytes([i]) * i for i in range(50)]
    with TFRecordWriter(path, TFRecordOptions(compression)) as writer:
        for record in records:
            writer.write(record)
    dataset = wf.data.TFRecordDataset([path, path], compression_type=compression)
    assert list(dataset.as_numpy_iterator()) == records + records


def test_corrupt_tfrecord_raises_data_loss_naming_the_file(tmp_path):
    path = str(tmp_path / "bad.tfrecord")
    with TFRecordWriter(path) as writer:
        writer.write(b"good")
        writer.write(b"will be damaged")
    data = bytearray(open(path, "rb").read())
    data[-6] ^= 0xFF
    open(path, "wb").write(bytes(data))
    iterator = iter(wf.data.TFRecordDataset(path))
    assert next(iterator).numpy() == b"good"
    with pytest.raises(errors.DataLossError, match="bad.tfrecord"):
        next(iterator)


def test_text_lines_without_end_of_line(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"a b\r\n\nlast line")
    assert list(wf.data.TextLineDataset(str(path)).as_numpy_iterator()) == [b"a b", b"", b"last line"]


def test_list_files_sorted_and_seeded_shuffle_is_a_permutation(tmp_path):
    names = [f"f{i}.txt" for i in range(6)]
    for name in names:
        (tmp_path / name).write_text(name)
    pattern = str(tmp_path / "*.txt")
    listed = [os.path.basename(p.decode()) for p in wf.data.Dataset.list_files(pattern, shuffle=False)
              .as_numpy_iterator()]
    assert listed == sorted(names)
    shuffled = [os.path.basename(p.decode()) for p in wf.data.Dataset.list_files(pattern, seed=4)
                .as_numpy_iterator()]
    assert sorted(shuffled) == sorted(names)
    with pytest.raises(errors.InvalidArgumentError, match="No files matched pattern"):
        wf.data.Dataset.list_files(str(tmp_path / "*.none"))


def test_file_cache_is_written_once_and_read_back(tmp_path):
    prefix = str(tmp_path / "cache")
    first = wf.data.Dataset.range(4).map(lambda x: x * 3).cache(prefix)
    assert list(first.as_numpy_iterator()) == [0, 3, 6, 9]
    assert [p for p in os.listdir(tmp_path) if ".tmp" in p] == []  # written to a temp file, then renamed
    # a new pipeline with the same cache file reads the cache, not its (different) input, as TensorFlow does
    second = wf.data.Dataset.range(100).cache(prefix)
    assert list(second.as_numpy_iterator()) == [0, 3, 6, 9]


# --- elements and specs ----------------------------------------------------------------------------------------
def test_nested_slices_and_their_spec():
    dataset = wf.data.Dataset.from_tensor_slices(({"img": np.zeros((5, 2, 2), np.float32)}, np.arange(5)))
    spec = dataset.element_spec
    assert spec[0]["img"] == wf.TensorSpec([2, 2], wf.float32) and spec[1] == wf.TensorSpec([], wf.int64)
    batched = dataset.batch(2, drop_remainder=True).element_spec
    assert batched[0]["img"].shape.as_list() == [2, 2, 2]
    assert dataset.batch(2).element_spec[1].shape.as_list() == [None]
    values = list(dataset.batch(2).as_numpy_iterator())
    assert [v[1].tolist() for v in values] == [[0, 1], [2, 3], [4]]


def test_padded_batch_pads_to_the_batch_maximum():
    dataset = wf.data.Dataset.from_generator(lambda: ([1] * n for n in (2, 1, 3)), wf.int32, [None])
    got = [b.tolist() for b in dataset.padded_batch(3, padding_values=-1).as_numpy_iterator()]
    assert got == [[[1, 1, -1], [1, -1, -1], [1, 1, 1]]]


def test_interleave_order_by_hand():
    """cycle_length 2, block_length 2 over inputs 1, 2, 3: two elements from each open dataset in turn; one that
    ends mid-block hands over to the next slot, and an empty slot takes the next input when its turn comes."""
    dataset = wf.data.Dataset.range(1, 4).interleave(lambda x: wf.data.Dataset.range(10 * x, 10 * x + 3),
                                                     cycle_length=2, block_length=2)
    assert list(dataset.as_numpy_iterator()) == [10, 11, 20, 21, 12, 22, 30, 31, 32]


def test_enumerate_zip_and_reduce():
    letters = wf.data.Dataset.from_tensor_slices([b"a", b"b"])
    assert list(letters.enumerate().as_numpy_iterator()) == [(0, b"a"), (1, b"b")]
    total = wf.data.Dataset.range(1, 5).reduce(np.int64(1), lambda product, x: product * x)
    assert int(total) == 24


def test_cardinality_constants():
    base = wf.data.Dataset.range(10)
    assert int(base.repeat().cardinality()) == wf.data.INFINITE_CARDINALITY == -1
    assert int(base.filter(lambda x: x > 1).cardinality()) == wf.data.UNKNOWN_CARDINALITY == -2
    assert int(base.repeat().take(3).cardinality()) == 3
    assert wf.data.experimental.AUTOTUNE == wf.data.AUTOTUNE == -1


# --- errors -----------------------------------------------------------------------------------------------------
def test_map_returning_an_unconvertible_component_names_it():
    with pytest.raises(TypeError, match=r"\['b'\]"):
        wf.data.Dataset.range(3).map(lambda x: {"a": x, "b": object()})


def test_filter_must_return_a_scalar_bool():
    with pytest.raises(ValueError, match="must return a `tf.bool` scalar"):
        wf.data.Dataset.range(3).filter(lambda x: x * 2)


def test_generator_exception_surfaces_with_its_position():
    def numbers():
        yield 1
        yield 2
        raise RuntimeError("disk on fire")

    iterator = iter(wf.data.Dataset.from_generator(numbers, wf.int32))
    assert [int(next(iterator)), int(next(iterator))] == [1, 2]
    with pytest.raises(errors.UnknownError, match="(?s)RuntimeError: disk on fire.*element 2") as caught:
        next(iterator)
    assert isinstance(caught.value.__cause__, RuntimeError)


def test_end_of_sequence_eagerly_and_in_a_graph():
    iterator = iter(wf.data.Dataset.range(1))
    next(iterator)
    with pytest.raises(StopIteration):
        next(iterator)
    with pytest.raises(errors.OutOfRangeError, match=r"End of sequence \[Op:IteratorGetNext\]"):
        iterator.get_next()

    def build():
        return tf1.data.make_one_shot_iterator(tf1.data.Dataset.range(1)).get_next(name="next_element")

    with pytest.raises(errors.OutOfRangeError, match="End of sequence") as caught:
        graph_values(build, runs=2)
    assert "next_element" in str(caught.value)


def test_get_next_before_initializer_fails_precondition():
    def build():
        return tf1.data.make_initializable_iterator(tf1.data.Dataset.range(3)).get_next()

    with pytest.raises(errors.FailedPreconditionError, match="not been initialized"):
        graph_values(build)


def test_from_structure_refuses_an_incompatible_dataset():
    graph = wf.Graph()
    with graph.as_default():
        iterator = tf1.data.Iterator.from_structure(wf.float32, wf.TensorShape([2]))
        with pytest.raises(TypeError, match="output types"):
            iterator.make_initializer(tf1.data.Dataset.range(3))
        with pytest.raises(TypeError, match="output shapes"):
            iterator.make_initializer(tf1.data.Dataset.from_tensor_slices(np.zeros((2, 3), np.float32)))
        with pytest.raises(ValueError, match="does not have an initializer"):
            iterator.initializer  # noqa: B018


# --- graphs --------------------------------------------------------------------------------------------------
def test_dataset_ops_and_the_traced_map_function_are_in_the_graph():
    graph = wf.Graph()
    with graph.as_default():
        scale = tf1.placeholder(wf.float32, [], name="scale")
        dataset = tf1.data.Dataset.range(3).map(lambda x: wf.cast(x, wf.float32) * scale).batch(2)
        iterator = dataset.make_initializable_iterator()
        element = iterator.get_next()
    types = [op.type for op in graph.get_operations()]
    for op_type in ("RangeDataset", "MapDataset", "BatchDatasetV2", "IteratorV2", "MakeIterator", "IteratorGetNext"):
        assert op_type in types
    map_op = graph.get_operation_by_name("MapDataset")
    assert "Mul" in [op.type for op in map_op.get_attr("f").get_operations()]
    assert scale in list(map_op.inputs)  # the captured placeholder is an input of the op
    with tf1.Session(graph=graph) as session:
        session.run(iterator.initializer, {scale: 0.5})
        assert session.run(element).tolist() == [0.0, 0.5]


def test_batch_size_fed_at_initializer_time():
    """The classic TF1 pattern: one iterator, re-initialized with a new batch size through a placeholder."""
    graph = wf.Graph()
    with graph.as_default():
        size = tf1.placeholder(wf.int64, [])
        iterator = tf1.data.Dataset.range(6).batch(size).make_initializable_iterator()
        element = iterator.get_next()
        with tf1.Session(graph=graph) as session:
            session.run(iterator.initializer, {size: 4})
            assert session.run(element).tolist() == [0, 1, 2, 3]
            session.run(iterator.initializer, {size: 5})
            assert session.run(element).tolist() == [0, 1, 2, 3, 4]


# --- prefetch threads --------------------------------------------------------------------------------------------
def _prefetch_threads() -> list:
    return [t for t in threading.enumerate() if t.name == "webflow-prefetch" and t.is_alive()]


def _wait_until_no_prefetch_threads() -> bool:
    for _ in range(100):
        gc.collect()
        if not _prefetch_threads():
            return True
        time.sleep(0.02)
    return False


def test_prefetch_runs_ahead_in_a_thread_that_stops_with_its_iterator():
    assert _wait_until_no_prefetch_threads()
    produced = []

    def slow_numbers():
        for i in range(1000):
            produced.append(i)
            yield i

    iterator = iter(wf.data.Dataset.from_generator(slow_numbers, wf.int64).prefetch(5))
    assert int(next(iterator)) == 0
    for _ in range(100):
        if len(produced) >= 5:
            break
        time.sleep(0.01)
    assert len(produced) >= 5  # computed ahead of the consumer
    assert len(_prefetch_threads()) == 1
    del iterator
    assert _wait_until_no_prefetch_threads()


def test_prefetch_thread_stops_when_the_session_closes():
    assert _wait_until_no_prefetch_threads()
    graph = wf.Graph()
    with graph.as_default():
        element = tf1.data.Dataset.range(10**6).prefetch(3).make_one_shot_iterator().get_next()
        session = tf1.Session(graph=graph)
        assert session.run(element) == 0
        assert len(_prefetch_threads()) == 1
        session.close()
    assert _wait_until_no_prefetch_threads()


def test_prefetch_passes_errors_on():
    def failing():
        yield 1
        raise ValueError("bad item")

    iterator = iter(wf.data.Dataset.from_generator(failing, wf.int32).prefetch(2))
    assert int(next(iterator)) == 1
    with pytest.raises(errors.InvalidArgumentError, match="bad item"):
        next(iterator)
