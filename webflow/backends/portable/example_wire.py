"""A small pure-Python reader of `tf.train.Example` and `SequenceExample` bytes (the protobuf wire format).

Used by the parsing ops when the `protobuf` package is missing (Pyodide by default), and by the NumPy batch
parser (backends/numpy/example_batch.py) to find where each value sits inside a record. The messages
(webflow/protos/example.proto, feature.proto):

    Example         { Features features = 1; }
    SequenceExample { Features context = 1; FeatureLists feature_lists = 2; }
    Features        { map<string, Feature> feature = 1; }       a map entry: { key = 1; value = 2; }
    FeatureLists    { map<string, FeatureList> feature_list = 1; }
    FeatureList     { repeated Feature feature = 1; }
    Feature         { oneof kind { BytesList bytes_list = 1; FloatList float_list = 2; Int64List int64_list = 3; } }
    BytesList { repeated bytes value = 1; }   FloatList { repeated float value = 1; }
    Int64List { repeated int64 value = 1; }

A field is a varint key `field_number << 3 | wire_type`; wire types: 0 varint, 1 eight bytes, 2 a varint length
then that many bytes, 5 four bytes. Floats and int64s are "packed" (one length-delimited run) as writers emit
them, but a reader must also take them one by one. As protobuf does, a message field that appears twice is merged,
a map key that appears twice keeps its last value, and a oneof keeps the member seen last.

A decoded feature is `(kind, values)`: kind "bytes", "float", "int64" or None (a Feature with no list set);
values a list (floats as an `array.array("f")`).
"""

from __future__ import annotations

import array
import sys
from typing import Any

KINDS = {1: "bytes", 2: "float", 3: "int64"}


class WireError(ValueError):
    """The bytes are not a valid message of the expected type."""


