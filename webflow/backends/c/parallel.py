"""Running one C kernel over several threads, by splitting its work into independent parts.

ctypes releases the GIL for the length of a C call, so the C kernels of two Python threads run on two
cores at once. An adapter whose work splits cleanly (a convolution over a batch: each image's output is
its own) calls `split(total, run)`: `run(start, stop)` is called for consecutive slices of `range(total)`,
on this thread and a small pool of worker threads (each takes the next slice when it is free), and the
list of their results comes back in order. This is TensorFlow's intra-op parallelism (its Eigen thread
pool shards a kernel's work the same way). Most C kernels are single-threaded and libc-free (they also build
for wasm); the direct convolution, the thin MatMul kernels and MaxPool(Grad) take `threads()` and run on the
C library's own workers instead (webflow/wasm/parallel.c), which start sooner than this pool's.

How many threads: $WEBFLOW_INTRA_OP_THREADS, else $OPENBLAS_NUM_THREADS / $OMP_NUM_THREADS (the budget
NumPy's BLAS was given), else the cores this process may use. Pyodide has no threads: always one part.
`set_threads(n)` changes it at run time (webflow.config may expose it).

Parts that call NumPy's BLAS (the convolutions' GEMMs) run it on one thread each: OpenBLAS's own
threads on top of ours would ask for 4 threads on 2 cores, which measured slower than either alone
(conv2 forward, batch 50: 5.7 ms split with one BLAS thread each, 8.4 split with two, 8-10 unsplit with
two). So `split` drops OpenBLAS to one thread while its parts run and restores the count afterwards, through
`openblas_set_num_threads_local` (OpenBLAS >= 0.3.27, found in the library NumPy loaded). Despite its name,
that setting is process-wide in OpenBLAS's pthreads builds (NumPy's wheels): set from a worker thread it
left every later matmul on one thread (fc1 forward at batch 50: 1.85 ms -> 3.2 ms), so only `split` itself
sets it, around the whole parallel section. Without the setter the parts run with NumPy's BLAS threading.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import wait
from typing import Any

_ENV = ("WEBFLOW_INTRA_OP_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
# Slices per thread: on this 2-vCPU VM one vCPU often runs a kernel ~30% slower than the other (the same
# 25 conv2 images, pure C: 4.4-4.8 ms pinned to one, 3.2 pinned to the other), and which one changes. With
# one slice per thread the fast thread then waits for the slow one; with more, it takes more of them.
# Deep MNIST CNN training step, 8 x 8 steps interleaved in one process (noisy), best / median ms:
# batch 50, 2 slices per thread 28.4 / 32.7, 4 slices 28.9 / 31.8; batch 128, 55.1 / 61.6 and 53.6 / 57.3
# (at a time one vCPU ran conv2 at 9.8 ms a batch of 50, the other at 6.4).
SLICES_PER_THREAD = 4


def _default_threads() -> int:
    if sys.platform == "emscripten":
        return 1
    for name in _ENV:
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _State:
    threads = _default_threads()
    pool: Any = None
    blas_setter: Any = False  # False: not looked up yet


STATE = _State()


def threads() -> int:
    """The number of threads a split kernel uses (1: no splitting)."""
    return STATE.threads


def set_threads(count: int) -> None:
    """Sets the number of threads split kernels use (at least 1)."""
    STATE.threads = max(1, int(count))


def _blas_threads_setter() -> Any:
    """OpenBLAS's `openblas_set_num_threads_local(n) -> previous` from the library NumPy loaded, or None."""
    if STATE.blas_setter is not False:
        return STATE.blas_setter
    STATE.blas_setter = None
    try:
        import ctypes

        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and line.rstrip().endswith(".so")
                     or "openblas" in line.lower() and ".so" in line.split()[-1]}
        for path in sorted(paths):
            function = getattr(ctypes.CDLL(path), "openblas_set_num_threads_local", None)
            if function is not None:
                function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
                STATE.blas_setter = function
                break
    except (OSError, ImportError):
        pass
    return STATE.blas_setter


