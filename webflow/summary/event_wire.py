"""Event protos read straight from the protobuf wire format, without the `protobuf` package (the browser has none).

Only what a TensorBoard panel shows is decoded: Event (wall_time, step, file_version, graph_def, summary, the tag and
bytes of tagged_run_metadata), Summary values (tag, metadata's plugin name, simple_value, image, histo, tensor) and
TensorProto (dtype, shape, values).
Field numbers are TensorFlow's (webflow/protos/event.proto, summary.proto, histogram.proto, tensor.proto).
tests/summary/test_summary_event_wire.py checks every decoder against protobuf's parsing of the same bytes.

The wire format: each field is a varint key (field number << 3 | wire type) then a value: 0 varint, 1 eight bytes
(double, fixed64), 2 a varint length and that many bytes (strings, messages, packed repeated numbers), 5 four bytes
(float, fixed32). Unknown fields are skipped; a malformed message raises ValueError.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

VARINT, FIXED64, LENGTH, FIXED32 = 0, 1, 2, 5

# TensorFlow's DataType numbers (types.proto) -> struct format of one element in tensor_content
_CONTENT_FORMAT = {1: "f", 2: "d", 3: "i", 4: "B", 5: "h", 6: "b", 9: "q", 10: "?", 17: "H", 19: "e", 22: "I",
                   23: "Q"}
DT_STRING = 7


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """(value, position after it) of the varint at `pos`."""
    result = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7


def signed64(value: int) -> int:
    """An int64 sent as a varint: negative numbers arrive as their 64-bit two's complement."""
    return value - (1 << 64) if value >= 1 << 63 else value


def signed32(value: int) -> int:
    """An int32 field: negative numbers are sign-extended to 64 bits on the wire; keep the low 32."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) for each field of a message: value is an int (varint), or bytes."""
    pos, end = 0, len(data)
    while pos < end:
        key, pos = read_varint(data, pos)
        number, kind = key >> 3, key & 7
        if kind == VARINT:
            value, pos = read_varint(data, pos)
        elif kind in (FIXED64, FIXED32):
            size = 8 if kind == FIXED64 else 4
            value, pos = data[pos:pos + size], pos + size
        elif kind == LENGTH:
            size, pos = read_varint(data, pos)
            value, pos = data[pos:pos + size], pos + size
        else:
            raise ValueError(f"unsupported wire type {kind} (field {number})")
        if pos > end:
            raise ValueError(f"field {number} runs past the end of the message")
        yield number, kind, value


def _float(kind: int, value: Any) -> float:
    if kind not in (FIXED64, FIXED32):  # a damaged record: a float field sent as a varint or a string
        raise ValueError(f"a float field with wire type {kind}")
    return struct.unpack("<d" if kind == FIXED64 else "<f", value)[0]


def _unpack_all(element: str, data: bytes) -> list:
    """Every `element` (a struct code) packed in `data`; ValueError if `data` is not a whole number of them."""
    size = struct.calcsize(element)
    if len(data) % size:  # damaged: struct.error would leak from here
        raise ValueError(f"{len(data)} bytes are not a whole number of {size}-byte values")
    return list(struct.unpack(f"<{len(data) // size}{element}", data))


def _packed(kind: int, value: Any, element: str) -> list:
    """A repeated number field: one element (unpacked form) or a packed run of them (wire type 2)."""
    if element in "fd":
        if kind != LENGTH:
            return [_float(kind, value)]
        return _unpack_all(element, value)
    if kind == VARINT:
        return [value]
    numbers, pos = [], 0
    while pos < len(value):
        number, pos = read_varint(value, pos)
        numbers.append(number)
    return numbers


# --- messages --------------------------------------------------------------------------------------------
@dataclass
class Tensor:
    """A TensorProto's dtype (TensorFlow's number), shape and values as a flat Python list (strings as bytes)."""
    dtype: int = 0
    shape: list = field(default_factory=list)
    values: list = field(default_factory=list)


@dataclass
class Image:
    height: int = 0
    width: int = 0
    colorspace: int = 0
    encoded: bytes = b""


