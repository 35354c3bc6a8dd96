"""webflow.lab profiles: the per-op table, Chrome-trace JSON (Trace Event Format) and the eager profiler.

Oracles: the RunMetadata the session filled (durations must match it), wall-clock time measured around
the run (the trace's microseconds must fit inside it), and the Trace Event Format's required keys.
"""

from __future__ import annotations

import importlib
import json
import os
import time

import pytest

import webflow as wf
import webflow.compat.v1 as tf
from webflow.lab import chrome_trace, profile, profile_section, profile_text, save_chrome_trace
from webflow.ops import registry

profile_module = importlib.import_module("webflow.lab.profile")  # (webflow.lab.profile is the class)
REQUIRED = {"name", "ph", "pid", "tid"}


def _traced_run():
    tf.disable_v2_behavior()
    x = tf.placeholder(tf.float32, (None, 8), name="x")
    w = tf.ones((8, 8))
    y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w) + 1.0))
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        started = time.perf_counter()
        sess.run(y, {x: [[1.0] * 8] * 4}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        wall_us = (time.perf_counter() - started) * 1e6
    return metadata, wall_us


def test_chrome_trace_follows_the_trace_event_format() -> None:
    metadata, wall_us = _traced_run()
    trace = chrome_trace(metadata)
    json.dumps(trace, allow_nan=False)
    events = trace["traceEvents"]
    assert all(REQUIRED <= set(event) for event in events)
    complete = [e for e in events if e["ph"] == "X"]
    stats = metadata.step_stats.dev_stats
    assert [e["name"] for e in complete] == [s.node_name for s in stats]
    for event, stat in zip(complete, stats):
        assert isinstance(event["ts"], float) and isinstance(event["dur"], float) and event["dur"] >= 0
        assert event["ts"] == pytest.approx(stat.all_start_micros) and event["dur"] == pytest.approx(
            stat.all_end_rel_micros)
        assert event["args"]["op"] == stat.op_type and event["args"]["backend"] == stat.backend
        assert event["pid"] == os.getpid() and isinstance(event["tid"], int)
    # microseconds: every op starts and ends within the measured wall time of the run
    assert max(e["ts"] + e["dur"] for e in complete) <= wall_us
    assert all(e["ph"] in ("X", "M") for e in events)
    assert all("name" in e["args"] for e in events if e["ph"] == "M")


def test_profile_section_and_table_match_the_run_metadata() -> None:
    metadata, _ = _traced_run()
    section = profile_section(metadata)
    stats = metadata.step_stats.dev_stats
    assert section["total_us"] == pytest.approx(sum(s.all_end_rel_micros for s in stats))
    in_start_order = sorted(stats, key=lambda s: s.all_start_micros)
    assert [op["node"] for op in section["ops"]] == [s.node_name for s in in_start_order]
    assert all(op["calls"] == 1 for op in section["ops"])
    table = profile_text(metadata)
    assert "MatMul" in table and f"in {len(stats)} ops" in table


def test_save_chrome_trace_is_atomic(tmp_path, monkeypatch) -> None:
    metadata, _ = _traced_run()
    path = tmp_path / "trace.json"
    save_chrome_trace(metadata, str(path))
    assert json.loads(path.read_text()) == json.loads(json.dumps(chrome_trace(metadata)))
    before = path.read_text()
    monkeypatch.setattr(profile_module, "chrome_trace", lambda md: {"traceEvents": [object()]})  # not JSON
    with pytest.raises(TypeError):
        save_chrome_trace(metadata, str(path))
    assert path.read_text() == before  # the old file is intact
    assert sorted(os.listdir(tmp_path)) == ["trace.json"]  # and no temp file is left behind


def test_eager_profile_times_each_op_and_restores_dispatch() -> None:
    original = registry._apply_eagerly
    a = wf.ones((16, 16))
    started = time.perf_counter()
    with profile() as p:
        for _ in range(3):
            wf.matmul(a, a)
        a + a
    wall_us = (time.perf_counter() - started) * 1e6
    assert registry._apply_eagerly is original
    ops = {row["node"]: row for row in p.section()["ops"]}
    assert ops["MatMul"]["calls"] == 3 and ops["AddV2"]["calls"] == 1
    assert ops["MatMul"]["backend"] in ("numpy", "native", "wasm")
    assert 0 < p.section()["total_us"] <= wall_us
    shapes = [s.output_shapes for s in p.run_metadata.step_stats.dev_stats if s.op_type == "MatMul"]
    assert shapes[0] == [[16, 16]]
    wf.matmul(a, a)  # after the block: not recorded
    assert len([s for s in p.run_metadata.step_stats.dev_stats if s.op_type == "MatMul"]) == 3
    assert "MatMul" in p.table()
