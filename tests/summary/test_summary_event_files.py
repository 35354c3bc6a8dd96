"""Event files without TensorFlow: the file's name, framing and first record, what FileWriter and TF2's writer put
in it, summary_iterator, and the PNG encoder (decoded here with zlib and struct). tests/summary/test_summary_
tensorflow.py and test_summary_tensorboard.py compare with real TensorFlow and TensorBoard."""

from __future__ import annotations

import os
import re
import socket
import struct
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from summary_oracle import decode_png, read_records

import webflow as wf
import webflow.compat.v1 as tf
from webflow.backends.numpy import summaries
from webflow.protos import event_pb2, graph_pb2, meta_graph_pb2, summary_pb2
from webflow.summary import summary_v2


def events_of(path: Path) -> list:
    return [event_pb2.Event.FromString(record) for record in read_records(str(path))]


def only_file(logdir: Path) -> Path:
    files = sorted(logdir.iterdir())
    assert len(files) == 1, files
    return files[0]


@pytest.fixture(autouse=True)
def _no_default_writer():
    yield
    summary_v2._STATE.writer = None
    summary_v2._STATE.step = None
    summary_v2._STATE.is_recording = None


# --- the file ----------------------------------------------------------------------------------------------------
def test_file_writer_makes_the_logdir_and_a_file_that_starts_with_the_version_event(tmp_path, graph_mode):
    before = int(time.time())
    writer = tf.summary.FileWriter(str(tmp_path / "new" / "run"))
    writer.close()
    path = only_file(tmp_path / "new" / "run")
    match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)", path.name)
    assert match and match.group(2) == socket.gethostname()
    assert before <= int(match.group(1)) <= time.time()
    (first,) = events_of(path)
    assert first.file_version == "brain.Event:2"
    assert first.wall_time == int(match.group(1))  # whole seconds, as TensorFlow's EventsWriter writes it
    assert first.source_metadata.writer == "tensorflow.core.util.events_writer"
    assert writer.get_logdir() == str(tmp_path / "new" / "run")


def test_filename_suffix(tmp_path, graph_mode):
    tf.summary.FileWriter(str(tmp_path), filename_suffix=".run1").close()
    assert only_file(tmp_path).name.endswith("." + socket.gethostname() + ".run1")


def test_summaries_session_logs_and_events_in_order(tmp_path, graph_mode):
    x = tf.placeholder(tf.float32, [])
    with tf.name_scope("train"):
        tf.summary.scalar("loss", x)
    tf.summary.text("notes", tf.constant("hello"))
    merged = tf.summary.merge_all()
    with tf.Session() as sess, tf.summary.FileWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_summary(sess.run(merged, {x: step / 2}), step)
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="proto", simple_value=7)]))
        writer.add_session_log(event_pb2.SessionLog(status=event_pb2.SessionLog.START), 3)
        writer.add_event(event_pb2.Event(step=9, wall_time=1.5, file_version="x"))
    events = events_of(only_file(tmp_path))
    assert [e.WhichOneof("what") for e in events] == ["file_version"] + ["summary"] * 4 + ["session_log",
                                                                                          "file_version"]
    summaries_ = [e.summary for e in events[1:4]]
    assert [e.step for e in events[1:4]] == [0, 1, 2]
    assert [s.value[0].tag for s in summaries_] == ["train/loss"] * 3
    assert [s.value[0].simple_value for s in summaries_] == [0.0, 0.5, 1.0]
    # the text plugin's metadata goes with the tag's first value only, as TensorFlow writes it
    assert [s.value[1].HasField("metadata") for s in summaries_] == [True, False, False]
    assert summaries_[0].value[1].metadata.plugin_data.plugin_name == "text"
    assert [v.tensor.string_val for s in summaries_ for v in s.value[1:]] == [[b"hello"]] * 3
    assert events[4].summary.value[0].simple_value == 7 and events[4].step == 0
    assert events[5].session_log.status == event_pb2.SessionLog.START and events[5].step == 3
    assert (events[6].step, events[6].wall_time) == (9, 1.5)  # add_event writes the event as it is
    assert all(events[i].wall_time >= events[0].wall_time for i in range(1, 6))


def test_summary_iterator_reads_what_was_written(tmp_path, graph_mode):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a", simple_value=2)]), 5)
    events = list(tf.train.summary_iterator(str(only_file(tmp_path))))
    assert events[0].file_version == "brain.Event:2"
    assert (events[1].step, events[1].summary.value[0].simple_value) == (5, 2.0)
    with pytest.raises(wf.errors.NotFoundError):
        tf.train.summary_iterator(str(tmp_path / "missing"))


