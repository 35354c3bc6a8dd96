"""Readers and writers leak no file descriptors (issue 29, soak): the count of /proc/self/fd after 1,000
open/close cycles of each equals the count before, and each cycle's file holds what was written. FileWriter
also leaves no thread behind."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import webflow.compat.v1 as tf
from webflow.protos import summary_pb2

CYCLES = 1000
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux's /proc/self/fd")


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def assert_no_leak(cycle, cycles: int = CYCLES) -> None:
    cycle(0)  # first use: lazy imports and caches, not leaks
    before, threads = open_descriptors(), threading.active_count()
    for i in range(1, cycles):
        cycle(i)
    assert open_descriptors() == before
    assert threading.active_count() == threads


def test_tfrecord_writer_and_iterator(tmp_path):
    path = str(tmp_path / "records.tfrecord")

    def cycle(i: int) -> None:
        with tf.io.TFRecordWriter(path) as writer:
            writer.write(b"record %d" % i)
        assert list(tf.io.tf_record_iterator(path)) == [b"record %d" % i]

    assert_no_leak(cycle)


def test_tfrecord_iterator_abandoned_half_way(tmp_path):
    """A generator dropped before its end closes its file when collected (CPython: at once)."""
    path = str(tmp_path / "records.tfrecord")
    with tf.io.TFRecordWriter(path) as writer:
        for i in range(3):
            writer.write(b"%d" % i)

    def cycle(i: int) -> None:
        records = tf.io.tf_record_iterator(path)
        assert next(records) == b"0"
        del records

    assert_no_leak(cycle)


def test_file_writer(tmp_path):
    def cycle(i: int) -> None:
        writer = tf.summary.FileWriter(str(tmp_path / f"run{i}"))
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="loss", simple_value=float(i))]), i)
        writer.close()

    with tf.Graph().as_default():  # (v1 FileWriter refuses eager mode, as TensorFlow's)
        assert_no_leak(cycle)
    events = list(tf.train.summary_iterator(str(next((tmp_path / "run999").iterdir()))))
    assert [(v.tag, v.simple_value) for e in events for v in e.summary.value] == [("loss", 999.0)]


def test_saver_save_and_restore(tmp_path):
    with tf.Graph().as_default():
        variable = tf.Variable(np.zeros(3, np.float32), name="v")
        assign = variable.assign(tf.placeholder_with_default(np.zeros(3, np.float32), [3]))
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            prefix = str(tmp_path / "model")

            def cycle(i: int) -> None:
                session.run(assign, {assign.op.inputs[1]: np.full(3, i, np.float32)})
                path = saver.save(session, prefix, global_step=i, write_meta_graph=False)
                session.run(variable.initializer)
                saver.restore(session, path)
                assert session.run(variable).tolist() == [float(i)] * 3

            assert_no_leak(cycle)
