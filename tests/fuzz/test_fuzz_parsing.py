"""Fuzzed serialized protos and text parsed by ops: Example / SequenceExample (both decoders: protobuf and the
pure-Python wire reader, plus the NumPy batch fast path), tf.io.parse_tensor and DecodeCSV. Each must answer damage
with InvalidArgumentError (as TensorFlow's kernels do), never with an error leaking from inside."""

from __future__ import annotations

import pytest
from fuzz_support import corpus_files, expect_clean, mutated, varint
from hypothesis import given
from hypothesis import strategies as st

import webflow as wf
from webflow.ops import example_parsing


def _example_seed() -> bytes:
    from webflow.protos import example_pb2, feature_pb2

    features = {
        "label": feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[7, -3])),
        "pixels": feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[0.5, 1.5, 2.5, 3.5])),
        "name": feature_pb2.Feature(bytes_list=feature_pb2.BytesList(value=[b"seven"])),
    }
    return example_pb2.Example(features=feature_pb2.Features(feature=features)).SerializeToString()


def _sequence_seed() -> bytes:
    from webflow.protos import example_pb2, feature_pb2

    step = feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[1, 2]))
    lists = feature_pb2.FeatureLists(feature_list={"steps": feature_pb2.FeatureList(feature=[step, step])})
    context = feature_pb2.Features(feature={"id": feature_pb2.Feature(bytes_list=feature_pb2.BytesList(value=[b"a"]))})
    return example_pb2.SequenceExample(context=context, feature_lists=lists).SerializeToString()


EXAMPLE = _example_seed()
SEQUENCE = _sequence_seed()
FEATURES = {
    "label": wf.io.FixedLenFeature([2], wf.int64, default_value=[0, 0]),
    "pixels": wf.io.VarLenFeature(wf.float32),
    "name": wf.io.FixedLenFeature([], wf.string, default_value=""),
}
TENSOR = wf.io.serialize_tensor(wf.constant([[1.0, 2.0], [3.0, 4.0]])).numpy()
# A Feature whose packed float list claims 2**40 bytes: a forged length inside an otherwise valid Example.
FORGED_EXAMPLE = EXAMPLE[:20] + b"\x12" + varint(2**40) + EXAMPLE[20:]


@pytest.fixture(params=["protobuf", "wire"])
def decoder(request):
    example_parsing.set_decoder(request.param)
    yield request.param
    example_parsing.set_decoder(None)


def test_mutated_single_example(decoder):
    @given(mutated(EXAMPLE))
    def check(data):
        expect_clean(lambda: wf.io.parse_single_example(data, FEATURES))

    check()


def test_mutated_example_batches(decoder):
    # Several records of one layout take the NumPy batch path (backends/numpy/example_batch.py).
    @given(st.lists(mutated(EXAMPLE), min_size=1, max_size=4), st.integers(0, 3))
    def check(damaged, copies):
        batch = [EXAMPLE] * copies + damaged
        expect_clean(lambda: wf.io.parse_example(batch, FEATURES))

    check()


def test_mutated_sequence_example(decoder):
    context = {"id": wf.io.FixedLenFeature([], wf.string, default_value="")}
    sequence = {"steps": wf.io.FixedLenSequenceFeature([2], wf.int64)}

    @given(mutated(SEQUENCE))
    def check(data):
        expect_clean(lambda: wf.io.parse_single_sequence_example(data, context, sequence))

    check()


@given(mutated(TENSOR), st.sampled_from([wf.float32, wf.int32, wf.string]))
def test_mutated_parse_tensor(data, dtype):
    expect_clean(lambda: wf.io.parse_tensor(data, dtype))


CSV_DEFAULTS = [[0], [0.0], [""], wf.constant([], wf.int64)]


@given(st.binary(max_size=40) | mutated(b'1,2.5,"x,y",9'), st.sampled_from([",", ";", "\t"]))
def test_mutated_decode_csv(record, delim):
    expect_clean(lambda: wf.io.decode_csv(record, CSV_DEFAULTS, field_delim=delim))


def test_forged_example_length(decoder):
    expect_clean(lambda: wf.io.parse_single_example(FORGED_EXAMPLE, FEATURES))
    expect_clean(lambda: wf.io.parse_example([FORGED_EXAMPLE] * 3, FEATURES))


@pytest.mark.parametrize("path", corpus_files("example"), ids=lambda p: p.name)
def test_example_corpus(decoder, path):
    data = path.read_bytes()
    expect_clean(lambda: wf.io.parse_single_example(data, FEATURES))
    expect_clean(lambda: wf.io.parse_example([data, data, EXAMPLE], FEATURES))


@pytest.mark.parametrize("path", corpus_files("parse_tensor"), ids=lambda p: p.name)
def test_parse_tensor_corpus(path):
    for dtype in (wf.float32, wf.int32, wf.string):
        expect_clean(lambda dtype=dtype: wf.io.parse_tensor(path.read_bytes(), dtype))
