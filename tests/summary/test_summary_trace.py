"""TF2's `tf.summary.trace_on / trace_export / trace_off` (summary/trace.py): the graphs of the `wf.function`s called
while tracing, written as TensorFlow 2.21 writes them (a "graph_run_metadata_graph" summary holding a RunMetadata
with function_graphs), and read back by the real TensorBoard's EventAccumulator (oracle venv: WEBFLOW_TF_PYTHON)."""

from __future__ import annotations

from pathlib import Path

import pytest
from summary_oracle import SKIP_REASON, TF_PYTHON, read_records, run_oracle

import webflow as wf
from webflow.ops import functional_ops
from webflow.protos import config_pb2, event_pb2
from webflow.summary import event_wire, summary_v2

# runs under `import tensorflow as tf` and under `import webflow as tf`
PROGRAM = """
writer = tf.summary.create_file_writer(LOGDIR)

@tf.function
def f(x):
    return tf.matmul(x, x) + 1.0

@tf.function
def g(x):
    return f(x) * 2.0

x = tf.ones([2, 2])
f(x)  # first run before the trace: not recorded, then or later
tf.summary.trace_on(graph=True, profiler=False)
f(x)
g(x)
g(x)  # the same graph again: recorded once
f(tf.ones([3, 3]))  # a new trace of f
f(tf.ones([3, 3]))
with writer.as_default():
    returned = tf.summary.trace_export("my_trace", step=3)
f(x)  # after the export the trace is off
writer.close()
"""

READ = """
import glob
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.plugins.graph import graph_util
from tensorboard.compat.proto import config_pb2  # (TensorBoard's own copy: what its graph_util takes)
import tensorflow as tf

def read(logdir):
    out = {"events": []}
    for name in sorted(glob.glob(logdir + "/*")):
        for event in tf.compat.v1.train.summary_iterator(name):
            for value in event.summary.value:
                metadata = config_pb2.RunMetadata.FromString(value.tensor.string_val[0])
                out["events"].append({
                    "step": event.step, "tag": value.tag, "metadata": value.metadata.SerializeToString().hex(),
                    "dtype": value.tensor.dtype, "shape": [d.size for d in value.tensor.tensor_shape.dim],
                    "graphs": [[[n.name, n.op] for n in fg.pre_optimization_graph.node]
                               for fg in metadata.function_graphs]})
    accumulator = plugin_event_accumulator.EventAccumulator(logdir).Reload()
    out["tensor_tags"] = accumulator.Tags()["tensors"]
    out["content"] = {k: v.decode() for k, v in accumulator.PluginTagToContent("graph_run_metadata_graph").items()}
    (value,) = accumulator.Tensors("my_trace")
    metadata = config_pb2.RunMetadata.FromString(value.tensor_proto.string_val[0])
    # what TensorBoard's graphs plugin draws: the function graphs merged into one GraphDef
    merged = graph_util.merge_graph_defs([fg.pre_optimization_graph for fg in metadata.function_graphs])
    out["merged"] = sorted(n.name for n in merged.node)
    return out

result = {"webflow": read(WF_LOGDIR), "tensorflow": read(TF_LOGDIR)}
"""


def run_in_webflow(logdir: Path) -> dict:
    scope: dict = {"tf": wf, "LOGDIR": str(logdir)}
    try:
        exec(PROGRAM, scope)
    finally:
        summary_v2.set_step(None)
        wf.summary.trace_off()
    return scope


def trace_events(logdir: Path) -> list:
    (path,) = list(logdir.iterdir())
    return [e for e in (event_pb2.Event.FromString(r) for r in read_records(str(path))) if e.HasField("summary")]


def test_trace_export_writes_each_function_graph_once(tmp_path):
    scope = run_in_webflow(tmp_path)
    assert scope["returned"] is None
    (event,) = trace_events(tmp_path)
    (value,) = event.summary.value
    assert (event.step, value.tag) == (3, "my_trace")
    assert value.metadata.plugin_data.plugin_name == "graph_run_metadata_graph"
    assert value.metadata.plugin_data.content == b"1"
    assert value.tensor.dtype == wf.string.as_datatype_enum and not value.tensor.tensor_shape.dim
    metadata = config_pb2.RunMetadata.FromString(value.tensor.string_val[0])
    graphs = [fg.pre_optimization_graph for fg in metadata.function_graphs]
    assert [[n.op for n in graph.node] for graph in graphs] == [
        ["_Arg", "PartitionedCall", "Const", "Mul", "_Retval"],
        ["_Arg", "MatMul", "Const", "AddV2", "_Retval"]]
    call, argument = graphs[0].node[1], graphs[1].node[0]
    assert (argument.name, argument.attr["T"].type, argument.attr["index"].i) == ("x", wf.float32.as_datatype_enum, 0)
    assert call.attr["f"].func.name == "f"  # the call names the function it calls
    assert list(graphs[1].node[-1].input) == ["add"]
    assert graphs[1].node[1].attr["_output_shapes"].list.shape[0].dim[0].size == 3
    assert functional_ops.FIRST_RUN_LISTENERS == []  # the export turned the trace off
    # the browser's decoder (webflow.lab's TensorBoard panel) reads the event too
    (record,) = [r for r in read_records(str(next(tmp_path.iterdir()))) if event_wire.decode_event(r).values]
    (decoded,) = event_wire.decode_event(record).values
    assert (decoded.tag, decoded.plugin_name) == ("my_trace", "graph_run_metadata_graph")


