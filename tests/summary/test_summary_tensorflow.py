"""Summaries compared with real TensorFlow 2.21 (WEBFLOW_TF_PYTHON; skipped without it): the same TF1 program's
`sess.run(merged)` gives the same Summary bytes in both engines (scalars, histograms, text, tensors; images: the
same pixels, since libpng filters rows differently), TF2's writer writes the same tensors and metadata, and
summary_iterator reads TensorFlow's event files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from summary_oracle import SKIP_REASON, TF_PYTHON, decode_png, run_oracle
from tf_subprocess import run_tensorflow, run_webflow

import webflow.compat.v1 as tf1
from webflow.protos import event_pb2, graph_pb2, summary_pb2
from webflow.summary import summary_v2

pytestmark = pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)

TF1_PROGRAM = """
rng = np.random.default_rng(3)
data = (rng.standard_normal(1000) * 3).astype(np.float32)
data[:5] = [0.0, -0.0, 1e-13, -1e25, 4e30]
x = tf.placeholder(tf.float32, [None], name="x")
with tf.name_scope("train"):
    loss = tf.summary.scalar("loss", tf.reduce_mean(x))
    tf.summary.scalar("max", tf.reduce_max(x), family="stats")
    tf.summary.scalar("loss", tf.reduce_min(x))
hist = tf.summary.histogram("weights", x)
tf.summary.histogram("ints", tf.cast(x[5:] * 100, tf.int32))
tf.summary.histogram("tiny doubles", tf.cast(x, tf.float64) * 1e-9)
tf.summary.histogram("single", tf.constant([2.5]))
tf.summary.text("notes", tf.constant(["a **b**", "c"]))
tf.summary.tensor_summary("t", tf.constant([[1, 2], [3, 4]]))
merged = tf.summary.merge_all()
pair = tf.summary.merge([loss, hist], name="pair")
with tf.Session() as sess:
    outs = sess.run([merged, pair, loss, hist], {x: data})
graph = tf.get_default_graph()
result = {"bytes": [o.hex() for o in outs],
          "nodes": [[op.name, op.type, [i.name for i in op.inputs]] for op in graph.get_operations()
                    if "Summary" in op.type or op.name.endswith(("tags", "tag"))],
          "collection": [t.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]}
"""

IMAGE_PROGRAM = """
rng = np.random.default_rng(4)
positive = rng.uniform(0, 2, (3, 6, 5, 3)).astype(np.float32)
signed = rng.standard_normal((2, 4, 7, 4))
signed[0, 1, 2, 3] = np.nan
grey = rng.integers(0, 256, (2, 5, 3, 1)).astype(np.uint8)
summaries = [tf.summary.image("positive", tf.constant(positive), max_outputs=2),
             tf.summary.image("signed", tf.constant(signed)),
             tf.summary.image("grey", tf.constant(grey), max_outputs=1),
             tf.summary.image("half", tf.constant(positive.astype(np.float16) - 1))]
with tf.Session() as sess:
    result = [s.hex() for s in sess.run(summaries)]
"""


def _summaries(hexes: list) -> list:
    return [summary_pb2.Summary.FromString(bytes.fromhex(h)) for h in hexes]


@pytest.fixture(scope="module")
def tensorflow_results() -> dict:
    return run_tensorflow({"tf1": TF1_PROGRAM, "images": IMAGE_PROGRAM})


def test_tf1_summaries_are_tensorflows_bytes(tensorflow_results):
    ours, theirs = run_webflow(TF1_PROGRAM), tensorflow_results["tf1"]
    assert ours["nodes"] == theirs["nodes"]
    assert ours["collection"] == theirs["collection"]
    for mine, expected in zip(ours["bytes"], theirs["bytes"]):
        assert mine == expected, (_summaries([mine]), _summaries([expected]))
    tags = [v.tag for v in _summaries(theirs["bytes"][:1])[0].value]
    assert tags == ["train/loss", "stats/train/stats/max", "train/loss_1", "weights", "ints", "tiny_doubles",
                    "single", "notes", "t"]


def test_image_summaries_have_tensorflows_pixels(tensorflow_results):
    ours, theirs = _summaries(run_webflow(IMAGE_PROGRAM)), _summaries(tensorflow_results["images"])
    for mine, expected in zip(ours, theirs):
        assert [v.tag for v in mine.value] == [v.tag for v in expected.value]
        for a, b in zip(mine.value, expected.value):
            assert (a.image.height, a.image.width, a.image.colorspace) == \
                   (b.image.height, b.image.width, b.image.colorspace)
            np.testing.assert_array_equal(decode_png(a.image.encoded_image_string),
                                          decode_png(b.image.encoded_image_string), err_msg=a.tag)
    assert [v.tag for v in theirs[0].value] == ["positive/image/0", "positive/image/1"]
    assert [v.tag for v in theirs[2].value] == ["grey/image"]


TF2_PROGRAM = """
rng = np.random.default_rng(5)
writer = tf.summary.create_file_writer(LOGDIR)
with writer.as_default(step=2):
    tf.summary.scalar("loss", 0.25)
    tf.summary.scalar("count", tf.constant(3, tf.int64), step=5, description="how many")
    with tf.name_scope("outer"):
        tf.summary.scalar("acc", np.float64(0.75))
    tf.summary.histogram("normal", rng.standard_normal(500).astype(np.float32))
    tf.summary.histogram("few", [1.0, 2.0, 2.0, 5.0], buckets=3)
    tf.summary.histogram("ints", rng.integers(-50, 50, 77), buckets=7)
    tf.summary.histogram("empty", tf.zeros([0]))
    tf.summary.histogram("same", [2.0, 2.0, 2.0])
    tf.summary.image("img", rng.uniform(-0.1, 1.1, (3, 4, 6, 3)).astype(np.float32), max_outputs=2)
    tf.summary.image("grey", rng.integers(0, 256, (1, 3, 3, 1)).astype(np.uint8))
    tf.summary.text("notes", "hello **world**")
    tf.summary.text("lines", ["a", "b"])
