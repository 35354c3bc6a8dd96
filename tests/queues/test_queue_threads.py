"""Threads around one graph: Coordinator semantics, Session.run from several threads at once, blocking queue ops
(woken by another thread, timed out, cancelled by Session.close), and that no thread outlives coord.join /
sess.close. Oracles: values computed here by hand or with NumPy."""

from __future__ import annotations

import _thread
import threading
import time

import numpy as np
import pytest

import webflow.compat.v1 as tf


def _live_threads() -> set:
    return {t for t in threading.enumerate() if t.is_alive()}


# --- Coordinator ------------------------------------------------------------------------------------------------
def test_join_reraises_a_thread_exception_in_the_main_thread():
    coord = tf.train.Coordinator()

    def worker(fail: bool) -> None:
        with coord.stop_on_exception():
            if fail:
                raise ZeroDivisionError("thread 2 failed")
            while not coord.should_stop():
                time.sleep(0.01)

    threads = [threading.Thread(target=worker, args=(i == 2,)) for i in range(4)]
    for thread in threads:
        thread.start()
    with pytest.raises(ZeroDivisionError, match="thread 2 failed"):
        coord.join(threads, stop_grace_period_secs=5)
    assert coord.should_stop() and coord.joined
    assert not any(t.is_alive() for t in threads)


def test_out_of_range_is_a_clean_stop_and_request_stop_after_join_raises():
    coord = tf.train.Coordinator()
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "end of input"))
    coord.join([])  # nothing to re-raise
    with pytest.raises(ValueError, match="late"):
        coord.request_stop(ValueError("late"))
    coord.clear_stop()
    assert not coord.should_stop() and not coord.joined


def test_join_names_stragglers_after_the_grace_period():
    coord = tf.train.Coordinator()
    release = threading.Event()
    thread = threading.Thread(target=release.wait, name="slow-one")
    thread.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="Coordinator stopped with threads still running: slow-one"):
        coord.join([thread], stop_grace_period_secs=0.05)
    release.set()
    thread.join()


def test_looper_thread_runs_until_stop():
    coord = tf.train.Coordinator()
    calls = []
    looper = coord.loop(0.01, calls.append, args=(1,))
    time.sleep(0.1)
    coord.request_stop()
    coord.join([looper])
    assert len(calls) >= 2 and not looper.is_alive()


# --- Session.run from several threads ---------------------------------------------------------------------------
def test_four_threads_run_one_graph(graph_mode):
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))
    y = tf.nn.relu(tf.matmul(x, w) - 4.0)
    counter = tf.Variable(0, dtype=tf.int64)
    bump = tf.assign_add(counter, 1)
    noise = tf.random_uniform([5], seed=1)
    rng = np.random.default_rng(3)
    feeds = [rng.normal(size=(8, 3)).astype(np.float32) for _ in range(4)]
    outputs, draws, failures = {}, [], []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

        def worker(index: int) -> None:
            try:
                for _ in range(50):
                    outputs[index] = sess.run(y, {x: feeds[index]})
                    sess.run(bump)
                    draws.append(sess.run(noise).tobytes())
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(error)

        threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not failures, failures
        weights = np.arange(6, dtype=np.float32).reshape(3, 2)
        for index in range(4):
            np.testing.assert_allclose(outputs[index], np.maximum(feeds[index] @ weights - 4.0, 0), rtol=1e-6)
        assert sess.run(counter) == 200
    assert len(set(draws)) == 200  # every run drew fresh numbers: no two threads shared a Philox block


# --- blocking queue ops -------------------------------------------------------------------------------------------
def test_dequeue_waits_for_another_threads_enqueue(graph_mode):
    queue = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    value = tf.placeholder(tf.int32, [])
    enqueue, dequeue = queue.enqueue(value), queue.dequeue()
    with tf.Session() as sess:
        got = []
        consumer = threading.Thread(target=lambda: got.extend(sess.run(dequeue) for _ in range(5)))
        consumer.start()
        for i in range(5):  # capacity 2: the producer waits for the consumer too
            sess.run(enqueue, {value: i * i})
        consumer.join(5)
    assert got == [0, 1, 4, 9, 16]


