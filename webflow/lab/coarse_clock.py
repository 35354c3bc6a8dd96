"""Per-op times where the clock is coarse: averaged over repeated runs of a run that changes nothing.

In a browser Web Worker without cross-origin isolation, `performance.now()` (Pyodide's `time.perf_counter`) steps
by 100 µs, while most ops of a small graph take a few µs: each traced op reads 0, and a profile said "total
0.00 µs". A run whose ops are all stateless (variable reads allowed; no Assign/Apply, random or iterator op) can
run again with the same feeds without changing the program's results; its per-op times are then the mean over
repeats. The clock's phase is random against each op's start, so a quantised duration is right on average, and
the mean converges to the true time (the repeats stop after `budget_s` seconds or `max_runs` runs).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from webflow.ops.registry import OPS

COARSE_US = 10.0  # a clock stepping by more than this cannot time a small op
_VARIABLES = {"VariableV2", "Variable", "VarHandleOp"}  # stateful op types whose run only reads


def clock_step_us(samples: int = 5, spins: int = 100_000) -> float:
    """The smallest step of time.perf_counter seen in a few tries (µs); 0 if it never moved."""
    steps = []
    for _ in range(samples):
        start = time.perf_counter()
        for _ in range(spins):
            now = time.perf_counter()
            if now != start:
                steps.append((now - start) * 1e6)
                break
    return min(steps) if steps else 0.0


def repeatable(graph: Any, run_metadata: Any) -> bool:
    """Whether every op the run executed can run again without changing anything (reads, math, no updates)."""
    for stat in run_metadata.step_stats.dev_stats:
        for op_type in _graph_op_types(graph, stat):
            opdef = OPS.get(op_type)
            if opdef is None or (opdef.stateful and op_type not in _VARIABLES):
                return False
    return bool(run_metadata.step_stats.dev_stats)


def _graph_op_types(graph: Any, stat: Any) -> list:
    """The graph op types a step ran: its own, or for a fused step (_FusedMatMul ...) those of the ops it fused."""
    if stat.op_type in OPS or not stat.fused_nodes:
        return [stat.op_type]
    return [graph.get_operation_by_name(name).type for name in (stat.node_name, *stat.fused_nodes)]


def averaged(run_once: Callable[[], Any], first: Any, budget_s: float = 0.02, max_runs: int = 50) -> Any:
    """`first` (a RunMetadata) with each op's duration replaced by its mean over `first` and repeats of
    `run_once()` (each returning the RunMetadata of one more traced run of the same plan)."""
    stats = first.step_stats.dev_stats
    sums = [stat.all_end_rel_micros for stat in stats]
    runs, started = 1, time.perf_counter()
    while runs < max_runs and time.perf_counter() - started < budget_s:
        again = run_once().step_stats.dev_stats
        if [s.node_name for s in again] != [s.node_name for s in stats]:
            break  # another plan ran: keep what was measured so far
        sums = [total + stat.all_end_rel_micros for total, stat in zip(sums, again)]
        runs += 1
    for stat, total in zip(stats, sums):
        stat.all_end_rel_micros = total / runs
    return first


__all__ = ["COARSE_US", "clock_step_us", "repeatable", "averaged"]
