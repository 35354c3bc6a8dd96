"""The timing loops the benchmark scripts share: best of several blocks of calls, after one warm-up call.

Standard library only, so every worker imports it as a sibling module (`from bench_timing import best_seconds`),
whichever interpreter runs it: webflow's, TensorFlow's, PyTorch's, or a NumPy built without BLAS.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def fastest_block(run: Callable[[], object], number: int, repeat: int) -> float:
    """Seconds per call in the fastest of `repeat` blocks of `number` calls (no warm-up)."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(number):
            run()
        best = min(best, (time.perf_counter() - started) / number)
    return best


def best_seconds(run: Callable[[], object], number: int, repeat: int = 3) -> float:
    """Seconds per call: the fastest of `repeat` blocks of `number` calls, after a warm-up call."""
    run()  # warm-up: plans, caches, allocations
    return fastest_block(run, number, repeat)


def timed_steps(run: Callable[[], object], number: int, repeat: int = 3) -> tuple:
    """(best wall seconds per step over `repeat` blocks of `number` steps, process CPU seconds per step over
    all of them): on a shared machine the wall time is partly the neighbours', the CPU time (every thread of
    this process) is the engine's own."""
    run()
    cpu_started = time.process_time()
    best = fastest_block(run, number, repeat)
    return best, (time.process_time() - cpu_started) / (number * repeat)


def seconds_per_call(function: Callable[[], object], budget: float, repeat: int) -> float:
    """Seconds per call: calls batched to about budget / repeat each (at least one), best batch wins."""
    function()
    started, calls = time.perf_counter(), 0
    while time.perf_counter() - started < budget / repeat:
        function()
        calls += 1
    number, repeats = (calls, repeat) if calls else (1, 3)  # one call outlasting the budget: three single calls
    return fastest_block(function, number, repeats)
