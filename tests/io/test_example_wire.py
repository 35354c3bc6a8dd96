"""The two Example decoders agree, and the vectorised batch parser agrees with record-by-record parsing.

webflow parses Examples with the protobuf runtime when it is installed and with its own wire-format reader
(backends/portable/example_wire.py) when it is not (Pyodide). Here both read the same records, written by hand from
the wire format so that they include what protobuf itself never writes but must accept (unpacked repeated values,
a key given twice, a message field given twice and merged, a oneof switching member, unknown fields), every
truncation of a record, and whole parse_example calls. The NumPy batch parser (backends/numpy/example_batch.py,
records sharing one layout) must give what the record-by-record path gives.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys

import numpy as np
import pytest

import webflow as wf
from webflow.backends.numpy import example_batch
from webflow.ops import example_parsing, parsing_ops
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def delimited(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def entry(key: bytes, feature: bytes) -> bytes:
    return delimited(1, delimited(1, key) + delimited(2, feature))


def example(*entries: bytes) -> bytes:
    return delimited(1, b"".join(entries))


FLOATS = delimited(2, delimited(1, struct.pack("<3f", 1.5, -2.0, 3.25)))
UNPACKED_FLOATS = delimited(2, b"".join(b"\x0d" + struct.pack("<f", v) for v in (4.0, 5.0)))
INT64S = delimited(3, delimited(1, b"".join(varint(v) for v in (0, 1, -1, 300, 1 << 62, -(1 << 63)))))
UNPACKED_INT64S = delimited(3, varint(1 << 3 | 0) + varint(7) + varint(1 << 3 | 0) + varint(-8))
BYTES = delimited(1, delimited(1, b"a") + delimited(1, b"") + delimited(1, b"\x00\xff"))
UNKNOWN = varint(9 << 3 | 0) + varint(5) + delimited(10, b"skip me") + varint(11 << 3 | 5) + b"\0\0\0\0"

RECORDS = [
    example(entry(b"f", FLOATS), entry(b"i", INT64S), entry(b"b", BYTES)),
    example(entry(b"f", UNPACKED_FLOATS), entry(b"i", UNPACKED_INT64S)),
    example(entry(b"f", FLOATS), entry(b"f", UNPACKED_FLOATS)),  # a key twice: the last one counts
    example(entry(b"f", FLOATS + UNPACKED_FLOATS)),  # one field twice in a Feature: the lists merge
    example(entry(b"f", INT64S + FLOATS)),  # a oneof: the member seen last counts
    example(entry(b"f", FLOATS)) + example(entry(b"i", INT64S)),  # Example.features twice: merged
    example(entry(b"f", FLOATS + UNKNOWN), entry(b"e", b"")) + UNKNOWN,
    example(entry(b"", delimited(2, b""))),  # an empty key with an empty float_list
    b"",
]


def _plain(decoded: dict) -> dict:
    return {key: (feature.kind, list(feature.values)) for key, feature in decoded.items()}


def _decoded(data: bytes, decoder: str) -> object:
    example_parsing.set_decoder(decoder)
    try:
        return _plain(example_parsing.decode_example(data))
    except wf.errors.InvalidArgumentError as error:
        return str(error)
    finally:
        example_parsing.set_decoder(None)


@pytest.mark.parametrize("index", range(len(RECORDS)))
def test_both_decoders_read_the_same_features(index):
    wire, protobuf = _decoded(RECORDS[index], "wire"), _decoded(RECORDS[index], "protobuf")
    assert wire == protobuf
    assert isinstance(wire, dict)


def test_values_are_what_was_written():
    features = _decoded(RECORDS[0], "wire")
    assert features[b"f"] == ("float", [1.5, -2.0, 3.25])
    assert features[b"i"] == ("int64", [0, 1, -1, 300, 1 << 62, -(1 << 63)])
    assert features[b"b"] == ("bytes", [b"a", b"", b"\x00\xff"])
    assert _decoded(RECORDS[2], "wire") == {b"f": ("float", [4.0, 5.0])}
    assert _decoded(RECORDS[4], "wire") == {b"f": ("float", [1.5, -2.0, 3.25])}


@pytest.mark.parametrize("index", [0, 1, 6])
def test_every_truncation_is_judged_alike(index):
    """Each prefix of a record either parses to the same features in both decoders or fails in both, with
    TensorFlow's message."""
    record = RECORDS[index]
    for end in range(len(record)):
        wire, protobuf = _decoded(record[:end], "wire"), _decoded(record[:end], "protobuf")
        assert wire == protobuf, f"prefix of {end} bytes"
        if isinstance(wire, str):
            assert wire.startswith("Could not parse example input, value: '")


