"""summary/event_wire.py (Event protos decoded without protobuf) against protobuf's own parsing of the same bytes:
messages built field by field with webflow's generated classes (every field the decoder reads, negative numbers,
packed and unpacked repeated fields, values filled from one element), and every record of event files written by
webflow's TF1 FileWriter and TF2 writer."""

from __future__ import annotations

import glob
import os
import struct

import numpy as np
import pytest

from webflow.protos import event_pb2, graph_pb2, histogram_pb2, summary_pb2, tensor_pb2
from webflow.summary import event_wire
from webflow.summary.summary_iterator import summary_iterator


def _tensor(dtype: int, shape: list, **values) -> tensor_pb2.TensorProto:
    proto = tensor_pb2.TensorProto(dtype=dtype, **values)
    for size in shape:
        proto.tensor_shape.dim.add(size=size)
    return proto


TENSORS = [  # (proto, the values the decoder must give)
    (_tensor(1, [], float_val=[0.5]), [0.5]),
    (_tensor(1, [3], float_val=[2.0]), [2.0, 2.0, 2.0]),  # one value fills the tensor, as in TensorFlow
    (_tensor(2, [2], tensor_content=struct.pack("<2d", 1.25, -3.5)), [1.25, -3.5]),
    (_tensor(3, [3], int_val=[-1, 7, -2147483648]), [-1, 7, -2147483648]),
    (_tensor(9, [2], int64_val=[-5, 1 << 40]), [-5, 1 << 40]),
    (_tensor(10, [2], bool_val=[True, False]), [True, False]),
    (_tensor(19, [2], half_val=[0x3C00, 0xC000]), [1.0, -2.0]),  # float16 bit patterns
    (_tensor(7, [2], string_val=[b"5", b"\x89PNG"]), [b"5", b"\x89PNG"]),
    (_tensor(2, [2, 3], tensor_content=np.arange(6, dtype=np.float64).tobytes()), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
]


@pytest.mark.parametrize("proto, values", TENSORS)
def test_tensor(proto, values) -> None:
    decoded = event_wire.decode_tensor(proto.SerializeToString())
    assert decoded.dtype == proto.dtype
    assert decoded.shape == [d.size for d in proto.tensor_shape.dim]
    assert decoded.values == values


def test_event_with_every_value_kind() -> None:
    histo = histogram_pb2.HistogramProto(min=-1.5, max=2.5, num=4, sum=1.0, sum_squares=9.5,
                                         bucket_limit=[-1.0, 0.0, 1e308], bucket=[1, 0, 3])
    metadata = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    summary = summary_pb2.Summary(value=[
        summary_pb2.Summary.Value(tag="loss/é", simple_value=0.1),
        summary_pb2.Summary.Value(tag="h", histo=histo),
        summary_pb2.Summary.Value(tag="img", image=summary_pb2.Summary.Image(height=3, width=4, colorspace=3,
                                                                             encoded_image_string=b"\x89PNG..")),
        summary_pb2.Summary.Value(tag="t", metadata=metadata, tensor=_tensor(7, [], string_val=[b"hi"])),
    ])
    event = event_pb2.Event(wall_time=1700000000.25, step=-3, summary=summary)
    decoded = event_wire.decode_event(event.SerializeToString())
    assert (decoded.wall_time, decoded.step, decoded.file_version, decoded.graph_def) == (1700000000.25, -3, None, None)
    loss, h, img, t = decoded.values
    assert loss.tag == "loss/é" and loss.simple_value == float(np.float32(0.1)) and not loss.has_metadata
    assert (h.histo.min, h.histo.max, h.histo.num, h.histo.sum, h.histo.sum_squares) == (-1.5, 2.5, 4, 1.0, 9.5)
    assert h.histo.bucket_limit == list(histo.bucket_limit) and h.histo.bucket == list(histo.bucket)
    assert (img.image.height, img.image.width, img.image.colorspace, img.image.encoded) == (3, 4, 3, b"\x89PNG..")
    assert t.has_metadata and t.plugin_name == "text" and t.tensor.values == [b"hi"]


def test_graph_and_file_version() -> None:
    graph = graph_pb2.GraphDef()
    graph.node.add(name="x", op="Placeholder")
    graph.node.add(name="scope/add", op="AddV2", input=["x", "x:0", "^init"])
    decoded = event_wire.decode_event(event_pb2.Event(step=1, graph_def=graph.SerializeToString()).SerializeToString())
    assert event_wire.graph_nodes(decoded.graph_def) == [("x", "Placeholder", []),
                                                         ("scope/add", "AddV2", ["x", "x:0", "^init"])]
    version = event_wire.decode_event(event_pb2.Event(file_version="brain.Event:2").SerializeToString())
    assert version.file_version == "brain.Event:2" and version.values == []


def test_damaged_bytes_raise_value_error() -> None:
    data = event_pb2.Event(step=5, file_version="brain.Event:2").SerializeToString()
    with pytest.raises(ValueError):
        event_wire.decode_event(data[:-3])


def _compare(proto_event, ours) -> None:
    assert ours.wall_time == proto_event.wall_time and ours.step == proto_event.step
    assert (ours.graph_def is not None) == proto_event.HasField("graph_def")
    values = proto_event.summary.value if proto_event.HasField("summary") else []
    assert len(ours.values) == len(values)
    for mine, value in zip(ours.values, values):
        assert mine.tag == value.tag and mine.plugin_name == value.metadata.plugin_data.plugin_name
        kind = value.WhichOneof("value")
        if kind == "simple_value":
            assert mine.simple_value == value.simple_value
        elif kind == "histo":
            assert mine.histo.bucket == list(value.histo.bucket)
            assert mine.histo.bucket_limit == list(value.histo.bucket_limit)
        elif kind == "image":
            assert mine.image.encoded == value.image.encoded_image_string
        elif kind == "tensor":
            t = value.tensor
            flat = (list(t.string_val) or list(t.float_val) or list(t.double_val)
                    or np.frombuffer(t.tensor_content, {1: np.float32, 2: np.float64}[t.dtype]).tolist())
            assert mine.tensor.values == flat and mine.tensor.shape == [d.size for d in t.tensor_shape.dim]


def test_every_record_of_webflows_event_files(tmp_path) -> None:
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lab"))
    from test_tensorboard_panel import write_webflow_tf1, write_webflow_tf2

    write_webflow_tf1(str(tmp_path / "tf1"))
    write_webflow_tf2(str(tmp_path / "tf2"))
    paths = glob.glob(str(tmp_path / "*" / "*tfevents*"))
    assert len(paths) == 2
    count = 0
    for path in paths:
        for record, proto_event in zip(_records(path), summary_iterator(path)):
            _compare(proto_event, event_wire.decode_event(record))
            count += 1
    assert count > 10


def _records(path: str):
    from webflow.io.tfrecord import tf_record_iterator

    return tf_record_iterator(path)
