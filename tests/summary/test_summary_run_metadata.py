"""`FileWriter.add_run_metadata`: webflow's RunMetadata (Session.run with FULL_TRACE, or webflow.lab.profile) as
TensorFlow's RunMetadata proto in a `tagged_run_metadata` Event; TensorBoard's EventAccumulator (the real package,
in the oracle venv: WEBFLOW_TF_PYTHON) reads it back with each op's step stats."""

from __future__ import annotations

import time

import pytest
from summary_oracle import SKIP_REASON, TF_PYTHON, read_records, run_oracle

import webflow.compat.v1 as tf1
from webflow.protos import config_pb2, event_pb2
from webflow.summary.run_metadata import CPU_DEVICE, run_metadata_proto


def traced_run() -> tuple:
    """(graph, webflow RunMetadata, names of the ops that ran) of one FULL_TRACE Session.run."""
    graph = tf1.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf1.float32, [None, 2], name="x")
        w = tf1.Variable([[1.0], [2.0]], name="w")
        y = tf1.nn.relu(tf1.matmul(x, w) + 0.5, name="y")
        metadata = tf1.RunMetadata()
        with tf1.Session(graph=graph) as session:
            session.run(w.initializer)
            session.run(y, {x: [[1.0, 2.0], [3.0, -4.0], [0.0, 1.0]]},
                        options=tf1.RunOptions(trace_level=tf1.RunOptions.FULL_TRACE), run_metadata=metadata)
    return graph, metadata, [s.node_name for s in metadata.step_stats.dev_stats]


def test_webflows_run_metadata_becomes_step_stats_per_device():
    _, metadata, names = traced_run()
    assert "y" in names and "MatMul" in names
    before = time.time() * 1e6
    proto = run_metadata_proto(metadata)
    (device,) = proto.step_stats.dev_stats
    assert device.device == CPU_DEVICE == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert [n.node_name for n in device.node_stats] == names
    for node, stat in zip(device.node_stats, metadata.step_stats.dev_stats):
        assert node.all_end_rel_micros == node.op_end_rel_micros == round(stat.all_end_rel_micros)
        assert node.op_start_rel_micros == 0 and node.timeline_label == stat.timeline_label
        assert [[d.size for d in o.tensor_description.shape.dim] for o in node.output] == stat.output_shapes
        # microseconds since the epoch, the run taken to have ended at the conversion
        assert before - 60e6 < node.all_start_micros <= time.time() * 1e6
    # starts keep their order and spacing
    starts = [n.all_start_micros for n in device.node_stats]
    assert starts == sorted(starts)
    assert abs((starts[-1] - starts[0]) - (metadata.step_stats.dev_stats[-1].all_start_micros
                                           - metadata.step_stats.dev_stats[0].all_start_micros)) <= 1
    assert isinstance(metadata.step_stats.dev_stats[0].all_start_micros, float)  # webflow's object is unchanged


def test_add_run_metadata_writes_a_tagged_run_metadata_event_once_per_tag(tmp_path):
    graph, metadata, _ = traced_run()
    with graph.as_default():  # (a FileWriter is TF1, made outside eager execution)
        writer = tf1.summary.FileWriter(str(tmp_path), graph)
    writer.add_run_metadata(metadata, "step_7", global_step=7)
    writer.add_run_metadata(run_metadata_proto(metadata), "as_proto")
    with pytest.raises(ValueError, match="The provided tag was already used for this event type"):
        writer.add_run_metadata(metadata, "step_7")
    writer.close()
    (path,) = tmp_path.iterdir()
    events = [event_pb2.Event.FromString(r) for r in read_records(str(path))]
    tagged = [e for e in events if e.HasField("tagged_run_metadata")]
    assert [(e.step, e.tagged_run_metadata.tag) for e in tagged] == [(7, "step_7"), (0, "as_proto")]
    first = config_pb2.RunMetadata.FromString(tagged[0].tagged_run_metadata.run_metadata)
    assert [n.node_name for n in first.step_stats.dev_stats[0].node_stats] == \
           [s.node_name for s in metadata.step_stats.dev_stats]