def _pool() -> Any:
    if STATE.pool is None:
        from concurrent.futures import ThreadPoolExecutor

        STATE.pool = ThreadPoolExecutor(max_workers=max(1, STATE.threads - 1), thread_name_prefix="webflow-intra-op")
    elif STATE.pool._max_workers < STATE.threads - 1:  # set_threads() raised the count
        STATE.pool.shutdown(wait=False)
        STATE.pool = None
        return _pool()
    return STATE.pool


def on_threads(run: Callable[[], Any], count: int | None = None) -> list:
    """[run() on each of `count` threads at once (default: all of them), this one included]: for work the
    threads share out among themselves (split's slices).
    Exceptions raised on any thread propagate, after every thread has finished."""
    count = STATE.threads if count is None else max(1, min(count, STATE.threads))
    if count <= 1:
        return [run()]
    futures = [_pool().submit(run) for _ in range(count - 1)]
    try:
        mine = run()
    finally:
        wait(futures)
    return [mine] + [future.result() for future in futures]


def split(total: int, run: Callable[[int, int], Any], min_part: int = 1) -> list:
    """[run(start, stop) for consecutive slices covering range(total)], the slices run on parallel threads.

    Up to SLICES_PER_THREAD slices per thread, each at least `min_part` long (small work is not worth a thread
    hand-off: ~20-50 us). The threads take the next slice as they become free, so a thread on a slower core
    simply runs fewer slices. The slices' bounds depend only on the sizes, so a caller summing the results
    in order gets the same answer whatever thread ran what. Exceptions raised by any slice propagate."""
    slices = min(STATE.threads * SLICES_PER_THREAD, total // max(1, min_part))
    if STATE.threads <= 1 or slices <= 1:
        return [run(0, total)]
    bounds = [total * i // slices for i in range(slices + 1)]
    results: list = [None] * slices
    taken = iter(range(slices))
    lock = threading.Lock()

    def take_slices() -> None:
        while True:
            with lock:
                index = next(taken, None)
            if index is None:
                return
            results[index] = run(bounds[index], bounds[index + 1])

    setter = _blas_threads_setter()
    previous = setter(1) if setter is not None else None
    try:  # every slice has finished (or failed) before BLAS gets its threads back
        with interrupts_after():
            on_threads(take_slices, slices)
    finally:
        if setter is not None:
            setter(previous)
    return results


@contextlib.contextmanager
def interrupts_after() -> Iterator[None]:
    """Holds back Ctrl-C (SIGINT) until the block has finished, then raises it as usual.

    An optimizer writes a large variable in place, one slice per thread: a KeyboardInterrupt raised on this
    thread between taking a slice and running it would leave that slice of the variable at its old value and
    the rest at the new one. Held back, the update is whole (TensorFlow's runs are not interrupted mid-kernel
    either). Only the main thread receives signals, and only a Python-level handler can be held back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        yield
        return
    frames: list = []
    signal.signal(signal.SIGINT, lambda number, frame: frames.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, handler)
        if frames:
            handler(signal.SIGINT, frames[0])


# NumPy's BLAS on one thread for products of 2^18 (where OpenBLAS starts its threads) to 2^23 multiply-adds: on a
# loaded machine such a product waits for a descheduled helper thread (an LSTM step's [32, 512] x [512, 160]:
# ~33 ms instead of ~0.05); figures: benchmarks/FIGURES.md, "Small MatMuls".
ONE_BLAS_THREAD = (1 << 18, 1 << 23)


def with_one_blas_thread(run: Callable[..., Any], *args: Any) -> Any:
    """run(*args) with NumPy's BLAS on one thread in this thread, then its count back (the setter is OpenBLAS's
    thread-local one, so concurrent and nested calls each restore their own thread's count)."""
    setter = _blas_threads_setter() if STATE.threads > 1 else None
    if setter is None:
        return run(*args)
    previous = setter(1)
    try:
        return run(*args)
    finally:
        setter(previous)


__all__ = ["on_threads", "split", "interrupts_after", "threads", "set_threads", "with_one_blas_thread",
           "ONE_BLAS_THREAD"]
