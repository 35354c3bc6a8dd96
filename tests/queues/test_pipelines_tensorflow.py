"""TF1 queue pipelines against real TensorFlow 2.21: the book-style TFRecord pipeline (string_input_producer ->
TFRecordReader -> parse_single_example -> shuffle_batch, with Coordinator and start_queue_runners), batch,
batch_join, dynamic_pad, slice_input_producer, match_filenames_once, and the graph these functions build.

Which orders are TensorFlow's: with one enqueue thread per FIFO queue (batch, slice_input_producer with
shuffle=False, dynamic_pad), the batches are TF-exact. Where several threads enqueue, or a RandomShuffleQueue is
fed by a thread racing the consumer (shuffle_batch), only the multiset of elements, the batch sizes and the
counts (records read, epochs) are compared: TensorFlow's own order varies from run to run there.
"""

from __future__ import annotations

import pytest
from queue_oracle import SKIP_REASON, TF_PYTHON, assert_as_tensorflow, run_on_both

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

RUN = '''
def run_to_end(fetch, init_local=True):
    batches = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if init_local:
            sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while not coord.should_stop():
                batches.append(sess.run(fetch))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
        extra = sess.run(tf.local_variables()) if init_local else None
    return batches, extra
'''

PROGRAMS = {
    "book_pipeline": '''
import os
files = []
for f in range(3):
    files.append(os.path.join(DIR, "part-%d.tfrecord" % f))
    with tf.python_io.TFRecordWriter(files[-1]) as writer:
        for i in range(7):
            example = tf.train.Example(features=tf.train.Features(feature={
                "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[100 * f + i])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"r%d-%d" % (f, i)]))}))
            writer.write(example.SerializeToString())
filename_queue = tf.train.string_input_producer(files, num_epochs=2, shuffle=True, seed=5)
reader = tf.TFRecordReader()
key, serialized = reader.read(filename_queue)
parsed = tf.parse_single_example(serialized, {"x": tf.FixedLenFeature([], tf.int64),
                                              "name": tf.FixedLenFeature([], tf.string)})
xs, names = tf.train.shuffle_batch([parsed["x"], parsed["name"]], batch_size=4, capacity=30, min_after_dequeue=10,
                                   num_threads=2, seed=7, allow_smaller_final_batch=True)
batches, local = run_to_end([xs, names])
result = {"x": sorted(int(v) for b in batches for v in b[0]),
          "names": sorted(v.decode() for b in batches for v in b[1]),
          "sizes": sorted(len(b[0]) for b in batches), "epochs": [int(v) for v in local],
          "pairs": all(n.decode() == "r%d-%d" % (x // 100, x % 100) for b in batches for x, n in zip(*b)),
          "shapes": [str(xs.shape), str(names.shape), str(key.shape)]}
''',
    "batch_in_order": '''
index = tf.train.range_input_producer(10, num_epochs=1, shuffle=False).dequeue()
batch = tf.train.batch([index, index * 10], batch_size=3, allow_smaller_final_batch=True)
batches, _ = run_to_end(batch)
result = {"batches": batches, "shapes": [str(t.shape) for t in batch]}
''',
    "slice_input_producer": '''
values = [[1., 2.], [3., 4.], [5., 6.], [7., 8.]]
labels = ["a", "b", "c", "d"]
x, label = tf.train.slice_input_producer([values, labels], num_epochs=2, shuffle=False)
batches, _ = run_to_end(tf.train.batch({"x": x, "label": label}, batch_size=3))
result = [[b["x"], [v.decode() for v in b["label"]]] for b in batches]
''',
    "batch_join_and_shuffle_join": '''
a = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
b = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue() + 100
joined = tf.train.batch_join([[a], [b]], batch_size=4, allow_smaller_final_batch=True)
batches, _ = run_to_end(joined)
c = tf.train.range_input_producer(6, num_epochs=1, shuffle=True, seed=2).dequeue()
shuffled = tf.train.shuffle_batch_join([[c], [c + 50]], batch_size=3, capacity=10, min_after_dequeue=2, seed=4,
                                       allow_smaller_final_batch=True)
more, _ = run_to_end(shuffled)
result = {"joined": sorted(int(v) for x in batches for v in x), "sizes": sorted(len(x) for x in batches),
          "shuffled": sorted(int(v) % 50 for x in more for v in x)}  # which thread took which index: a race
''',
    "dynamic_pad_and_enqueue_many": '''
length = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
sequence = tf.range(length)
padded = tf.train.batch([sequence], batch_size=2, dynamic_pad=True, allow_smaller_final_batch=True)
batches, _ = run_to_end(padded)
with tf.Graph().as_default():  # a new graph: the runners above need their local variables
    many = tf.train.batch([tf.constant([[1, 2], [3, 4], [5, 6]])], batch_size=2, enqueue_many=True)
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        firsts = [sess.run(many) for _ in range(3)]
        coord.request_stop()
        coord.join(threads)
result = {"padded": batches, "shape": str(padded.shape), "many": firsts, "many_shape": str(many.shape)}
''',
    "maybe_batch_keep_input": '''
index = tf.train.range_input_producer(9, num_epochs=1, shuffle=False).dequeue()
evens = tf.train.maybe_batch([index], tf.equal(index % 2, 0), batch_size=2, allow_smaller_final_batch=True)
kept, _ = run_to_end(evens)
tf.reset_default_graph()
rows = tf.train.range_input_producer(3, num_epochs=1, shuffle=False).dequeue()
pairs = tf.stack([rows * 2, rows * 2 + 1])
odd_rows = tf.train.maybe_batch([pairs], tf.equal(pairs % 3, 0), batch_size=2, enqueue_many=True,
                                allow_smaller_final_batch=True)
masked, _ = run_to_end(odd_rows)
tf.reset_default_graph()
value = tf.train.range_input_producer(6, num_epochs=1, shuffle=True, seed=3).dequeue()
shuffled = tf.train.maybe_shuffle_batch([value], 2, 10, 2, tf.less(value, 4), seed=5,
                                        allow_smaller_final_batch=True)
some, _ = run_to_end(shuffled)
errors = []
for keep, many in ((tf.constant([True, False]), False), (tf.constant([[True]]), True)):
    try:
        tf.train.maybe_batch([tf.constant([1, 2])], keep, 2, enqueue_many=many)
    except ValueError as error:
        errors.append(str(error))
result = {"kept": kept, "masked": masked, "some": sorted(int(v) for b in some for v in b), "errors": errors}
''',
    "match_filenames_once": '''
import os
for name in ("b.csv", "a.csv", "c.txt"):
    open(os.path.join(DIR, name), "w").close()
matched = tf.train.match_filenames_once(os.path.join(DIR, "*.csv"))
with tf.Session() as sess:
    sess.run(tf.local_variables_initializer())
    names = sess.run(matched)
result = {"files": [os.path.basename(n.decode()) for n in names], "name": matched.op.name if hasattr(matched, "op")
          else None, "local": [v.op.name for v in tf.local_variables()]}
''',
    "graph_built": '''
files = tf.train.string_input_producer(["a", "b"], num_epochs=3, capacity=16)
key, value = tf.TextLineReader(skip_header_lines=1).read(files)
batch = tf.train.shuffle_batch([value], batch_size=8, capacity=50, min_after_dequeue=20, num_threads=3)
kinds = ("FIFOQueueV2", "RandomShuffleQueueV2", "QueueEnqueueManyV2", "QueueEnqueueV2", "QueueDequeueManyV2",
         "QueueCloseV2", "TextLineReaderV2", "ReaderReadV2", "VariableV2", "CountUpTo", "RandomShuffle",
         "ScalarSummary", "QueueSizeV2")
graph = tf.get_default_graph()
runners = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
result = {"ops": sorted([op.type, op.name] for op in graph.get_operations() if op.type in kinds),
          "runners": [[r.name, [op.name for op in r.enqueue_ops], r.close_op.name, r.cancel_op.name] for r in runners],
          "summaries": sorted(t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)),
          "batch": [batch.name, str(batch.shape)], "local": [v.op.name for v in tf.local_variables()]}
''',
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> tuple:
    directory = str(tmp_path_factory.mktemp("pipelines"))
    programs = {key: (RUN + source, directory) for key, source in PROGRAMS.items()}
    return run_on_both(programs)


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_pipeline_matches_tensorflow(key: str, results: tuple) -> None:
    assert_as_tensorflow(results, key)


def test_book_pipeline_reads_every_record_twice(results: tuple) -> None:
    """Independent of TensorFlow: 3 files x 7 records x 2 epochs, in batches of 4 then one of 2."""
    got = results[1]["book_pipeline"]
    assert got["x"] == sorted([100 * f + i for f in range(3) for i in range(7)] * 2)
    assert got["sizes"] == [2] + [4] * 10 and got["epochs"] == [2] and got["pairs"] is True
