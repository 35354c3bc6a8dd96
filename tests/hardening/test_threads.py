"""Threads around one graph (issue 29): `Session.run` from 4 threads at once answers each thread right;
`assign_add` and `use_locking=True` optimizer updates from 4 threads lose no update; the input threads
(tf.data prefetch, TF1 queue runners) end when the session closes (`threading.enumerate()` before/after).
Oracles: NumPy and counts known in advance (4 threads x N increments)."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf

THREADS = 4


@pytest.fixture
def eager_thread_switches():
    """Switch threads every microsecond: a read-modify-write that is not one step then loses updates in
    almost every run (with the default 5 ms it would lose only a few, and only sometimes)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def _in_threads(work, count: int = THREADS) -> None:
    """Runs work(index) in `count` threads started together; re-raises the first failure here."""
    failures: list = []
    start = threading.Barrier(count)

    def run(index: int) -> None:
        try:
            start.wait()
            work(index)
        except BaseException as error:  # noqa: BLE001 - reported in the main thread
            failures.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not any(thread.is_alive() for thread in threads), "a worker thread hangs"
    if failures:
        raise failures[0]


def _alive() -> set:
    return {thread for thread in threading.enumerate() if thread.is_alive()}


def _settled(before: set, seconds: float = 5.0) -> set:
    """The threads alive now that were not before, after giving stopping threads `seconds` to end."""
    deadline = time.monotonic() + seconds
    while _alive() - before and time.monotonic() < deadline:
        time.sleep(0.02)
    return _alive() - before


# --- Session.run from several threads ---------------------------------------------------------------------
def test_four_threads_share_one_graph_and_each_gets_its_own_answer(graph_mode):
    x = tf.placeholder(tf.float32, [None, 4])
    n = tf.placeholder(tf.int32, [])
    w = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    probabilities = tf.nn.softmax(tf.matmul(x, w))
    total = tf.reduce_sum(tf.square(x))
    # a while_loop: the executor's frames must be per run, not per graph
    triangle = tf.while_loop(lambda i, s: i <= n, lambda i, s: (i + 1, s + i), [tf.constant(1), tf.constant(0)])[1]
    weights = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    checked = [0] * THREADS
    with tf.Session() as sess:
        def work(index: int) -> None:
            rng = np.random.default_rng(index)
            for step in range(150):
                batch = rng.normal(size=(index + 1, 4)).astype(np.float32)
                got_p, got_total, got_triangle = sess.run([probabilities, total, triangle], {x: batch, n: step})
                logits = batch @ weights
                expected = np.exp(logits - logits.max(1, keepdims=True))
                np.testing.assert_allclose(got_p, expected / expected.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
                np.testing.assert_allclose(got_total, np.square(batch).sum(), rtol=1e-5)
                assert got_triangle == step * (step + 1) // 2
                checked[index] += 1

        _in_threads(work)
    assert checked == [150] * THREADS


# --- no lost update ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("use_locking", [True, False])
def test_assign_add_from_four_threads_loses_no_increment(graph_mode, eager_thread_switches, use_locking):
    # use_locking=False may lose updates in TensorFlow ("undefined"); webflow's assign ops always lock, so a
    # learner's counter is right either way
    steps = 10_000
    counter = tf.Variable(0, dtype=tf.int64)
    vector = tf.Variable(np.zeros(1000, np.float32))
    bump = tf.assign_add(counter, 1, use_locking=use_locking)
    bump_vector = tf.assign_add(vector, np.ones(1000, np.float32), use_locking=use_locking)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _in_threads(lambda index: [sess.run(bump) for _ in range(steps)])
        _in_threads(lambda index: [sess.run(bump_vector) for _ in range(steps // 10)])
        assert sess.run(counter) == THREADS * steps
        np.testing.assert_array_equal(sess.run(vector), np.full(1000, THREADS * steps // 10, np.float32))


def test_eager_resource_variable_assign_add_from_four_threads(eager_thread_switches):
    steps = 2_000
    counter = wf.Variable(0, dtype=wf.int64)
    _in_threads(lambda index: [counter.assign_add(1) for _ in range(steps)])
    assert int(counter.numpy()) == THREADS * steps


def test_optimizer_with_use_locking_applies_every_threads_step(graph_mode, eager_thread_switches):
    # loss = sum(w * c): the gradient is c whatever w is, so each step subtracts exactly lr * c (powers of
    # two: exact in float32) and the end value counts the steps that were applied
    steps, rate = 500, 2.0 ** -10
    c = np.array([1.0, 2.0, 4.0, 0.5], np.float32)
    w = tf.Variable(np.zeros(4, np.float32))
    train = tf.train.GradientDescentOptimizer(rate, use_locking=True).minimize(tf.reduce_sum(w * c))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        _in_threads(lambda index: [sess.run(train) for _ in range(steps)])
        np.testing.assert_array_equal(sess.run(w), -THREADS * steps * rate * c)


# --- input threads end with the session -------------------------------------------------------------------
def test_prefetch_and_queue_runner_threads_end_when_the_session_closes(graph_mode):
    before = _alive()
    dataset = tf.data.Dataset.range(10**6).map(lambda i: i * 2).prefetch(4)
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    index = tf.train.range_input_producer(10, shuffle=False).dequeue()
    batch = tf.train.batch([index], batch_size=5, capacity=20, num_threads=2)
    sess = tf.Session()
    runners = tf.train.start_queue_runners(sess)  # no coordinator, as in many notebooks
    assert [int(sess.run(element)) for _ in range(5)] == [0, 2, 4, 6, 8]
    assert sorted(sess.run(batch).tolist()) == [0, 1, 2, 3, 4]
    started = _alive() - before
    assert len(started) >= 3, started  # the prefetch thread and the runners really ran
    sess.close()
    for thread in runners:
        thread.join(5)
    assert not _settled(before), _settled(before)


def test_eager_prefetch_thread_ends_with_its_iterator():
    before = _alive()
    iterator = iter(wf.data.Dataset.range(10**6).prefetch(4))
    assert [int(next(iterator)) for _ in range(3)] == [0, 1, 2]
    assert _alive() - before
    del iterator
    import gc

    gc.collect()
    assert not _settled(before), _settled(before)