SPECS = [
    {"f": VarLenFeature(wf.float32), "i": VarLenFeature(wf.int64), "b": VarLenFeature(wf.string)},
    {"f": FixedLenSequenceFeature([], wf.float32, allow_missing=True, default_value=-1.0),
     "i": FixedLenSequenceFeature([], wf.int64, allow_missing=True)},
    {"missing": FixedLenFeature([2], wf.int64, default_value=[5, 6]), "e": VarLenFeature(wf.float32)},
]


def _parse(records: list, spec: dict, decoder: str) -> dict:
    example_parsing.set_decoder(decoder)
    try:
        parsed = parsing_ops.parse_example_v2(records, spec)
    finally:
        example_parsing.set_decoder(None)
    return {k: [np.asarray(t).tolist() for t in (v.indices, v.values, v.dense_shape)] if isinstance(v, wf.SparseTensor)
            else v.numpy().tolist() for k, v in parsed.items()}


@pytest.mark.parametrize("spec", range(len(SPECS)))
def test_parse_example_is_the_same_with_either_decoder(spec):
    assert _parse(RECORDS, SPECS[spec], "wire") == _parse(RECORDS, SPECS[spec], "protobuf")


def _mnist_like(count: int, label_step: int) -> list:
    rng = np.random.default_rng(0)
    return [example(entry(b"image", delimited(2, delimited(1, rng.random(784).astype("<f4").tobytes()))),
                    entry(b"label", delimited(3, delimited(1, varint(i * label_step)))),
                    entry(b"name", delimited(1, delimited(1, b"img%03d" % i))))
            for i in range(count)]


@pytest.mark.parametrize("label_step", [1, 200])
def test_the_vectorised_batch_gives_what_record_by_record_gives(label_step):
    """label_step 1: every record has the same layout (the fast path); 200: the labels' varints differ in length,
    so the records' lengths differ and the batch is parsed record by record."""
    records = _mnist_like(50, label_step)
    spec = {"image": FixedLenFeature([28, 28], wf.float32), "label": FixedLenFeature([], wf.int64),
            "name": VarLenFeature(wf.string), "other": FixedLenFeature([], wf.float32, default_value=0.5)}
    assert (example_batch.layout(records) is not None) == (label_step == 1)
    fast = _parse(records, spec, "protobuf")
    example_parsing.set_decoder("wire")
    try:  # one scalar record at a time: never the batch path
        singles = [parsing_ops.parse_single_example_v2(record, spec) for record in records]
    finally:
        example_parsing.set_decoder(None)
    one_by_one = {"label": [s["label"].numpy().tolist() for s in singles],
                  "image": [s["image"].numpy().tolist() for s in singles]}
    assert fast["label"] == one_by_one["label"] == [i * label_step for i in range(50)]
    assert fast["image"] == one_by_one["image"]
    assert fast["name"][1] == [b"img%03d" % i for i in range(50)]
    assert fast["other"] == [0.5] * 50


def test_a_batch_differing_inside_its_structure_is_not_taken_as_uniform():
    records = [example(entry(b"a", FLOATS)), example(entry(b"b", FLOATS))]  # same length, other key
    assert example_batch.layout(records) is None
    parsed = _parse(records, {"a": FixedLenFeature([3], wf.float32, default_value=[0.0, 0.0, 0.0])}, "protobuf")
    assert parsed["a"] == [[1.5, -2.0, 3.25], [0.0, 0.0, 0.0]]