def test_the_browser_decoder_reads_the_tagged_run_metadata(tmp_path):
    from webflow.summary import event_wire

    graph, metadata, _ = traced_run()
    with graph.as_default():
        writer = tf1.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(metadata, "step_1", 1)
    writer.close()
    (path,) = tmp_path.iterdir()
    records = read_records(str(path))
    decoded = event_wire.decode_event(records[-1])
    expected = event_pb2.Event.FromString(records[-1]).tagged_run_metadata
    assert (decoded.step, decoded.run_metadata_tag, decoded.run_metadata) == (1, "step_1", expected.run_metadata)
    assert event_wire.decode_event(records[0]).run_metadata_tag is None


def test_eager_profile_run_metadata_is_written_too(tmp_path):
    import webflow as wf
    from webflow.lab import profile

    with profile() as p:
        wf.matmul(wf.ones([2, 2]), wf.ones([2, 2]))
    proto = run_metadata_proto(p.run_metadata)
    assert proto.step_stats.dev_stats[0].device == CPU_DEVICE
    assert "MatMul" in [n.node_name for n in proto.step_stats.dev_stats[0].node_stats]


ACCUMULATOR_PROGRAM = """
from tensorboard.backend.event_processing import event_accumulator, plugin_event_accumulator
from tensorflow.core.protobuf import config_pb2

def seen(metadata, tags, graph):
    (device,) = metadata.step_stats.dev_stats
    return {"tags": tags, "device": device.device,
            "nodes": [[n.node_name, n.all_end_rel_micros, n.timeline_label,
                       [[d.size for d in o.tensor_description.shape.dim] for o in n.output]]
                      for n in device.node_stats],
            "graph_nodes": sorted(n.name for n in graph.node)}

out = {}
classic = event_accumulator.EventAccumulator(LOGDIR).Reload()
out["classic"] = seen(classic.RunMetadata("step_7"), classic.Tags()["run_metadata"], classic.Graph())
# the accumulator of TensorBoard's data providers files tagged run metadata as a tensor of the graphs plugin
plugin = plugin_event_accumulator.EventAccumulator(LOGDIR).Reload()
tags = sorted(plugin.PluginTagToContent("graph_tagged_run_metadata"))
(value,) = plugin.Tensors("step_7")
out["plugin"] = seen(config_pb2.RunMetadata.FromString(value.tensor_proto.string_val[0]), tags, plugin.Graph())
out["plugin_step"] = value.step
# and TensorFlow's own RunMetadata class knows every field of the bytes (text format drops unknown fields)
from google.protobuf import text_format
raw = open(RAW, "rb").read()
text = text_format.MessageToString(config_pb2.RunMetadata.FromString(raw))
out["same_bytes"] = text_format.Parse(text, config_pb2.RunMetadata()).SerializeToString() == raw
result = out
"""


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_tensorboards_event_accumulator_reads_the_run_metadata(tmp_path):
    graph, metadata, names = traced_run()
    logdir = tmp_path / "logs"
    with graph.as_default():
        writer = tf1.summary.FileWriter(str(logdir), graph)
    writer.add_run_metadata(metadata, "step_7", global_step=7)
    writer.close()
    raw = tmp_path / "run_metadata.pb"
    raw.write_bytes(run_metadata_proto(metadata).SerializeToString())
    result = run_oracle(f"LOGDIR = {str(logdir)!r}\nRAW = {str(raw)!r}\n" + ACCUMULATOR_PROGRAM)
    for name in ("classic", "plugin"):
        seen = result[name]
        assert seen["tags"] == ["step_7"], name
        assert seen["device"] == CPU_DEVICE
        assert [n[0] for n in seen["nodes"]] == names
        for node, stat in zip(seen["nodes"], metadata.step_stats.dev_stats):
            assert node[1] == round(stat.all_end_rel_micros) and node[2] == stat.timeline_label
            assert node[3] == stat.output_shapes
        assert set(names) <= set(seen["graph_nodes"])
    assert result["plugin_step"] == 7
    assert result["same_bytes"]