@dataclass
class Histogram:
    min: float = 0.0
    max: float = 0.0
    num: float = 0.0
    sum: float = 0.0
    sum_squares: float = 0.0
    bucket_limit: list = field(default_factory=list)
    bucket: list = field(default_factory=list)


@dataclass
class Value:
    """One Summary.Value: its tag, plugin name (from metadata; "" if none) and the one value set."""
    tag: str = ""
    plugin_name: str = ""
    has_metadata: bool = False
    simple_value: float | None = None
    image: Image | None = None
    histo: Histogram | None = None
    tensor: Tensor | None = None
    audio: bool = False


@dataclass
class Event:
    wall_time: float = 0.0
    step: int = 0
    file_version: str | None = None
    graph_def: bytes | None = None
    meta_graph_def: bytes | None = None
    values: list = field(default_factory=list)  # the Summary's Values (empty when the event holds no summary)
    run_metadata_tag: str | None = None  # a TaggedRunMetadata's tag (FileWriter.add_run_metadata) ...
    run_metadata: bytes | None = None  # ... and its serialized RunMetadata


def decode_event(data: bytes) -> Event:
    """An Event from its serialized bytes."""
    event = Event()
    for number, kind, value in fields(data):
        if number == 1 and kind == FIXED64:
            event.wall_time = _float(kind, value)
        elif number == 2 and kind == VARINT:
            event.step = signed64(value)
        elif number == 3 and kind == LENGTH:
            event.file_version = value.decode("utf-8", "replace")
        elif number == 4 and kind == LENGTH:
            event.graph_def = bytes(value)
        elif number == 5 and kind == LENGTH:
            event.values = decode_summary(value)
        elif number == 9 and kind == LENGTH:
            event.meta_graph_def = bytes(value)
        elif number == 8 and kind == LENGTH:
            event.run_metadata_tag, event.run_metadata = _tagged_run_metadata(value)
    return event


def _tagged_run_metadata(data: bytes) -> tuple[str, bytes]:
    """(tag, run_metadata bytes) of a TaggedRunMetadata."""
    tag, run_metadata = "", b""
    for number, kind, value in fields(data):
        if number == 1 and kind == LENGTH:
            tag = value.decode("utf-8", "replace")
        elif number == 2 and kind == LENGTH:
            run_metadata = bytes(value)
    return tag, run_metadata


def decode_summary(data: bytes) -> list[Value]:
    """The Values of a serialized Summary."""
    return [decode_value(value) for number, kind, value in fields(data) if number == 1 and kind == LENGTH]


def decode_value(data: bytes) -> Value:
    out = Value()
    for number, kind, value in fields(data):
        if number == 1 and kind == LENGTH:
            out.tag = value.decode("utf-8", "replace")
        elif number == 2 and kind == FIXED32:
            out.simple_value = _float(kind, value)
        elif number == 4 and kind == LENGTH:
            out.image = decode_image(value)
        elif number == 5 and kind == LENGTH:
            out.histo = decode_histogram(value)
        elif number == 6 and kind == LENGTH:
            out.audio = True
        elif number == 8 and kind == LENGTH:
            out.tensor = decode_tensor(value)
        elif number == 9 and kind == LENGTH:
            out.has_metadata = True
            out.plugin_name = plugin_name(value)
    return out


def plugin_name(metadata: bytes) -> str:
    """SummaryMetadata.plugin_data.plugin_name ("" when unset)."""
    name = ""
    for number, kind, value in fields(metadata):
        if number == 1 and kind == LENGTH:
            for inner, inner_kind, text in fields(value):
                if inner == 1 and inner_kind == LENGTH:
                    name = text.decode("utf-8", "replace")
    return name


def decode_image(data: bytes) -> Image:
    image = Image()
    for number, kind, value in fields(data):
        if number == 1 and kind == VARINT:
            image.height = signed32(value)
        elif number == 2 and kind == VARINT:
            image.width = signed32(value)
        elif number == 3 and kind == VARINT:
            image.colorspace = signed32(value)
        elif number == 4 and kind == LENGTH:
            image.encoded = bytes(value)
    return image


_HISTOGRAM_SCALARS = {1: "min", 2: "max", 3: "num", 4: "sum", 5: "sum_squares"}