def test_parsing_works_without_protobuf():
    """As in Pyodide without the protobuf package: the wire reader is chosen, and parse_example works."""
    program = (
        "import sys\n"
        "sys.modules['google'] = None\n"
        "import webflow as wf\n"
        "from webflow.ops import example_parsing\n"
        f"record = {RECORDS[0]!r}\n"
        "parsed = wf.io.parse_single_example(record, {'i': wf.io.VarLenFeature(wf.int64)})\n"
        "print(example_parsing.decoder_name(), parsed['i'].values.numpy().tolist())\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["wire", "[0,", "1,", "-1,", "300,", "4611686018427387904,", "-9223372036854775808]"]


def test_the_vectorised_batch_fills_missing_features_as_record_by_record_does():
    records = _mnist_like(4, 1)
    spec = {"label": FixedLenFeature([], wf.int64),
            "absent_rows": FixedLenSequenceFeature([2], wf.float32, allow_missing=True, default_value=-1.0),
            "absent_fixed": FixedLenFeature([2], wf.int64, default_value=[7, 8]),
            "absent_sparse": VarLenFeature(wf.string)}
    assert example_batch.layout(records) is not None
    batch = _parse(records, spec, "protobuf")
    assert parsing_ops.parse_example_v2(records, spec)["absent_rows"].shape.as_list() == [4, 0, 2]
    assert batch["absent_fixed"] == [[7, 8]] * 4
    assert batch["absent_sparse"] == [[], [], [4, 0]]
    single = parsing_ops.parse_single_example_v2(records[0], spec)
    assert single["absent_rows"].shape.as_list() == [0, 2]
    assert single["absent_fixed"].numpy().tolist() == [7, 8]


def test_example_classes_load_protobuf_only_when_used():
    program = (
        "import sys\n"
        "import webflow as wf, webflow.compat.v1 as tf\n"
        "before = 'google.protobuf' in sys.modules\n"
        "example = tf.train.Example(features=tf.train.Features(feature={\n"
        "    'x': tf.train.Feature(int64_list=tf.train.Int64List(value=[1]))}))\n"
        "print(before, wf.train.Example is tf.train.Example, wf.train.SequenceExample.__name__,\n"
        "      wf.train.FeatureLists.__name__, example.SerializeToString().hex())\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ROOT}, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    # Example{features{feature{key "x" value{int64_list{value: 1}}}}}, written from the wire format by hand
    expected = example(entry(b"x", delimited(3, delimited(1, varint(1))))).hex()
    assert done.stdout.split() == ["False", "True", "SequenceExample", "FeatureLists", expected]
    with pytest.raises(AttributeError, match="has no attribute 'NotAMessage'"):
        wf.train.NotAMessage  # noqa: B018


def _layout_a(i: int) -> bytes:
    return example(entry(b"ids", delimited(3, delimited(1, varint(i) + varint(i + 1) + varint(2)))),
                   entry(b"x", delimited(2, delimited(1, struct.pack("<2f", i, -i)))))


def _layout_b(i: int) -> bytes:
    return example(entry(b"ids", delimited(3, delimited(1, varint(300 + i)))),
                   entry(b"x", delimited(2, delimited(1, struct.pack("<4f", i, 1.0, 2.0, -i)))))


def test_a_batch_of_two_layouts_gives_what_record_by_record_gives():
    """Records of two byte layouts (different counts per record): each layout is read column-wise and the
    results merged back in batch order; example_names turn the batch path off, giving the reference."""
    records = [(_layout_a if i % 3 else _layout_b)(i) for i in range(12)]
    spec = {"ids": VarLenFeature(wf.int64),
            "x": FixedLenSequenceFeature([2], wf.float32, allow_missing=True, default_value=-9.0),
            "y": FixedLenFeature([], wf.string, default_value="none")}
    names = [f"r{i}" for i in range(12)]
    fast = _parse(records, spec, "protobuf")
    reference = {k: [np.asarray(t).tolist() for t in (v.indices, v.values, v.dense_shape)]
                 if isinstance(v, wf.SparseTensor) else v.numpy().tolist()
                 for k, v in parsing_ops.parse_example_v2(records, spec, example_names=names).items()}
    assert fast == reference
    assert fast["x"][1] == [[1.0, -1.0], [-9.0, -9.0]]


def test_the_error_of_a_two_layout_batch_names_the_first_bad_record():
    records = [_layout_a(1), _layout_a(2), _layout_b(3), _layout_a(4)]
    with pytest.raises(wf.errors.InvalidArgumentError, match=r"^Name: <unknown>, Key: x, Index: 2\.  Number of "
                                                             r"float values != expected\.  Values size: 4"):
        parsing_ops.parse_example_v2(records, {"x": FixedLenFeature([2], wf.float32)})
