"""Per-op times under a coarse clock (a browser worker's 100 µs performance.now): averaged over repeats (issue 31).

The oracle for the averaging is arithmetic: an op of known duration timed by a clock that steps every 100 µs,
at a random phase, reads 0 or 100 µs; the mean of many readings approaches the duration.
"""

from __future__ import annotations

import math
import random
import time

import pytest

import webflow.compat.v1 as tf
from webflow.lab import coarse_clock
from webflow.runtime.config import NodeExecStats, RunMetadata

STEP = 100e-6


def _metadata(durations: dict) -> RunMetadata:
    metadata = RunMetadata()
    for name, micros in durations.items():
        metadata.step_stats.dev_stats.append(NodeExecStats(name, "AddV2", 0.0, micros, [], "/device:CPU:0"))
    return metadata


def _quantised_reading(true_us: float, rng: random.Random) -> float:
    start = rng.random() * STEP  # where in the clock's step the op starts
    ticks = math.floor((start + true_us * 1e-6) / STEP) - math.floor(start / STEP)
    return ticks * STEP * 1e6


def test_mean_of_quantised_readings_approaches_the_true_time() -> None:
    rng = random.Random(31)
    truth = {"a": 7.0, "b": 30.0}
    first = _metadata({name: _quantised_reading(us, rng) for name, us in truth.items()})
    result = coarse_clock.averaged(lambda: _metadata({n: _quantised_reading(us, rng) for n, us in truth.items()}),
                                   first, budget_s=10.0, max_runs=2000)
    means = {stat.node_name: stat.all_end_rel_micros for stat in result.step_stats.dev_stats}
    for name, us in truth.items():
        assert means[name] == pytest.approx(us, abs=3.0)  # 2000 readings of 0 or 100: std error ~1.3-2.3 µs


def test_a_coarse_clock_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    real = time.perf_counter
    monkeypatch.setattr(time, "perf_counter", lambda: math.floor(real() / STEP) * STEP)
    assert coarse_clock.clock_step_us() == pytest.approx(100.0, rel=0.01)
    monkeypatch.undo()
    assert coarse_clock.clock_step_us() < coarse_clock.COARSE_US


def test_only_runs_that_change_nothing_are_repeated() -> None:
    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable([[2.0]])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            traced = {}
            for name, fetches in (("loss", loss), ("train", [train, loss]), ("random", tf.random_normal([2]))):
                metadata = tf.RunMetadata()
                sess.run(fetches, {x: [[1.0], [2.0]]}, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), metadata)
                traced[name] = metadata
            assert coarse_clock.repeatable(graph, traced["loss"])
            assert not coarse_clock.repeatable(graph, traced["train"])  # ApplyGradientDescent updates w
            assert not coarse_clock.repeatable(graph, traced["random"])  # would move the random stream

            def again() -> RunMetadata:
                metadata = tf.RunMetadata()
                sess.run(loss, {x: [[1.0], [2.0]]}, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), metadata)
                return metadata

            w_before = sess.run(w).tolist()
            result = coarse_clock.averaged(again, traced["loss"], budget_s=0.05, max_runs=20)
            assert sess.run(w).tolist() == w_before
            assert sum(s.all_end_rel_micros for s in result.step_stats.dev_stats) > 0


def test_a_fused_step_is_repeatable_when_the_ops_it_ran_are() -> None:
    """x W + b runs as one _FusedMatMul step (runtime/fusion.py), a type the op registry does not know: the ops it
    ran decide (the playground's profile read "total 0.00 µs" when such a run was not repeated)."""
    tf.disable_v2_behavior()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 1])
        w, b = tf.Variable([[2.0]]), tf.Variable([1.0])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            metadata = tf.RunMetadata()
            sess.run(loss, {x: [[1.0], [2.0]]}, tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), metadata)
    fused = [s for s in metadata.step_stats.dev_stats if s.op_type.startswith("_Fused")]
    assert fused and all(s.fused_nodes for s in fused)  # the case this test is about
    assert coarse_clock.repeatable(graph, metadata)