def decode_histogram(data: bytes) -> Histogram:
    histogram = Histogram()
    for number, kind, value in fields(data):
        if number in _HISTOGRAM_SCALARS and kind == FIXED64:
            setattr(histogram, _HISTOGRAM_SCALARS[number], _float(kind, value))
        elif number == 6:
            histogram.bucket_limit += _packed(kind, value, "d")
        elif number == 7:
            histogram.bucket += _packed(kind, value, "d")
    return histogram


# TensorProto's typed value fields: field number -> (element kind, converter)
_VALUE_FIELDS = {5: "f", 6: "d", 7: "int32", 10: "int64", 11: "bool", 13: "half", 16: "uint", 17: "uint"}


# The most elements a short value list may be repeated to (TensorBoard's summaries are far smaller).
_MAX_FILL = 1 << 24


def decode_tensor(data: bytes) -> Tensor:
    """A TensorProto: values from tensor_content, else from the typed repeated field; a short list is filled with
    its last element up to the shape's size, as TensorFlow does (one float_val fills a whole tensor)."""
    tensor, content, typed = Tensor(), None, []
    for number, kind, value in fields(data):
        if number == 1 and kind == VARINT:
            tensor.dtype = value
        elif number == 2 and kind == LENGTH:
            tensor.shape = tensor_shape(value)
        elif number == 4 and kind == LENGTH:
            content = bytes(value)
        elif number == 8 and kind == LENGTH:
            typed.append(bytes(value))
        elif number in _VALUE_FIELDS:
            typed += _typed_values(_VALUE_FIELDS[number], kind, value)
    size = 1
    for dim in tensor.shape:
        size *= max(dim, 0)
    if content is not None and tensor.dtype in _CONTENT_FORMAT:
        tensor.values = _unpack_all(_CONTENT_FORMAT[tensor.dtype], content)
    elif typed and size - len(typed) > _MAX_FILL:  # a forged shape ([2**40]) must not become a huge list
        raise ValueError(f"a tensor of {size} elements filled from {len(typed)} values")
    else:
        tensor.values = typed + typed[-1:] * (size - len(typed)) if typed else []
    return tensor


def _typed_values(element: str, kind: int, value: Any) -> list:
    if element in "fd":
        return _packed(kind, value, element)
    numbers = _packed(kind, value, "varint")
    if element == "int32":
        return [signed32(n) for n in numbers]
    if element == "int64":
        return [signed64(n) for n in numbers]
    if element == "bool":
        return [bool(n) for n in numbers]
    if element == "half":  # float16 bit patterns in an int32 field
        return [struct.unpack("<e", struct.pack("<H", n & 0xFFFF))[0] for n in numbers]
    return numbers


def tensor_shape(data: bytes) -> list[int]:
    """TensorShapeProto's dims (-1 for an unknown one)."""
    dims = []
    for number, kind, value in fields(data):
        if number == 2 and kind == LENGTH:
            size = 0
            for inner, inner_kind, dim in fields(value):
                if inner == 1 and inner_kind == VARINT:
                    size = signed64(dim)
            dims.append(size)
    return dims


def graph_nodes(graph_def: bytes) -> list[tuple[str, str, list[str]]]:
    """(name, op, inputs) of each NodeDef of a serialized GraphDef (its field 1; NodeDef: name 1, op 2, input 3)."""
    nodes = []
    for number, kind, node in fields(graph_def):
        if number != 1 or kind != LENGTH:
            continue
        name, op, inputs = "", "", []
        for inner, inner_kind, value in fields(node):
            if inner_kind != LENGTH:
                continue
            if inner == 1:
                name = value.decode("utf-8", "replace")
            elif inner == 2:
                op = value.decode("utf-8", "replace")
            elif inner == 3:
                inputs.append(value.decode("utf-8", "replace"))
        nodes.append((name, op, inputs))
    return nodes


__all__ = ["Event", "Value", "Tensor", "Image", "Histogram", "decode_event", "decode_summary", "decode_value",
           "decode_tensor", "decode_histogram", "decode_image", "plugin_name", "tensor_shape", "graph_nodes",
           "fields", "read_varint", "DT_STRING"]