writer.close()
events = []
for name in sorted(os.listdir(LOGDIR)):
    for event in tf.compat.v1.train.summary_iterator(os.path.join(LOGDIR, name)):
        if event.HasField("summary"):
            for value in event.summary.value:
                events.append([event.step, value.tag, value.tensor.SerializeToString().hex(),
                               value.metadata.SerializeToString().hex()])
result = {"events": events, "files": os.listdir(LOGDIR)}
"""


def _tf2_source(logdir: Path, engine: str) -> str:
    return f"import os, numpy as np\nimport {engine} as tf\nLOGDIR = {str(logdir)!r}\n" + TF2_PROGRAM


def test_tf2_writer_writes_tensorflows_tensors_and_metadata(tmp_path):
    theirs = run_oracle(_tf2_source(tmp_path / "tf", "tensorflow"))
    scope: dict = {}
    try:
        exec(_tf2_source(tmp_path / "wf", "webflow"), scope)
    finally:
        summary_v2.set_step(None)
    ours = scope["result"]
    assert [e[:2] for e in ours["events"]] == [e[:2] for e in theirs["events"]]
    for mine, expected in zip(ours["events"], theirs["events"]):
        assert mine[3] == expected[3], mine[1]  # the plugin's SummaryMetadata
        if mine[1] in ("img", "grey"):
            a, b = [wf_tensor(t) for t in (mine[2], expected[2])]
            assert a.string_val[:2] == b.string_val[:2] and len(a.string_val) == len(b.string_val)
            for x, y in zip(a.string_val[2:], b.string_val[2:]):
                np.testing.assert_array_equal(decode_png(x), decode_png(y))
        else:
            assert mine[2] == expected[2], (mine[1], wf_tensor(mine[2]), wf_tensor(expected[2]))
    (name,) = theirs["files"]
    assert name.startswith("events.out.tfevents.") and name.endswith(".v2")
    assert ours["files"][0].count(".") == name.count(".")


def wf_tensor(hex_text: str):
    from webflow.protos import tensor_pb2

    return tensor_pb2.TensorProto.FromString(bytes.fromhex(hex_text))


TF_FILE_PROGRAM = """
import tensorflow as tf
tf1 = tf.compat.v1
tf1.disable_eager_execution()
x = tf1.constant(2.0, name="x")
s = tf1.summary.scalar("loss", x * 3.0)
with tf1.Session() as sess:
    writer = tf1.summary.FileWriter(LOGDIR, sess.graph)
    for step in range(3):
        writer.add_summary(sess.run(s), step)
    writer.add_session_log(tf1.SessionLog(status=tf1.SessionLog.STOP), 3)
    writer.close()
result = True
"""


def test_summary_iterator_reads_tensorflows_event_files(tmp_path):
    run_oracle(f"LOGDIR = {str(tmp_path)!r}\n" + TF_FILE_PROGRAM)
    (path,) = list(tmp_path.iterdir())
    events = list(tf1.train.summary_iterator(str(path)))
    assert events[0].file_version == "brain.Event:2"
    assert events[0].source_metadata.writer == "tensorflow.core.util.events_writer"
    assert events[0].wall_time == int(events[0].wall_time)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def", "summary",
                                                      "summary", "summary", "session_log"]
    assert [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value) for e in events[3:6]] == \
           [(0, "loss", 6.0), (1, "loss", 6.0), (2, "loss", 6.0)]
    assert events[6].session_log.status == event_pb2.SessionLog.STOP
    graph_def = graph_pb2.GraphDef.FromString(events[1].graph_def)
    assert "loss" in [n.name for n in graph_def.node]
    # webflow's first record is TensorFlow's, but for the time
    tf1.disable_v2_behavior()
    tf1.summary.FileWriter(str(tmp_path / "wf")).close()
    (ours,) = [e for f in (tmp_path / "wf").iterdir() for e in tf1.train.summary_iterator(str(f))]
    ours.wall_time = events[0].wall_time
    assert ours.SerializeToString() == events[0].SerializeToString()

