"""Fuzzed event records for webflow's own event decoder (summary/event_wire.py, what the TensorBoard view in
webflow/lab reads): damage raises ValueError (LogdirReader turns it into a note on the run), nothing else."""

from __future__ import annotations

import pytest
from fuzz_support import corpus_files, expect_clean, mutated, varint
from hypothesis import given

from webflow.summary import event_wire


def _event_seed() -> bytes:
    from webflow.protos import event_pb2, histogram_pb2, summary_pb2, tensor_pb2

    tensor = tensor_pb2.TensorProto(dtype=1, float_val=[1.5])
    tensor.tensor_shape.dim.add(size=3)
    values = [
        summary_pb2.Summary.Value(tag="loss", simple_value=0.25),
        summary_pb2.Summary.Value(tag="w", histo=histogram_pb2.HistogramProto(min=0, max=1, num=2,
                                                                           bucket_limit=[0.5, 1], bucket=[1, 1])),
        summary_pb2.Summary.Value(tag="img", image=summary_pb2.Summary.Image(height=1, width=1, colorspace=1,
                                                                          encoded_image_string=b"\x89PNG")),
        summary_pb2.Summary.Value(tag="t", tensor=tensor),
    ]
    return event_pb2.Event(wall_time=1.0, step=3, summary=summary_pb2.Summary(value=values)).SerializeToString()


EVENT = _event_seed()


@given(mutated(EVENT))
def test_mutated_events(data):
    expect_clean(lambda: event_wire.decode_event(data), allowed=(ValueError,))


def _tensor_event(tensor: bytes) -> bytes:
    value = b"\x0a\x01t" + b"\x42" + varint(len(tensor)) + tensor          # Summary.Value{tag: "t", tensor: ...}
    summary = b"\x0a" + varint(len(value)) + value
    return b"\x2a" + varint(len(summary)) + summary                          # Event.summary (field 5)


@pytest.mark.parametrize("tensor", [
    b"\x08\x01\x12\x0a\x12\x08\x08" + varint(2**40) + b"\x2d\x00\x00\xc0\x3f",  # shape [2**40], one float_val
    b"\x08\x01\x22\x03abc",                                               # float tensor_content of 3 bytes
    b"\x08\x01\x2a\x03abc",                                               # packed float_val of 3 bytes
    b"\x08\x01\x28\x05",                                                  # float_val sent as a varint
], ids=["shape_2e40", "content_3_bytes", "packed_3_bytes", "float_as_varint"])
def test_forged_tensor_values(tensor):
    expect_clean(lambda: event_wire.decode_event(_tensor_event(tensor)), allowed=(ValueError,))


@pytest.mark.parametrize("path", corpus_files("event_wire"), ids=lambda p: p.name)
def test_event_wire_corpus(path):
    expect_clean(lambda: event_wire.decode_event(path.read_bytes()), allowed=(ValueError,))