def test_export_without_a_trace_is_an_error_and_trace_off_discards():
    with pytest.raises(ValueError, match="Must enable trace before export through tf.summary.trace_on."):
        wf.summary.trace_export("nothing", step=0)
    wf.summary.trace_on()
    with pytest.warns(UserWarning, match="Trace already enabled"):
        wf.summary.trace_on()
    wf.summary.trace_off()
    wf.summary.trace_off()  # twice: harmless
    assert functional_ops.FIRST_RUN_LISTENERS == []
    with pytest.raises(ValueError, match="Must enable trace before export"):
        wf.summary.trace_export("nothing", step=0)


def test_export_without_a_default_writer_writes_nothing_and_stops_the_trace():
    wf.summary.trace_on()
    wf.function(lambda x: x + 1.0)(wf.constant(1.0))
    assert wf.summary.trace_export("t", step=1) is None
    assert functional_ops.FIRST_RUN_LISTENERS == []


@pytest.mark.skipif(TF_PYTHON is None, reason=SKIP_REASON)
def test_tensorboard_reads_the_traced_graphs_as_it_reads_tensorflows(tmp_path):
    run_in_webflow(tmp_path / "wf")
    run_oracle(f"import tensorflow as tf\nLOGDIR = {str(tmp_path / 'tf')!r}\n" + PROGRAM + "\nresult = True\n")
    result = run_oracle(f"WF_LOGDIR = {str(tmp_path / 'wf')!r}\nTF_LOGDIR = {str(tmp_path / 'tf')!r}\n" + READ)
    ours, theirs = result["webflow"], result["tensorflow"]
    assert ours["tensor_tags"] == theirs["tensor_tags"] == ["my_trace"]
    assert ours["content"] == theirs["content"] == {"my_trace": "1"}
    (mine,), (expected,) = ours["events"], theirs["events"]
    for key in ("step", "tag", "metadata", "dtype", "shape"):
        assert mine[key] == expected[key], key
    # TensorFlow also lists the functions it runs eager ops with (_EagerConst ...): compare the user's functions,
    # whose bodies differ only in TensorFlow's Identity before each result and the result's name
    users = [g for g in expected["graphs"] if any(op in ("MatMul", "Mul") for _, op in g)]
    assert len(users) == len(mine["graphs"]) == 2

    def body(graph):
        return [node for node in graph if node[1] not in ("Identity", "_Retval")]

    assert [body(g) for g in mine["graphs"]] == [body(g) for g in users]
    assert ours["merged"] == ["graph_1/PartitionedCall", "graph_1/mul", "graph_1/mul/y", "graph_1/output_0_RetVal",
                              "graph_1/x", "graph_2/MatMul", "graph_2/add", "graph_2/add/y", "graph_2/output_0_RetVal",
                              "graph_2/x"]


@pytest.mark.parametrize("graph, profiler, plugin", [(True, False, "graph_run_metadata_graph"),
                                                     (True, True, "graph_run_metadata"),
                                                     (False, False, "graph_run_metadata")])
def test_the_plugin_follows_tensorflows_choice(tmp_path, graph, profiler, plugin):
    writer = wf.summary.create_file_writer(str(tmp_path))
    if profiler:
        with pytest.warns(UserWarning, match="webflow has no TensorFlow profiler"):
            wf.summary.trace_on(graph=graph, profiler=profiler)
    else:
        wf.summary.trace_on(graph=graph, profiler=profiler)
    wf.function(lambda x: x * 3.0)(wf.constant(2.0))
    with writer.as_default(step=5):
        wf.summary.trace_export("t")
    writer.close()
    (event,) = trace_events(tmp_path)
    (value,) = event.summary.value
    assert (event.step, value.metadata.plugin_data.plugin_name) == (5, plugin)
    graphs = config_pb2.RunMetadata.FromString(value.tensor.string_val[0]).function_graphs
    assert len(graphs) == (1 if graph or profiler else 0)