def test_timeout_and_close_cancel_waiting_ops(graph_mode):
    queue = tf.FIFOQueue(1, tf.float32, shapes=[[]])
    dequeue = queue.dequeue()
    sess = tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=50))
    started = time.monotonic()
    with pytest.raises(tf.errors.DeadlineExceededError, match="Timed out waiting for notification"):
        sess.run(dequeue)
    assert time.monotonic() - started < 2
    sess.close()
    sess = tf.Session()
    with pytest.raises(tf.errors.DeadlineExceededError):  # RunOptions, for one run
        sess.run(dequeue, options=tf.RunOptions(timeout_in_ms=50))
    before = _live_threads()
    errors = []
    waiter = threading.Thread(target=lambda: errors.append(pytest.raises(tf.errors.CancelledError, sess.run,
                                                                         dequeue)))
    waiter.start()
    time.sleep(0.2)
    sess.close()
    waiter.join(5)
    assert "Dequeue operation was cancelled" in str(errors[0].value)
    assert _live_threads() <= before


def test_queue_runner_threads_end_with_the_pipeline(graph_mode):
    before = _live_threads()
    index = tf.train.range_input_producer(7, num_epochs=3, shuffle=False).dequeue()
    batch = tf.train.batch([index], batch_size=5, num_threads=3, allow_smaller_final_batch=True)
    seen = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert len(threads) == 1 + 1 + 3 + 1  # producer loop + its close_on_stop, 3 batch loops + close_on_stop
        with pytest.raises(tf.errors.OutOfRangeError):
            while True:
                seen.extend(sess.run(batch).tolist())
        coord.request_stop()
        coord.join(threads)
    assert sorted(seen) == sorted(list(range(7)) * 3)
    assert _live_threads() <= before


def test_closing_the_session_stops_runners_without_a_coordinator(graph_mode):
    before = _live_threads()
    index = tf.train.range_input_producer(4, shuffle=False).dequeue()  # forever
    batch = tf.train.batch([index], batch_size=2)
    sess = tf.Session()
    threads = tf.train.start_queue_runners(sess)
    assert sess.run(batch).tolist() == [0, 1]
    sess.close()  # the runners' waiting enqueues are cancelled
    for thread in threads:
        thread.join(5)
    assert _live_threads() <= before


def test_ctrl_c_during_a_run_stops_the_pipeline_threads(graph_mode):
    before = _live_threads()
    index = tf.train.range_input_producer(4, shuffle=False).dequeue()  # forever
    batch = tf.train.batch([index], batch_size=2, capacity=4, num_threads=2)
    never_filled = tf.FIFOQueue(1, tf.int32, shapes=[[]]).dequeue()
    with tf.Session() as sess:
        threads = tf.train.start_queue_runners(sess)  # no coordinator, as in many notebooks
        assert sess.run(batch).tolist() == [0, 1]
        timer = threading.Timer(0.3, _thread.interrupt_main)  # what Ctrl-C (or a notebook's interrupt) does
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            sess.run(never_filled)
        for thread in threads:
            thread.join(5)
        assert not any(thread.is_alive() for thread in threads)
    assert _live_threads() <= before


def test_closing_the_queue_a_reader_waits_on_gives_out_of_range(graph_mode):
    files = tf.FIFOQueue(4, tf.string, shapes=[[]])
    key, value = tf.WholeFileReader().read(files)
    outcome = []
    with tf.Session() as sess:
        reader = threading.Thread(target=lambda: outcome.append(pytest.raises(tf.errors.OutOfRangeError, sess.run,
                                                                              value)))
        reader.start()
        time.sleep(0.2)
        assert reader.is_alive()  # waiting for a file name
        sess.run(files.close())
        reader.join(5)
    message = outcome[0].value.message
    assert message.startswith("FIFOQueue '_") and "is closed and has insufficient elements (requested 1, current " \
                                                  "size 0)\n\t [[{{node ReaderReadV2}}]]" in message