def read_varint(data: Any, pos: int, end: int) -> tuple[int, int]:
    """(value, position after it) of the base-128 varint at `pos`: 7 bits a byte, low bits first."""
    result = shift = 0
    while True:
        if pos >= end or shift > 63:
            raise WireError("truncated varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def fields(data: Any, pos: int, end: int) -> Any:
    """Yields (field number, wire type, start, stop, varint value) for each field of the message in
    data[pos:end]; for wire type 2 data[start:stop] is the payload, for 0 `varint` the value."""
    while pos < end:
        key, pos = read_varint(data, pos, end)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise WireError("field number 0")
        if wire_type == 0:
            start = pos
            value, pos = read_varint(data, pos, end)
            yield number, 0, start, pos, value
            continue
        if wire_type == 2:
            length, pos = read_varint(data, pos, end)
            stop = pos + length
        elif wire_type in (1, 5):
            stop = pos + (8 if wire_type == 1 else 4)
        else:
            raise WireError(f"wire type {wire_type} not expected")
        if stop > end:
            raise WireError("truncated field")
        yield number, wire_type, pos, stop, None
        pos = stop


def _signed64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


class _Feature:
    """One Feature being read: its kind, its values and (when asked) where each value's bytes are."""

    __slots__ = ("kind", "values", "spans")

    def __init__(self) -> None:
        self.kind: str | None = None
        self.values: Any = []
        self.spans: list = []

    def switch(self, kind: str) -> None:
        if kind != self.kind:  # a oneof: a new member clears the old one
            self.kind = kind
            self.values = array.array("f") if kind == "float" else []
            self.spans = []


def _floats(data: Any, start: int, stop: int) -> array.array:
    values = array.array("f", bytes(data[start:stop]))
    if sys.byteorder == "big":
        values.byteswap()
    return values


def _read_list(data: Any, start: int, end: int, feature: _Feature, payloads: list | None) -> None:
    """The values of a BytesList, FloatList or Int64List (feature.kind) into `feature`."""
    kind = feature.kind
    for number, wire_type, begin, stop, varint in fields(data, start, end):
        if number != 1:
            continue  # an unknown field: skipped, as protobuf does
        if kind == "bytes" and wire_type == 2:
            feature.values.append(bytes(data[begin:stop]))
            spans = [(begin, stop, False)]
        elif kind == "float" and wire_type == 2:
            if (stop - begin) % 4:
                raise WireError("packed floats of a length not a multiple of 4")
            feature.values.extend(_floats(data, begin, stop))
            spans = [(begin, stop, False)]
        elif kind == "float" and wire_type == 5:
            feature.values.extend(_floats(data, begin, stop))
            spans = [(begin, stop, False)]
        elif kind == "int64" and wire_type == 2:
            spans = []
            pos = begin
            while pos < stop:
                value, after = read_varint(data, pos, stop)
                feature.values.append(_signed64(value))
                spans.append((pos, after, True))
                pos = after
        elif kind == "int64" and wire_type == 0:
            feature.values.append(_signed64(varint))
            spans = [(begin, stop, True)]
        else:
            raise WireError(f"wire type {wire_type} for a {kind} list")
        if payloads is not None:
            feature.spans.extend(spans)
            payloads.extend(spans)


def read_feature(data: Any, start: int, end: int, payloads: list | None = None,
                 feature: _Feature | None = None) -> _Feature:
    """A Feature message in data[start:end] (merged into `feature` when given)."""
    feature = _Feature() if feature is None else feature
    for number, wire_type, begin, stop, _ in fields(data, start, end):
        if number in KINDS:
            if wire_type != 2:
                raise WireError("a Feature's list is not length-delimited")
            feature.switch(KINDS[number])
            _read_list(data, begin, stop, feature, payloads)
    return feature


def _map_entry(data: Any, start: int, end: int) -> tuple[bytes, int, int]:
    """(key, value start, value stop) of a map entry; a missing value is an empty message."""
    key, value = b"", (end, end)
    for number, wire_type, begin, stop, _ in fields(data, start, end):
        if wire_type != 2 and number in (1, 2):
            raise WireError("a map entry's key or value is not length-delimited")
        if number == 1:
            key = bytes(data[begin:stop])
        elif number == 2:
            value = (begin, stop)
    return key, value[0], value[1]


def read_features(data: Any, start: int, end: int, out: dict, payloads: list | None = None) -> dict:
    """The map of a Features message in data[start:end], into `out` (key -> _Feature; a repeated key: last wins)."""
    for number, wire_type, begin, stop, _ in fields(data, start, end):
        if number != 1:
            continue
        if wire_type != 2:
            raise WireError("a Features entry is not length-delimited")
        key, value_start, value_stop = _map_entry(data, begin, stop)
        out[key] = read_feature(data, value_start, value_stop, payloads)
    return out


def decode_example(data: Any, payloads: list | None = None) -> dict:
    """key (bytes) -> _Feature of a serialized Example. With `payloads` (a list), each value's byte range is
    appended to it as (start, stop, is_varint), and each _Feature's `spans` lists its own."""
    out: dict = {}
    for number, wire_type, begin, stop, _ in fields(data, 0, len(data)):
        if number == 1:
            if wire_type != 2:
                raise WireError("Example.features is not length-delimited")
            read_features(data, begin, stop, out, payloads)
    return out


def _read_feature_list(data: Any, start: int, end: int) -> list:
    return [read_feature(data, begin, stop) for number, wire_type, begin, stop, _ in fields(data, start, end)
            if number == 1 and _length_delimited(wire_type)]


def _length_delimited(wire_type: int) -> bool:
    if wire_type != 2:
        raise WireError("a message field is not length-delimited")
    return True


def decode_sequence_example(data: Any) -> tuple[dict, dict]:
    """(context: key -> _Feature, feature_lists: key -> [_Feature, ...]) of a serialized SequenceExample."""
    context: dict = {}
    lists: dict = {}
    for number, wire_type, begin, stop, _ in fields(data, 0, len(data)):
        if number == 1 and _length_delimited(wire_type):
            read_features(data, begin, stop, context)
        elif number == 2 and _length_delimited(wire_type):
            for entry_number, entry_type, entry_begin, entry_stop, _ in fields(data, begin, stop):
                if entry_number == 1 and _length_delimited(entry_type):
                    key, value_start, value_stop = _map_entry(data, entry_begin, entry_stop)
                    lists[key] = _read_feature_list(data, value_start, value_stop)
    return context, lists