def test_close_reopen_flush(tmp_path, graph_mode):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=100, flush_secs=1000)
    path = only_file(tmp_path)
    writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a", simple_value=1)]), 1)
    assert len(read_records(str(path))) == 1  # waiting in the queue
    writer.flush()
    assert len(read_records(str(path))) == 2
    writer.close()
    with pytest.warns(UserWarning, match="Attempting to use a closed FileWriter"):
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="b", simple_value=2)]), 2)
    assert len(read_records(str(path))) == 2
    writer.reopen()
    writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="c", simple_value=3)]), 3)
    writer.close()
    events = [e for f in sorted(tmp_path.iterdir()) for e in events_of(f)]
    tags = [e.summary.value[0].tag for e in events if e.HasField("summary")]
    assert tags == ["a", "c"]  # "b" was dropped; in the same second the new events join the first file
    assert sum(e.file_version == "brain.Event:2" for e in events) == 2


def test_max_queue_flushes(tmp_path, graph_mode):
    writer = tf.summary.FileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    for step in range(3):
        writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="a", simple_value=1)]), step)
    assert len(read_records(str(only_file(tmp_path)))) == 4
    writer.close()


def test_graph_and_meta_graph_events(tmp_path, graph_mode):
    a = tf.constant(1.0, name="a")
    tf.summary.scalar("s", a * 2.0)
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
        writer.add_graph(sess.graph, global_step=4)
        writer.close()
    events = events_of(only_file(tmp_path))
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def", "graph_def"]
    graph_def = graph_pb2.GraphDef.FromString(events[1].graph_def)
    assert [(n.name, n.op) for n in graph_def.node][-2:] == [("s/tags", "Const"), ("s", "ScalarSummary")]
    assert "_output_shapes" in graph_def.node[0].attr  # add_shapes=True, as TensorFlow's FileWriter
    assert meta_graph_pb2.MetaGraphDef.FromString(events[2].meta_graph_def).graph_def == graph_def
    assert events[3].step == 4


def test_file_writer_argument_errors(tmp_path, graph_mode):
    with tf.summary.FileWriter(str(tmp_path)) as writer:
        with pytest.raises(ValueError, match="Please pass only graph, or graph_def"):
            writer.add_graph(tf.get_default_graph(), graph_def=graph_pb2.GraphDef())
        with pytest.raises(TypeError, match="must be an instance of `Graph`"):
            writer.add_graph("graph")
        with pytest.raises(TypeError, match="meta_graph_def must be type MetaGraphDef"):
            writer.add_meta_graph(graph_pb2.GraphDef())


def test_file_writer_is_not_for_eager_code(tmp_path):
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tf.summary.FileWriter(str(tmp_path))


def test_file_writer_cache(tmp_path, graph_mode):
    first = tf.summary.FileWriterCache.get(str(tmp_path))
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is first
    tf.summary.FileWriterCache.clear()
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is not first
    tf.summary.FileWriterCache.clear()


def test_proto_classes_load_on_first_use():
    assert tf.summary.Summary is summary_pb2.Summary and tf.summary.SessionLog is event_pb2.SessionLog


def test_merge_is_not_for_eager_code():
    with pytest.raises(RuntimeError, match="Merging tf.summary"):
        tf.summary.merge_all()


# --- TF2 ---------------------------------------------------------------------------------------------------------
def tf2_events(logdir: Path) -> list:
    path = only_file(logdir)
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{re.escape(socket.gethostname())}\.{os.getpid()}\.\d+\.v2",
                        path.name)
    return events_of(path)[1:]


def test_tf2_scalars_are_float32_tensors_with_the_scalars_plugin(tmp_path):
    writer = wf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=3):
        assert bool(wf.summary.scalar("loss", 0.5))
        wf.summary.scalar("loss", wf.constant(2, wf.int64), step=4)
        with wf.name_scope("outer"), wf.name_scope("inner"):
            wf.summary.scalar("acc", 1.0, description="accuracy")
    events = tf2_events(tmp_path)
    assert [(e.step, e.summary.value[0].tag) for e in events] == [(3, "loss"), (4, "loss"), (3, "outer/inner/acc")]
    values = [e.summary.value[0] for e in events]
    assert [v.tensor.dtype for v in values] == [1, 1, 1]  # DT_FLOAT
    assert [struct.unpack("<f", v.tensor.tensor_content)[0] for v in values] == [0.5, 2.0, 1.0]
    assert all(v.tensor.HasField("tensor_shape") and not v.tensor.tensor_shape.dim for v in values)
    assert [v.metadata.plugin_data.plugin_name for v in values] == ["scalars"] * 3
    assert values[2].metadata.summary_description == "accuracy"


def test_tf2_steps_and_recording(tmp_path):
    assert not bool(wf.summary.scalar("x", 1.0, step=1))  # no default writer
    writer = wf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        with pytest.raises(ValueError, match="No step set"):
            wf.summary.scalar("x", 1.0)
        wf.summary.experimental.set_step(7)
        assert wf.summary.experimental.get_step() == 7
        wf.summary.scalar("x", 1.0)
        with wf.summary.record_if(False):
            assert not bool(wf.summary.scalar("x", 2.0))
            assert not bool(wf.summary.should_record_summaries())
        with wf.summary.record_if(lambda: True):
            wf.summary.scalar("x", 3.0, step=wf.Variable(8, dtype=wf.int64))
    writer.close()
    with pytest.raises(RuntimeError, match="already closed"):
        writer.as_default()
    assert [(e.step, struct.unpack("<f", e.summary.value[0].tensor.tensor_content)[0])
            for e in tf2_events(tmp_path)] == [(7, 1.0), (8, 3.0)]


