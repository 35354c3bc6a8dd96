"""webflow/protos: TensorFlow's messages. Round trips and hand-built wire bytes here; with WEBFLOW_TF_PYTHON set
(tests/tf_subprocess.py), every field of every message compared with TensorFlow's own descriptors, the same
messages built by TensorFlow serialized to identical bytes, and both sets of protos imported into one process.
`import webflow` must not load protobuf (Pyodide has none by default)."""

from __future__ import annotations

import glob
import importlib
import json
import os
import struct
import subprocess
import sys

import pytest
from conftest import require_or_skip
from google.protobuf import descriptor_pool, text_format
from google.protobuf.internal import api_implementation
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow

from webflow.io.crc32c import masked_crc32c
from webflow.protos import (
    checkpoint_state_pb2,
    event_pb2,
    example_pb2,
    feature_pb2,
    graph_pb2,
    meta_graph_pb2,
    pool,
    summary_pb2,
    tensor_bundle_pb2,
    tensor_pb2,
    types_pb2,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTOS = os.path.join(ROOT, "webflow", "protos")

# Fields of TensorFlow's messages that webflow's .proto files leave out (each file's header comment says so).
LEFT_OUT = {"tensorflow.NodeDef": ["experimental_type"], "tensorflow.OpDef.ArgDef": ["experimental_full_type"],
            "tensorflow.GraphDef": ["debug_info"], "tensorflow.RunMetadata": ["cost_graph"]}


def modules() -> list:
    names = sorted(os.path.basename(path)[:-3] for path in glob.glob(os.path.join(PROTOS, "*_pb2.py")))
    return [importlib.import_module(f"webflow.protos.{name}") for name in names]


def test_every_proto_file_has_its_module_in_webflows_pool() -> None:
    protos = sorted(os.path.basename(path)[:-len(".proto")] for path in glob.glob(os.path.join(PROTOS, "*.proto")))
    loaded = modules()
    assert sorted(module.__name__.rsplit(".", 1)[1] for module in loaded) == sorted(f"{name}_pb2" for name in protos)
    for module in loaded:
        assert module.DESCRIPTOR.pool is pool.POOL
        assert module.DESCRIPTOR.package == "tensorflow"
        assert module.DESCRIPTOR.name == f"webflow/protos/{module.__name__.rsplit('.', 1)[1][:-4]}.proto"
    if api_implementation.Type() != "python":  # (pure-Python protobuf also registers them there: README.md)
        with pytest.raises(KeyError):  # not in protobuf's default pool, where TensorFlow puts its own
            descriptor_pool.Default().FindMessageTypeByName("tensorflow.Event")


def test_the_committed_modules_are_what_the_proto_files_generate() -> None:
    protoc_python = os.path.join(ROOT, ".venv-protoc", "bin", "python")
    if not os.path.isfile(protoc_python):
        require_or_skip("no .venv-protoc (make protos makes it): cannot run protoc")
    done = subprocess.run([protoc_python, os.path.join(ROOT, "tools", "build_protos.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_import_webflow_loads_no_protobuf() -> None:
    program = ("import sys, tempfile, os\n"
               "import webflow, webflow.compat.v1 as tf\n"
               "path = os.path.join(tempfile.mkdtemp(), 'r.tfrecord')\n"
               "with tf.io.TFRecordWriter(path, 'GZIP') as w: w.write(b'x')\n"
               "assert list(tf.io.tf_record_iterator(path, 'GZIP')) == [b'x']\n"
               "print(sorted(m for m in sys.modules if m.startswith(('google.protobuf', 'webflow.protos'))))")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]"


def _scalar_event() -> event_pb2.Event:
    event = event_pb2.Event(wall_time=1234.5, step=7)
    event.summary.value.add(tag="loss", simple_value=0.25)
    return event


def test_an_event_in_wire_format_built_by_hand() -> None:
    """Event{wall_time=1 (double, tag 0x09), step=2 (varint, 0x10), summary=5 (bytes, 0x2a)}; Summary{value=1};
    Summary.Value{tag=1 (0x0a), simple_value=2 (float, 0x15)}."""
    value = b"\x0a\x04loss" + b"\x15" + struct.pack("<f", 0.25)
    summary = b"\x0a" + bytes([len(value)]) + value
    expected = b"\x09" + struct.pack("<d", 1234.5) + b"\x10\x07" + b"\x2a" + bytes([len(summary)]) + summary
    event = _scalar_event()
    assert event.SerializeToString() == expected
    parsed = event_pb2.Event.FromString(expected)
    assert parsed == event and parsed.WhichOneof("what") == "summary"
    assert parsed.summary.value[0].WhichOneof("value") == "simple_value"


def test_round_trips_and_unknown_fields() -> None:
    example = example_pb2.Example()
    example.features.feature["label"].int64_list.value.extend([-3, 2**40])
    example.features.feature["pixels"].float_list.value.extend([0.5, 1.5])
    example.features.feature["name"].bytes_list.value.append(b"seven")
    assert example_pb2.Example.FromString(example.SerializeToString()) == example
    assert isinstance(example.features.feature["name"], feature_pb2.Feature)

    # A NodeDef field webflow leaves out (7, experimental_type) survives a round trip as an unknown field.
    node = b"\x0a\x01a\x12\x05Const" + b"\x3a\x02\x08\x01"
    graph = graph_pb2.GraphDef.FromString(b"\x0a" + bytes([len(node)]) + node)
    assert graph.node[0].op == "Const"
    assert graph.SerializeToString() == b"\x0a" + bytes([len(node)]) + node

    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[1.0, 2.0])
    tensor.tensor_shape.dim.add(size=2)
    assert text_format.Parse(text_format.MessageToString(tensor), tensor_pb2.TensorProto()) == tensor

    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.any_info.Pack(graph)
    assert meta.meta_info_def.any_info.type_url == "type.googleapis.com/tensorflow.GraphDef"
    unpacked = graph_pb2.GraphDef()
    assert meta.meta_info_def.any_info.Unpack(unpacked) and unpacked == graph


# --- with real TensorFlow ---

SCHEMA = r'''
def schema(descriptor):
    """{full name: {field: [number, label, type, type name, oneof]}} of a message and its nested messages, and
    {full name: {value: number}} of its enums (top-level enums: schema of an EnumDescriptor)."""
    from google.protobuf import descriptor_pb2
    if hasattr(descriptor, "values_by_name"):
        return {descriptor.full_name: {v.name: v.number for v in descriptor.values}}
    proto = descriptor_pb2.DescriptorProto()
    descriptor.CopyToProto(proto)
    out = {}
    def walk(message, name):
        oneofs = [o.name for o in message.oneof_decl]
        out[name] = {f.name: [f.number, f.label, f.type, f.type_name,
                              oneofs[f.oneof_index] if f.HasField("oneof_index") else None] for f in message.field}
        for enum in message.enum_type:
            out[name + "." + enum.name] = {v.name: v.number for v in enum.value}
        for nested in message.nested_type:
            walk(nested, name + "." + nested.name)
    walk(proto, descriptor.full_name)
    return out
'''

TF_MODULES = ["tensorflow.core.framework." + name for name in (
    "attr_value_pb2", "function_pb2", "graph_pb2", "node_def_pb2", "op_def_pb2", "resource_handle_pb2",
    "summary_pb2", "tensor_pb2", "tensor_shape_pb2", "tensor_slice_pb2", "types_pb2", "versions_pb2")] + [
    "tensorflow.core.protobuf.meta_graph_pb2", "tensorflow.core.protobuf.saver_pb2",
    "tensorflow.core.protobuf.struct_pb2", "tensorflow.core.protobuf.tensor_bundle_pb2",
    "tensorflow.core.util.event_pb2", "tensorflow.python.training.checkpoint_state_pb2",
    "tensorflow.core.example.example_pb2", "tensorflow.core.example.feature_pb2"]


def _top_level_names() -> list[str]:
    names = []
    for module in modules():
        names += [d.full_name for d in module.DESCRIPTOR.message_types_by_name.values()]
        names += [d.full_name for d in module.DESCRIPTOR.enum_types_by_name.values()]
    return names


def _ours() -> dict:
    scope: dict = {}
    exec(SCHEMA, scope)
    out: dict = {}
    for name in _top_level_names():
        try:
            descriptor = pool.POOL.FindMessageTypeByName(name)
        except KeyError:
            descriptor = pool.POOL.FindEnumTypeByName(name)
        out.update(scope["schema"](descriptor))
    return json.loads(json.dumps(out))  # lists, as they come back from TensorFlow


_TF_SCHEMA = SCHEMA + f"""
import importlib
from google.protobuf import descriptor_pool
for module in {TF_MODULES!r}:
    importlib.import_module(module)
found = {{}}
for name in {{names!r}}:
    try:
        descriptor = descriptor_pool.Default().FindMessageTypeByName(name)
    except KeyError:
        descriptor = descriptor_pool.Default().FindEnumTypeByName(name)
    found.update(schema(descriptor))
result = found
"""

_TF_MESSAGES = r"""
from google.protobuf import text_format
from tensorflow.core.example import example_pb2
from tensorflow.core.framework import summary_pb2, types_pb2
from tensorflow.core.protobuf import tensor_bundle_pb2
from tensorflow.core.util import event_pb2
from tensorflow.python.training import checkpoint_state_pb2
import tensorflow as tf2

out = {}
event = event_pb2.Event(wall_time=1234.5, step=7)
event.summary.value.add(tag="loss", simple_value=0.25)
out["scalar_event"] = event.SerializeToString().hex()

event = event_pb2.Event(wall_time=99.0, step=3)
value = event.summary.value.add(tag="weights")
value.histo.min, value.histo.max, value.histo.num, value.histo.sum, value.histo.sum_squares = -1.0, 2.0, 3.0, 1.5, 5.25
value.histo.bucket_limit.extend([-1.0, 0.0, 2.0, 1.7976931348623157e308])
value.histo.bucket.extend([1.0, 0.0, 2.0, 0.0])
value = event.summary.value.add(tag="accuracy")
value.metadata.plugin_data.plugin_name = "scalars"
value.metadata.data_class = summary_pb2.DATA_CLASS_SCALAR
value.tensor.dtype = types_pb2.DT_FLOAT
value.tensor.float_val.append(0.875)
image = event.summary.value.add(tag="digit").image
image.height, image.width, image.colorspace, image.encoded_image_string = 2, 3, 1, b"\x89PNG"
out["summary_event"] = event.SerializeToString().hex()
out["file_version"] = event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString().hex()

example = example_pb2.Example()
example.features.feature["label"].int64_list.value.extend([-3, 2**40])
example.features.feature["pixels"].float_list.value.extend([0.5, 1.5])
example.features.feature["name"].bytes_list.value.append(b"seven")
out["example"] = example.SerializeToString(deterministic=True).hex()

entry = tensor_bundle_pb2.BundleEntryProto(dtype=types_pb2.DT_FLOAT, shard_id=0, offset=64, size=24, crc32c=0xA282EAD8)
entry.shape.dim.add(size=2)
entry.shape.dim.add(size=3)
out["bundle_entry"] = entry.SerializeToString().hex()

state = checkpoint_state_pb2.CheckpointState(
    model_checkpoint_path="model.ckpt-20", all_model_checkpoint_paths=["model.ckpt-10", "model.ckpt-20"],
    all_model_checkpoint_timestamps=[1700000000.5, 1700000100.25], last_preserved_timestamp=1699999999.0)
out["checkpoint_state"] = text_format.MessageToString(state)

graph = tf.Graph()
with graph.as_default():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(tf.ones([3, 2]), name="w")
    @tf2.function
    def twice_relu(a):
        return tf2.nn.relu(a) * 2.0
    y = twice_relu(tf.matmul(x, w))
    saver = tf.train.Saver()
    meta = tf.train.export_meta_graph(graph=graph, saver_def=saver.as_saver_def())
out["graph_def"] = graph.as_graph_def().SerializeToString(deterministic=True).hex()
out["meta_graph_def"] = meta.SerializeToString(deterministic=True).hex()
result = out
"""

_TF_AND_WEBFLOW_IN_ONE_PROCESS = f"""
import sys, types
webflow = types.ModuleType("webflow")  # webflow's protos only: not the package __init__ (the engine)
webflow.__path__ = [{os.path.join(ROOT, "webflow")!r}]
sys.modules["webflow"] = webflow
from tensorflow.core.util import event_pb2 as tf_event_pb2
from webflow.protos import event_pb2, meta_graph_pb2, example_pb2
event = event_pb2.Event(step=4)
event.summary.value.add(tag="t", simple_value=1.0)
theirs = tf_event_pb2.Event.FromString(event.SerializeToString())
result = [theirs.summary.value[0].tag, event_pb2.Event.DESCRIPTOR.full_name, tf_event_pb2.Event.DESCRIPTOR.full_name]
"""


@pytest.fixture(scope="module")
def tensorflow_side() -> dict:
    programs = {"schema": _TF_SCHEMA.replace("{names!r}", repr(_top_level_names())),
                "messages": _TF_MESSAGES, "one_process": _TF_AND_WEBFLOW_IN_ONE_PROCESS}
    return run_tensorflow(programs)


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
def test_every_field_has_tensorflows_number_type_and_oneof(tensorflow_side: dict) -> None:
    ours, theirs = _ours(), tensorflow_side["schema"]
    assert set(ours) <= set(theirs), sorted(set(ours) - set(theirs))
    left_out = {}
    for name, fields in ours.items():
        for field, description in fields.items():
            assert theirs[name].get(field) == description, (name, field, description, theirs[name].get(field))
        missing = sorted(set(theirs[name]) - set(fields))
        if missing:
            left_out[name] = missing
    assert left_out == LEFT_OUT


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
def test_messages_serialize_to_tensorflows_bytes(tensorflow_side: dict) -> None:
    theirs = tensorflow_side["messages"]
    assert _scalar_event().SerializeToString().hex() == theirs["scalar_event"]

    event = event_pb2.Event(wall_time=99.0, step=3)
    value = event.summary.value.add(tag="weights")
    value.histo.min, value.histo.max, value.histo.num, value.histo.sum, value.histo.sum_squares = -1, 2, 3, 1.5, 5.25
    value.histo.bucket_limit.extend([-1.0, 0.0, 2.0, 1.7976931348623157e308])
    value.histo.bucket.extend([1.0, 0.0, 2.0, 0.0])
    value = event.summary.value.add(tag="accuracy")
    value.metadata.plugin_data.plugin_name = "scalars"
    value.metadata.data_class = summary_pb2.DATA_CLASS_SCALAR
    value.tensor.dtype = types_pb2.DT_FLOAT
    value.tensor.float_val.append(0.875)
    image = event.summary.value.add(tag="digit").image
    image.height, image.width, image.colorspace, image.encoded_image_string = 2, 3, 1, b"\x89PNG"
    assert event.SerializeToString().hex() == theirs["summary_event"]
    assert event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString().hex() == \
        theirs["file_version"]

    example = example_pb2.Example()
    example.features.feature["label"].int64_list.value.extend([-3, 2**40])
    example.features.feature["pixels"].float_list.value.extend([0.5, 1.5])
    example.features.feature["name"].bytes_list.value.append(b"seven")
    assert example.SerializeToString(deterministic=True).hex() == theirs["example"]

    entry = tensor_bundle_pb2.BundleEntryProto(dtype=types_pb2.DT_FLOAT, shard_id=0, offset=64, size=24,
                                               crc32c=masked_crc32c(b""))
    entry.shape.dim.add(size=2)
    entry.shape.dim.add(size=3)
    assert entry.SerializeToString().hex() == theirs["bundle_entry"]

    state = checkpoint_state_pb2.CheckpointState(
        model_checkpoint_path="model.ckpt-20", all_model_checkpoint_paths=["model.ckpt-10", "model.ckpt-20"],
        all_model_checkpoint_timestamps=[1700000000.5, 1700000100.25], last_preserved_timestamp=1699999999.0)
    assert text_format.MessageToString(state) == theirs["checkpoint_state"]
    assert text_format.Parse(theirs["checkpoint_state"], checkpoint_state_pb2.CheckpointState()) == state


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
def test_tensorflows_graphs_round_trip_unchanged(tensorflow_side: dict) -> None:
    """A GraphDef with a function library and a MetaGraphDef with its op list, collections and SaverDef, written
    by TensorFlow, parsed by webflow and serialized again: the same bytes."""
    theirs = tensorflow_side["messages"]
    graph = graph_pb2.GraphDef.FromString(bytes.fromhex(theirs["graph_def"]))
    assert {node.op for node in graph.node} >= {"Placeholder", "VariableV2", "MatMul", "PartitionedCall"}
    assert len(graph.library.function) == 1
    assert graph.SerializeToString(deterministic=True).hex() == theirs["graph_def"]
    meta = meta_graph_pb2.MetaGraphDef.FromString(bytes.fromhex(theirs["meta_graph_def"]))
    assert meta.saver_def.version == 2 and "variables" in meta.collection_def
    assert any(op.name == "MatMul" for op in meta.meta_info_def.stripped_op_list.op)
    assert meta.SerializeToString(deterministic=True).hex() == theirs["meta_graph_def"]


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
def test_tensorflow_and_webflow_protos_import_into_one_process(tensorflow_side: dict) -> None:
    assert tensorflow_side["one_process"] == ["t", "tensorflow.Event", "tensorflow.Event"]
