"""Queue pipelines where Python has no threads (Pyodide), simulated by `queue_state.THREADS_AVAILABLE = False`.

The decision (ops/queue_state.py, train/queue_runner.py): `start_queue_runners` starts no thread; each runner's
enqueue op becomes a step that a dequeue which would wait runs in its own thread, so TF1 programs run unchanged.
A dequeue that nothing can feed raises FailedPreconditionError at once (naming tf.data) instead of hanging.
"""

from __future__ import annotations

import threading

import pytest

import webflow.compat.v1 as tf
from webflow.ops import queue_state


@pytest.fixture
def no_threads(monkeypatch):
    monkeypatch.setattr(queue_state, "THREADS_AVAILABLE", False)
    started = []
    monkeypatch.setattr(threading.Thread, "start", lambda self: started.append(self.name))
    tf.disable_v2_behavior()
    tf.reset_default_graph()
    yield started
    tf.enable_v2_behavior()


def _lines(tmp_path) -> list:
    paths = []
    for f in range(3):
        path = tmp_path / f"part{f}.csv"
        path.write_text("header\n" + "".join(f"{f},{i}\n" for i in range(5)))
        paths.append(str(path))
    return paths


def test_book_pipeline_runs_cooperatively(no_threads, tmp_path):
    files = tf.train.string_input_producer(_lines(tmp_path), num_epochs=2, shuffle=True, seed=3)
    key, line = tf.TextLineReader(skip_header_lines=1).read(files)
    batch = tf.train.shuffle_batch([line], batch_size=4, capacity=12, min_after_dequeue=4, num_threads=2, seed=1,
                                   allow_smaller_final_batch=True)
    seen, sizes = [], []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert threads == []
        try:
            while not coord.should_stop():
                got = sess.run(batch)
                sizes.append(len(got))
                seen.extend(v.decode() for v in got)
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    assert no_threads == []  # no thread was started
    assert sorted(seen) == sorted([f"{f},{i}" for f in range(3) for i in range(5)] * 2)
    assert sorted(sizes) == [2] + [4] * 7


def test_batch_order_without_threads_is_fifo(no_threads):
    index = tf.train.range_input_producer(5, num_epochs=1, shuffle=False).dequeue()
    batch = tf.train.batch([index], batch_size=2, allow_smaller_final_batch=True)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        tf.train.start_queue_runners(sess)
        got = [sess.run(batch).tolist() for _ in range(3)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(batch)
    assert got == [[0, 1], [2, 3], [4]]


def test_waiting_with_nothing_to_feed_raises_instead_of_hanging(no_threads):
    queue = tf.FIFOQueue(1, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="no threads.*tf.data"):
            sess.run(queue.dequeue())
        sess.run(queue.enqueue(1))
        with pytest.raises(tf.errors.FailedPreconditionError, match="is full and this Python has no threads"):
            sess.run(queue.enqueue(2))


def test_a_failing_runner_reaches_the_coordinator(no_threads):
    x = tf.placeholder_with_default(tf.constant([1.0, 2.0]), [None])
    checked = tf.train.batch([tf.reshape(x, [2])], batch_size=1)  # fine
    bad = tf.train.batch([tf.reshape(tf.range(3), [3])[tf.constant(5) % 4 + 2]], batch_size=1)  # index 3: error
    with tf.Session() as sess:
        coord = tf.train.Coordinator()
        tf.train.start_queue_runners(sess, coord)
        assert sess.run(checked).tolist() == [[1.0, 2.0]]
        with pytest.raises(tf.errors.InvalidArgumentError) as raised:  # the runner's own error, naming its node
            sess.run(bad)
        assert raised.value.message.count("[[{{node") == 1
        with pytest.raises(tf.errors.InvalidArgumentError):
            coord.join()
        with pytest.raises(tf.errors.FailedPreconditionError, match="its queue runners have finished"):
            sess.run(bad)
