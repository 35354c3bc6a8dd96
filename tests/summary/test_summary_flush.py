"""When events reach the event file (summary/event_file_writer.py): every `flush_secs` by a daemon thread, at once
when `max_queue` events wait, on flush()/close(); close() (or dropping the writer) stops the thread; without threads
(Pyodide) each event is written at once. Records are read back with the TFRecord framing checked by hand."""

from __future__ import annotations

import gc
import threading
import time

import pytest
from summary_oracle import read_records

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.protos import event_pb2, summary_pb2
from webflow.summary import event_file_writer


def scalar(tag: str, value: float) -> bytes:
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]).SerializeToString()


def file_writer(logdir, **kwargs):
    with tf1.Graph().as_default():  # a TF1 FileWriter is made outside eager execution
        return tf1.summary.FileWriter(str(logdir), **kwargs)


def events(logdir) -> list:
    (path,) = list(logdir.iterdir())
    return [event_pb2.Event.FromString(record) for record in read_records(str(path))]


def wait_for(condition, seconds: float) -> float:
    """How long `condition()` took to hold (fails after `seconds`)."""
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < seconds, "timed out"
        time.sleep(0.02)
    return time.monotonic() - start


def flushers() -> list:
    return [t for t in threading.enumerate() if t.name == "webflow-event-flusher"]


def test_an_event_reaches_the_file_within_flush_secs_without_flush(tmp_path):
    writer = file_writer(tmp_path, flush_secs=1.0)
    writer.add_summary(scalar("loss", 0.5), global_step=3)
    assert len(events(tmp_path)) == 1  # only the file_version record: the summary waits in the queue
    waited = wait_for(lambda: len(events(tmp_path)) == 2, seconds=10)
    assert waited < 5
    assert events(tmp_path)[1].summary.value[0].tag == "loss" and events(tmp_path)[1].step == 3
    writer.close()


def test_close_stops_the_flusher_thread_and_writes_what_waits(tmp_path):
    before = len(flushers())
    writer = file_writer(tmp_path, flush_secs=600)
    thread = writer.event_writer._flusher
    assert thread.is_alive() and thread.daemon and len(flushers()) == before + 1
    writer.add_summary(scalar("a", 1.0))
    writer.close()
    assert not thread.is_alive() and len(flushers()) == before
    assert [e.summary.value[0].tag for e in events(tmp_path)[1:]] == ["a"]
    writer.reopen()  # a new file, a new thread; closed again
    assert len(flushers()) == before + 1
    writer.close()
    assert len(flushers()) == before


def test_max_queue_events_are_written_at_once(tmp_path):
    writer = file_writer(tmp_path, max_queue=3, flush_secs=600)
    for step in range(2):
        writer.add_summary(scalar("x", step), step)
    assert len(events(tmp_path)) == 1
    writer.add_summary(scalar("x", 2.0), 2)
    assert [e.step for e in events(tmp_path)[1:]] == [0, 1, 2]
    writer.close()


def test_a_writer_nobody_closed_stops_its_thread_when_collected(tmp_path):
    writer = file_writer(tmp_path, flush_secs=600)
    writer.add_summary(scalar("late", 2.0))
    thread = writer.event_writer._flusher
    del writer
    gc.collect()
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert events(tmp_path)[1].summary.value[0].tag == "late"


def test_without_threads_each_event_is_written_at_once(tmp_path, monkeypatch):
    monkeypatch.setattr(event_file_writer, "HAVE_THREADS", False)
    writer = file_writer(tmp_path, flush_secs=600)
    assert writer.event_writer._flusher is None
    writer.add_summary(scalar("now", 1.0))
    assert len(events(tmp_path)) == 2
    writer.close()


def test_the_tf2_writer_flushes_every_flush_millis(tmp_path):
    writer = wf.summary.create_file_writer(str(tmp_path), flush_millis=500)
    with writer.as_default():
        wf.summary.scalar("loss", 0.25, step=1)
        assert len(events(tmp_path)) == 1
        wait_for(lambda: len(events(tmp_path)) == 2, seconds=10)
    writer.close()


@pytest.mark.parametrize("flush_secs", [0, float("inf")])
def test_no_thread_for_a_flush_period_of_zero_or_infinity(tmp_path, flush_secs):
    writer = file_writer(tmp_path, flush_secs=flush_secs)
    assert writer.event_writer._flusher is None
    writer.close()
