"""Ctrl-C (KeyboardInterrupt) in the middle of work (issue 29): raised by a py_func inside a run, sent by a timer
thread (`_thread.interrupt_main`, what a notebook's interrupt button does) or by SIGALRM during a long
while_loop, during in-place optimizer updates split over threads, during Keras `fit` on a prefetching dataset
and during a TF1 queue-runner / tf.data pipeline. Afterwards: the session (or model) runs again with the right
values, every variable holds either its value before or after its update (never half-written: multi-element
variables are checked element by element) and no thread is left running. Oracles: values known in advance,
NumPy, and an uninterrupted replay of the same training."""

from __future__ import annotations

import _thread
import gc
import signal
import sys
import threading
import time

import numpy as np
import pytest

import webflow as wf
import webflow.compat.v1 as tf
from webflow.backends.c import parallel


def _alive() -> set:
    return {thread for thread in threading.enumerate() if thread.is_alive()}


def _settled(before: set, seconds: float = 5.0) -> set:
    """Threads alive now that were not before, after giving stopping threads `seconds` to end."""
    deadline = time.monotonic() + seconds
    while _alive() - before and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.02)
    return _alive() - before


def _interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, _thread.interrupt_main)
    timer.start()
    return timer


def _uniform(values: np.ndarray) -> float:
    """The one value every element holds (a half-written update would leave two)."""
    assert values.min() == values.max(), f"half-written: values from {values.min()} to {values.max()}"
    return float(values.flat[0])


# --- Session.run ----------------------------------------------------------------------------------------
def test_ctrl_c_raised_by_a_py_func_between_two_updates(graph_mode):
    v = tf.Variable(np.zeros(1000, np.float32))
    raising = [True]

    def maybe_interrupt(x):
        if raising[0]:
            raise KeyboardInterrupt
        return x

    first = tf.assign(v, tf.fill([1000], 1.0))
    with tf.control_dependencies([first]):
        checkpoint = tf.py_func(maybe_interrupt, [tf.constant(0.0)], tf.float32)
    with tf.control_dependencies([checkpoint]):
        second = tf.assign_add(v, tf.fill([1000], 2.0))
    product = tf.matmul(tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [4.0]]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(KeyboardInterrupt):  # not wrapped into an OpError: Ctrl-C stays Ctrl-C
            sess.run(second)
        assert _uniform(sess.run(v)) == 1.0  # the first update whole, the second not begun
        assert sess.run(product).tolist() == [[11.0]]  # the session still runs
        raising[0] = False
        sess.run(second)
        assert _uniform(sess.run(v)) == 3.0


def _counting_loop():
    """while i < n: v += 1 (all 20,000 elements), i += 1. Returns (v, n, loop result)."""
    v = tf.Variable(np.zeros(20_000, np.float32))
    n = tf.placeholder(tf.int32, [])

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, tf.ones([20_000]))]):
            return i + 1

    return v, n, tf.while_loop(lambda i: i < n, body, [tf.constant(0)])


def _check_loop_after_interrupt(sess, v, n, loop, started: float) -> None:
    waited = time.monotonic() - started
    assert waited < 10, f"the interrupt took {waited:.1f} s to stop the run"
    done = _uniform(sess.run(v))
    assert done > 0 and done == int(done)  # some iterations ran, each one whole
    assert sess.run(loop, {n: 3}) == 3  # the same loop runs again, from the start
    assert _uniform(sess.run(v)) == done + 3


def test_ctrl_c_from_a_timer_thread_stops_a_long_while_loop(graph_mode):
    before = _alive()
    v, n, loop = _counting_loop()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        started = time.monotonic()
        timer = _interrupt_after(0.3)
        with pytest.raises(KeyboardInterrupt):
            sess.run(loop, {n: 10**9})
        timer.join()
        _check_loop_after_interrupt(sess, v, n, loop, started)
    assert not _settled(before)


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="no setitimer on this platform")
def test_sigalrm_raising_keyboard_interrupt_stops_a_long_while_loop(graph_mode):
    v, n, loop = _counting_loop()
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    try:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            started = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            with pytest.raises(KeyboardInterrupt):
                sess.run(loop, {n: 10**9})
            _check_loop_after_interrupt(sess, v, n, loop, started)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- in-place updates split over threads ---------------------------------------------------------------
@pytest.fixture
def two_intra_op_threads():
    before = parallel.threads()
    parallel.set_threads(2)
    yield
    parallel.set_threads(before)


def test_ctrl_c_waits_until_every_slice_of_a_split_kernel_has_run(two_intra_op_threads):
    # the slice this thread holds when Ctrl-C arrives must still run: an in-place update would otherwise keep
    # that slice of the variable at its old value
    done, sent = [], []

    def run(start: int, stop: int) -> None:
        time.sleep(0.002)  # each thread gets slices
        if threading.current_thread() is threading.main_thread() and not sent:
            sent.append(_thread.interrupt_main())
            sum(range(20_000))  # Python work: where a KeyboardInterrupt would be raised at once
        done.append((start, stop))

    with pytest.raises(KeyboardInterrupt):
        parallel.split(64, run)
    assert sorted(done)[0][0] == 0 and sum(stop - start for start, stop in done) == 64


