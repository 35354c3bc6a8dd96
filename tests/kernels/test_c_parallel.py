"""parallel.c, the C library's worker threads: a kernel split over them gives the same bits as one thread,
whatever the thread count; several Python threads may call at once (a caller that finds the pool busy runs
its job alone); and a forked child, which has none of its parent's workers, still finishes its calls."""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading

import numpy as np
import pytest
from c_helpers import require_c_library

# noqa: F401  (declares the signatures)
from webflow.backends.c import gemm as c_gemm  # noqa: F401  (declares the signatures)
from webflow.backends.c import library as c

require_c_library()

RNG = np.random.default_rng(5)
A = RNG.standard_normal((50, 700)).astype(np.float32)
B = RNG.standard_normal((700, 8 * 64)).astype(np.float32)


def product(threads: int) -> np.ndarray:
    """A @ B by wf_gemm_few_rows_f32 on `threads` threads (NaN where nothing was written)."""
    out = np.full((A.shape[0], B.shape[1]), np.nan, np.float32)
    work = np.empty(threads * c.function("wf_gemm_few_rows_workspace")(), np.float32)
    c.function("wf_gemm_few_rows_f32")(A.shape[0], B.shape[1], A.shape[1], c.address(A), c.address(B),
                                        c.address(out), c.address(work), threads)
    return out


def test_workers_start_and_give_one_threads_bits():
    one = product(1)
    np.testing.assert_allclose(one, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-3)
    for threads in (2, 3, 5):
        np.testing.assert_array_equal(product(threads), one)
    assert c.function("wf_parallel_workers")() >= 4   # 5 threads: the caller and 4 workers


def test_python_threads_may_call_at_once():
    expected = product(1)
    failures: list = []

    def call_repeatedly() -> None:
        for _ in range(20):
            got = product(2)
            if not np.array_equal(got, expected):
                failures.append(np.nanmax(np.abs(got - expected)))

    callers = [threading.Thread(target=call_repeatedly) for _ in range(4)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(timeout=120)
    assert not any(caller.is_alive() for caller in callers), "a call never returned"
    assert failures == []


def test_workers_that_fell_asleep_and_more_threads_than_cores():
    """Workers idle past their polling time sleep (a futex); a caller whose worker is slow sleeps until it is
    done. 7 threads on this machine's few cores: workers are preempted mid-job, and every call still ends."""
    import time

    expected = product(1)
    for pause in (0.0, 0.002, 0.0):  # 2 ms: longer than a worker polls after a job
        for threads in (2, 7):
            time.sleep(pause)
            np.testing.assert_array_equal(product(threads), expected)
    for _ in range(50):
        np.testing.assert_array_equal(product(7), expected)


def _child(results: multiprocessing.Queue) -> None:
    results.put(product(2))


@pytest.mark.skipif(sys.platform != "linux", reason="fork")
def test_a_forked_child_runs_without_its_parents_workers():
    expected = product(2)  # the parent's workers are started (and may be polling) at the fork
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_child, args=(results,))
    child.start()
    got = results.get(timeout=120)
    child.join(timeout=120)
    assert child.exitcode == 0
    np.testing.assert_array_equal(got, expected)


def counts() -> list:
    """wf_parallel_counts: [jobs posted to workers, taken back unstarted, crowded decisions] so far."""
    out = np.zeros(3, np.intp)
    c.function("wf_parallel_counts")(c.address(out))
    return out.tolist()


def test_counts_add_up():
    before = counts()
    for _ in range(30):
        product(2)
    after = counts()
    posted, taken_back, crowded = (a - b for a, b in zip(after, before))
    assert 0 <= posted <= 30  # one worker a call; none in the crowded machine's one-thread mode
    assert 0 <= taken_back <= posted
    assert 0 <= crowded <= 30


@pytest.mark.skipif(sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2, reason="Linux affinity, 2+ CPUs")
def test_a_sleeping_worker_is_woken_off_the_callers_cpu_only():
    """Some kernels pack a woken thread onto an already running CPU: a worker woken from its sleep may run on
    every CPU but its caller's until it has started a job; then on all of them again. Never narrower."""
    import time

    allowed = os.sched_getaffinity(0)
    python_threads = {thread.native_id for thread in threading.enumerate()}
    for pause in (0.01, 0.0, 0.01):  # 10 ms: the worker has stopped polling and sleeps
        time.sleep(pause)
        product(2)
        for tid in os.listdir("/proc/self/task"):
            if int(tid) not in python_threads:
                mask = os.sched_getaffinity(int(tid))
                assert mask == allowed or (mask < allowed and len(allowed - mask) == 1), mask
    assert os.sched_getaffinity(0) == allowed  # the caller itself keeps all of them