def test_tf2_histogram_buckets(tmp_path):
    with wf.summary.create_file_writer(str(tmp_path)).as_default(step=0):
        wf.summary.histogram("h", [1.0, 2.0, 2.0, 5.0], buckets=3)
        wf.summary.histogram("empty", wf.zeros([0]), buckets=2)
        wf.summary.histogram("same", [2.0, 2.0])
    h, empty, same = [e.summary.value[0] for e in tf2_events(tmp_path)]
    rows = np.frombuffer(h.tensor.tensor_content, np.float64).reshape(3, 3)
    np.testing.assert_allclose(rows, [[1, 7 / 3, 3], [7 / 3, 11 / 3, 0], [11 / 3, 5, 1]])
    assert rows[-1, 1] == 5.0 and h.metadata.plugin_data.plugin_name == "histograms"
    assert np.frombuffer(empty.tensor.tensor_content, np.float64).tolist() == [0.0] * 6
    same_rows = np.frombuffer(same.tensor.tensor_content, np.float64).reshape(30, 3)
    assert (same_rows[:, :2] == 2.0).all() and same_rows[:, 2].tolist() == [0.0] * 29 + [2.0]


def test_tf2_images_and_text(tmp_path):
    images = np.random.default_rng(1).uniform(0, 1, (4, 3, 5, 3)).astype(np.float32)
    with wf.summary.create_file_writer(str(tmp_path)).as_default(step=1):
        wf.summary.image("img", images, max_outputs=2)
        wf.summary.text("notes", "hello **world**")
    image, text = [e.summary.value[0] for e in tf2_events(tmp_path)]
    assert image.tensor.dtype == 7 and [d.size for d in image.tensor.tensor_shape.dim] == [4]
    assert image.tensor.string_val[:2] == [b"5", b"3"]  # width, height
    for png, pixels in zip(image.tensor.string_val[2:], images):
        np.testing.assert_array_equal(decode_png(png), np.clip(pixels * np.float32(255.5), 0, 255).astype(np.uint8))
    assert image.metadata.plugin_data.plugin_name == "images"
    assert text.tensor.string_val == [b"hello **world**"] and text.metadata.plugin_data.plugin_name == "text"


def test_tf1_summaries_called_eagerly_under_a_tf2_writer_write_through_it(tmp_path):
    with wf.summary.create_file_writer(str(tmp_path)).as_default(step=2):
        assert tf.summary.scalar("loss", 1.5, family="f").numpy() == b""
    (event,) = tf2_events(tmp_path)
    assert event.summary.value[0].tag == "f/f/loss" and event.step == 2
    with pytest.warns(UserWarning, match="default summary writer not found"):
        value = tf.summary.scalar("loss", 1.5)  # no TF2 writer: runs the TF1 op eagerly
    assert summary_pb2.Summary.FromString(value.numpy()).value[0].simple_value == 1.5


def test_tf2_summaries_inside_a_graph_are_not_supported_yet(tmp_path):
    writer = wf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0), wf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="only when executing eagerly"):
            wf.summary.scalar("x", 1.0)


# --- PNG ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("channels", [1, 2, 3, 4])
def test_png_encoder(channels):
    pixels = np.random.default_rng(channels).integers(0, 256, (7, 5, channels), dtype=np.uint8)
    data = summaries.encode_png(pixels.tobytes(), 5, 7, channels)
    np.testing.assert_array_equal(decode_png(data), pixels)
    width, height, depth, color_type = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, color_type) == (5, 7, 8, {1: 0, 2: 4, 3: 2, 4: 6}[channels])


def test_import_webflow_loads_no_protobuf():
    import subprocess
    import sys

    code = "import sys, webflow, webflow.compat.v1; print(any(m.startswith('google.protobuf') for m in sys.modules))"
    with warnings.catch_warnings():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    assert done.stdout.strip() == "False"


def test_tf2_flush(tmp_path):
    wf.summary.flush()  # no default writer: nothing to do
    writer = wf.summary.create_file_writer(str(tmp_path), max_queue=100)
    path = only_file(tmp_path)
    with writer.as_default(step=0):
        wf.summary.scalar("x", 1.0)
        assert len(read_records(str(path))) == 1  # waiting
        wf.summary.flush()
        assert len(read_records(str(path))) == 2
        wf.summary.scalar("x", 2.0)
    assert len(read_records(str(path))) == 3  # leaving as_default flushes
    with pytest.raises(ValueError, match="Invalid argument to flush"):
        wf.summary.flush("writer")