def test_ctrl_c_during_in_place_optimizer_updates_never_half_writes(graph_mode, two_intra_op_threads):
    # 2^20 floats: GradientDescent's C update runs in place, split over the two threads
    w = tf.Variable(np.zeros(1 << 20, np.float32))
    train = tf.train.GradientDescentOptimizer(2.0 ** -6).minimize(tf.reduce_sum(w))
    rng = np.random.default_rng(5)
    interrupted = 0
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(15):
            try:
                timer = _interrupt_after(rng.uniform(0.002, 0.03))
                for _ in range(40):
                    sess.run(train)
                timer.join()
            except KeyboardInterrupt:
                interrupted += 1
            timer.join()
            _uniform(sess.run(w))
        steps = -_uniform(sess.run(w)) * 2 ** 6
        assert steps == int(steps) and steps > 0
    assert interrupted >= 10


# --- Keras fit on a prefetching dataset --------------------------------------------------------------
def _model(weights=None):
    wf.keras.utils.set_random_seed(1)
    model = wf.keras.Sequential([wf.keras.layers.Dense(16, activation="relu"), wf.keras.layers.Dense(1)])
    model.compile(optimizer=wf.keras.optimizers.Adam(0.01), loss="mse")
    model.build((None, 8))
    if weights is not None:
        model.set_weights(weights)
    return model


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 8)).astype(np.float32)
    return x, (x.sum(1, keepdims=True) > 0).astype(np.float32)


def _dataset():
    return wf.data.Dataset.from_tensor_slices(_data()).batch(32).repeat().prefetch(2)


class _Recorder(wf.keras.callbacks.Callback):
    """Copies the weights after each batch; from batch 5 on, a timer sends Ctrl-C a moment later."""

    def __init__(self):
        super().__init__()
        self.snapshots: list = []

    def on_train_batch_end(self, batch, logs=None):
        self.snapshots.append([w.copy() for w in self.model.get_weights()])
        if len(self.snapshots) == 5:
            _interrupt_after(0.02)


def test_ctrl_c_during_keras_fit_leaves_whole_weights_and_no_prefetch_thread():
    before = _alive()
    initial = _model().get_weights()
    model, recorder = _model(initial), _Recorder()
    with pytest.raises(KeyboardInterrupt) as caught:
        model.fit(_dataset(), steps_per_epoch=16, epochs=1000, verbose=0, callbacks=[recorder])
    # the traceback (a notebook keeps it in sys.last_traceback) still holds fit's frames: no thread may wait on it
    assert not _settled(before), _settled(before)
    completed = len(recorder.snapshots)
    assert completed >= 5
    # the oracle: the same training without interruption, to `completed` and to `completed + 1` batches
    replay = _model(initial)
    replay.fit(_dataset(), steps_per_epoch=completed, epochs=1, verbose=0)
    after_completed = replay.get_weights()
    replay.fit(_dataset(), steps_per_epoch=1, epochs=1, verbose=0)  # a new dataset: batch 0 again, not batch k
    for index, weight in enumerate(model.get_weights()):
        np.testing.assert_array_equal(after_completed[index], recorder.snapshots[-1][index])
        same_as_completed = np.array_equal(weight, after_completed[index])
        assert same_as_completed or _is_next_step(weight, initial, completed, index), f"weight {index} half-updated"
    del caught
    # the model still trains and predicts
    x, y = _data()
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    kernel1, bias1, kernel2, bias2 = model.get_weights()
    expected = np.maximum(x @ kernel1 + bias1, 0) @ kernel2 + bias2
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-4, atol=1e-5)
    assert not _settled(before)


def _is_next_step(weight: np.ndarray, initial: list, completed: int, index: int) -> bool:
    """Whether `weight` equals weight `index` after `completed + 1` uninterrupted batches."""
    replay = _model(initial)
    replay.fit(_dataset(), steps_per_epoch=completed + 1, epochs=1, verbose=0)
    return np.array_equal(weight, replay.get_weights()[index])


# --- TF1 input pipelines --------------------------------------------------------------------------------
def test_ctrl_c_in_a_queue_runner_training_loop(graph_mode):
    before = _alive()
    index = tf.train.range_input_producer(1000, shuffle=False).dequeue()
    batch = tf.train.batch([tf.cast(index, tf.float32)], batch_size=4, capacity=16, num_threads=2)
    total = tf.Variable(np.zeros(5000, np.float32))
    step = tf.assign_add(total, tf.fill([5000], tf.reduce_sum(batch)))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    coord = tf.train.Coordinator()
    runners = tf.train.start_queue_runners(sess, coord)
    timer = _interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        while True:
            sess.run(step)
    timer.join()
    value = _uniform(sess.run(total))
    assert value > 0
    assert sess.run(tf.constant(2.0) * 3.0) == 6.0
    coord.request_stop()
    sess.close()
    coord.join(runners, stop_grace_period_secs=5)
    assert not _settled(before), _settled(before)


def test_ctrl_c_while_a_prefetching_iterator_feeds_the_run(graph_mode):
    before = _alive()

    def slow(x):
        time.sleep(0.01)
        return x

    dataset = tf.data.Dataset.range(10**6).map(lambda i: tf.py_func(slow, [i], tf.int64)).prefetch(3)
    iterator = tf.data.make_initializable_iterator(dataset)
    element = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        assert sess.run(element) == 0
        timer = _interrupt_after(0.2)
        with pytest.raises(KeyboardInterrupt):
            while True:
                sess.run(element)
        timer.join()
        assert not _settled(before), _settled(before)  # the prefetch thread stopped with the interrupted run
        sess.run(iterator.initializer)  # the pipeline starts again from its first element
        assert [int(sess.run(element)) for _ in range(3)] == [0, 1, 2]
    assert not _settled(before)


if sys.platform == "emscripten":  # pragma: no cover - no threads nor signals in Pyodide
    pytest.skip("threads and signals", allow_module_level=True)
