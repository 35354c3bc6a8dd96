"""Datasets inside a traced `wf.function` (reduce, iter().get_next(), get_single_element; a Python for loop is
refused with a message naming those, webflow having no autograph), and prefetch threads that stop on Ctrl-C in
the consumer, on Session close and on garbage collection (`threading.enumerate()` checked after each)."""

import _thread
import gc
import threading
import time

import pytest

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.data.iterators import FOR_LOOP_MESSAGE


def test_reduce_of_a_dataset_argument_inside_a_function():
    @wf.function
    def total(dataset):
        return dataset.reduce(wf.constant(0, wf.int64), lambda state, x: state + x)

    assert int(total(wf.data.Dataset.range(5))) == 0 + 1 + 2 + 3 + 4
    assert int(total(wf.data.Dataset.range(10, 13))) == 10 + 11 + 12


def test_dataset_built_inside_a_function_and_explicit_next():
    @wf.function
    def first_two(dataset):
        iterator = iter(dataset)
        return iterator.get_next() * 100 + next(iterator)

    @wf.function
    def built_inside():
        inner = wf.data.Dataset.range(4).map(lambda x: x * x)
        return inner.reduce(wf.constant(0, wf.int64), lambda s, x: s + x), \
            wf.data.experimental.get_single_element(inner.skip(3))

    assert int(first_two(wf.data.Dataset.range(5, 9))) == 5 * 100 + 6
    assert int(first_two(wf.data.Dataset.range(5, 9))) == 5 * 100 + 6  # each call starts a fresh iterator
    total, last = built_inside()
    assert (int(total), int(last)) == (0 + 1 + 4 + 9, 9)


def test_python_for_loop_over_a_dataset_in_a_function_names_the_alternatives():
    @wf.function
    def loop(dataset):
        total = wf.constant(0, wf.int64)
        for x in dataset:
            total += x
        return total

    with pytest.raises(NotImplementedError) as raised:
        loop(wf.data.Dataset.range(3))
    assert str(raised.value) == FOR_LOOP_MESSAGE
    for name in ("reduce", "get_next", "get_single_element"):
        assert name in FOR_LOOP_MESSAGE


def _prefetch_threads() -> list:
    return [t for t in threading.enumerate() if t.name == "webflow-prefetch" and t.is_alive()]


def _no_prefetch_threads_soon() -> bool:
    for _ in range(150):
        gc.collect()
        if not _prefetch_threads():
            return True
        time.sleep(0.02)
    return False


def _slow_numbers():
    for i in range(10**6):
        time.sleep(0.001 if i < 3 else 0.3)  # the first few quickly, then the consumer waits
        yield i


def test_ctrl_c_while_waiting_for_a_prefetched_element_stops_the_thread():
    assert _no_prefetch_threads_soon()
    iterator = iter(wf.data.Dataset.from_generator(_slow_numbers, wf.int64).map(lambda x: x + 1).prefetch(2))
    assert [int(next(iterator)) for _ in range(3)] == [1, 2, 3]
    assert len(_prefetch_threads()) == 1
    timer = threading.Timer(0.1, _thread.interrupt_main)  # Ctrl-C arrives while next() waits
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        for _ in range(100):
            next(iterator)
    timer.join()
    # the iterator is still referenced (a notebook's traceback keeps it): the thread must stop all the same
    assert _no_prefetch_threads_soon(), threading.enumerate()
    with pytest.raises(wf.errors.CancelledError, match="interrupted"):  # not a silent end of the dataset
        next(iterator)
    del iterator


def test_ctrl_c_in_a_graph_session_run_stops_the_thread_and_session_close_too():
    assert _no_prefetch_threads_soon()
    graph = wf.Graph()
    with graph.as_default():
        dataset = wf.data.Dataset.from_generator(_slow_numbers, wf.int64).prefetch(2)
        element = tf1.data.make_one_shot_iterator(dataset).get_next()
        session = tf1.Session(graph=graph)
        assert session.run(element) == 0
        timer = threading.Timer(0.1, _thread.interrupt_main)
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            for _ in range(100):
                session.run(element)
        timer.join()
        assert _no_prefetch_threads_soon(), threading.enumerate()
        session.close()
    assert _no_prefetch_threads_soon()


def test_eager_iterator_garbage_collected_mid_pass_stops_its_threads():
    assert _no_prefetch_threads_soon()
    iterator = iter(wf.data.Dataset.range(10**6).prefetch(4).map(lambda x: x * 2).prefetch(1))
    assert int(next(iterator)) == 0
    assert len(_prefetch_threads()) == 2
    del iterator
    assert _no_prefetch_threads_soon(), threading.enumerate()


def test_iterator_made_inside_a_function_leaves_no_prefetch_thread():
    @wf.function
    def first(dataset):
        return iter(dataset).get_next()

    for _ in range(3):
        assert int(first(wf.data.Dataset.range(10**6).prefetch(2))) == 0
    assert _no_prefetch_threads_soon(), threading.enumerate()
