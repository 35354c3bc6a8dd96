"""What ParseExampleV2 does with decoded Examples, in plain Python: checks each feature against its
configuration (TensorFlow's error messages, word for word) and lays the values out as the op's outputs.

Decoding: with the `protobuf` package, `Example.FromString`; without it (Pyodide), the wire-format reader
backends/portable/example_wire.py. Both give key (bytes) -> feature with `.kind` ("bytes", "float", "int64" or
None for a Feature with no list set, which counts as missing, as in TensorFlow) and `.values`.

An output is `(flat values, shape, dtype)` (the values a list, or backends/arrays/flat_arrays.py's Chunks / IndexRuns
so that NumPy joins them); the kernel turns it into its backend's array (`from_flat`).
Batched input (a vector of records) and single input (a scalar) differ as in TensorFlow: batched outputs gain a
leading batch dimension, and the error messages name the example ("Name: <unknown>, Key: a, Index: 3. ...").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.flat_arrays import Chunks, IndexRuns
from webflow.backends.portable import example_wire
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

KIND_OF = {"float32": "float", "int64": "int64", "string": "bytes"}  # an output dtype's list in a Feature
TYPE_NAME = {"float": "float", "int64": "int64", "bytes": "string"}  # TensorFlow's DataTypeString
_DECODER = {"use": None}  # None: protobuf when installed, else the wire reader; tests force "wire" or "protobuf"


class _Decoded:
    __slots__ = ("kind", "values")

    def __init__(self, kind: str | None, values: Any):
        self.kind = kind
        self.values = values


def set_decoder(name: str | None) -> None:
    """Which decoder parses Examples: "protobuf", "wire" (the pure-Python reader) or None (protobuf if present)."""
    _DECODER["use"] = name


def _protobuf_available() -> bool:
    try:
        from webflow.protos import example_pb2  # noqa: F401
    except ImportError:
        return False
    return True


def decoder_name() -> str:
    if _DECODER["use"] is None:
        _DECODER["use"] = "protobuf" if _protobuf_available() else "wire"
    return _DECODER["use"]


def _from_protobuf_feature(feature: Any) -> _Decoded:
    kind = feature.WhichOneof("kind")  # "float_list" ... or None
    return _Decoded(None, []) if kind is None else _Decoded(kind[:-5], getattr(feature, kind).value)


def _from_protobuf_features(features: Any) -> dict:
    return {key.encode("utf-8"): _from_protobuf_feature(feature) for key, feature in features.feature.items()}


def _protobuf_example(data: bytes) -> dict:
    from webflow.protos import example_pb2

    return _from_protobuf_features(example_pb2.Example.FromString(data).features)


def _protobuf_sequence_example(data: bytes) -> tuple[dict, dict]:
    from webflow.protos import example_pb2

    message = example_pb2.SequenceExample.FromString(data)
    lists = {key.encode("utf-8"): [_from_protobuf_feature(f) for f in feature_list.feature]
             for key, feature_list in message.feature_lists.feature_list.items()}
    return _from_protobuf_features(message.context), lists


def parse_error(data: bytes) -> InvalidArgumentError:
    text = bytes(data).decode("utf-8", "backslashreplace")
    return InvalidArgumentError(None, None, f"Could not parse example input, value: '{text}'")


def _decode_errors() -> tuple:
    errors: tuple = (example_wire.WireError,)
    if decoder_name() == "protobuf":
        from google.protobuf.message import DecodeError

        errors += (DecodeError,)
    return errors


def decode_example(data: bytes) -> dict:
    """key -> decoded feature of one serialized Example; InvalidArgumentError if the bytes are not one."""
    try:
        if decoder_name() == "protobuf":
            return _protobuf_example(data)
        return example_wire.decode_example(data)
    except _decode_errors():
        raise parse_error(data) from None


def decode_sequence_example(data: bytes, name: str = "<unknown>") -> tuple[dict, dict]:
    """(context, feature_lists) of one serialized SequenceExample (`name` for the error message)."""
    try:
        if decoder_name() == "protobuf":
            return _protobuf_sequence_example(data)
        return example_wire.decode_sequence_example(data)
    except _decode_errors():
        raise InvalidArgumentError(None, None, f"Invalid protocol message input, example id: {name}") from None


# --- the configuration of one ParseExampleV2 -------------------------------------------------------------------
class DenseSpec:
    """One dense key: dtype, shape (`None` first for a FixedLenSequenceFeature, "variable length") and default."""

    def __init__(self, key: bytes, dtype: Any, shape: list, default: list):
        self.key = key
        self.name = key.decode("utf-8", "backslashreplace")
        self.dtype = dtypes.as_dtype(dtype)
        self.kind = KIND_OF[self.dtype.name]
        self.variable = bool(shape) and shape[0] is None
        self.shape = shape
        self.stride = math.prod(shape[1:] if self.variable else shape)
        self.default = default

    def shape_text(self) -> str:
        return "[" + ",".join("?" if d is None else str(d) for d in self.shape) + "]"


def shape_list(shape: Any) -> list:
    """A dense_shapes entry (TensorShape, list, -1 for unknown) as a list with None for unknown dimensions."""
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return [None if d is None or d < 0 else int(d) for d in dims]


class _Where:
    """How an error names the example: batched input names it and its index, a single Example does not."""

    def __init__(self, batched: bool, names: list, index: int):
        self.batched = batched
        self.name = (names[index].decode("utf-8", "backslashreplace") if index < len(names) and batched
                     else "<unknown>")
        self.index = index

    def key(self, key: str) -> str:
        return f"Name: {self.name}, Key: {key}, Index: {self.index}.  " if self.batched else f"Key: {key}.  "

    def feature(self) -> str:
        return f"Name: {self.name}, " if self.batched else ""


def _error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def dense_rows(spec: DenseSpec, feature: Any, where: _Where) -> list:
    """The values of a dense feature in one example (the default when missing), checked as TensorFlow does."""
    if feature is None or feature.kind is None:
        if spec.variable:
            return []
        if not spec.default:
            raise _error(f"{where.feature()}Feature: {spec.name} (data type: {TYPE_NAME[spec.kind]}) is required "
                         f"but could not be found.")
        return spec.default
    if feature.kind != spec.kind:
        raise _error(f"{where.key(spec.name)}Data types don't match. Data type: {TYPE_NAME[feature.kind]} "
                     f"but expected type: {TYPE_NAME[spec.kind]}")
    values = feature.values
    count = len(values)
    if spec.variable and count % max(spec.stride, 1):
        if not where.batched:
            raise _error(f"Error while parsing feature with key {spec.name}: number of elements should be "
                         f"divisible by {spec.stride}, found {count} instead")
        raise _error(f"{where.key(spec.name)}Number of {spec.kind} values is not "
                     f"a multiple of stride length. Saw {count} values but output shape is: {spec.shape_text()}")
    if not spec.variable and count > spec.stride and spec.kind == "bytes":  # TensorFlow's bytes reader stops here
        suffix = "" if where.batched else ": Parsing bytes_list failed"
        raise _error(f"{where.key(spec.name)}Can't parse serialized Example{suffix}.")
    if not spec.variable and count != spec.stride:
        if not where.batched:
            raise _error(f"Key: {spec.name}.  Can't parse serialized Example: Some {spec.kind}_list slice was not "
                         f"parsed.")
        raise _error(f"{where.key(spec.name)}Number of {spec.kind} values != expected.  Values size: {count} but "
                     f"output shape: {spec.shape_text()}")
    return values


def sparse_values(key: str, dtype: Any, feature: Any, where: _Where) -> Any:
    """The values of a VarLenFeature in one example ([] when missing)."""
    if feature is None or feature.kind is None:
        return []
    kind = KIND_OF[dtypes.as_dtype(dtype).name]
    if feature.kind != kind:
        raise _error(f"{where.key(key)}Data types don't match. Expected type: {TYPE_NAME[kind]}, "
                     f"Actual type: {TYPE_NAME[feature.kind]}")
    return feature.values


def _pad_value(spec: DenseSpec) -> Any:
    if spec.default:
        return spec.default[0]
    return b"" if spec.kind == "bytes" else 0


def assemble_dense(spec: DenseSpec, rows: list, batched: bool) -> tuple:
    """(flat values, shape, dtype) of a dense output from each example's values (the flat values as Chunks)."""
    inner = spec.shape[1:] if spec.variable else spec.shape
    if not spec.variable:
        return Chunks(rows if batched else rows[:1]), ([len(rows)] if batched else []) + list(inner), spec.dtype
    stride = max(spec.stride, 1)
    if not batched:
        return Chunks(rows[:1]), [len(rows[0]) // stride] + list(inner), spec.dtype
    longest = max((len(values) // stride for values in rows), default=0)
    pad = _pad_value(spec)
    pieces = Chunks()
    for values in rows:
        pieces.append(values)
        pieces.append([pad] * (longest * stride - len(values)))
    return pieces, [len(rows), longest] + list(inner), spec.dtype


def assemble_sparse(dtype: Any, per_example: list, batched: bool) -> list:
    """[indices, values, dense_shape] outputs (flat, shape, dtype) of a VarLenFeature."""
    counts = [len(values) for values in per_example]
    rank = 2 if batched else 1
    longest = max(counts, default=0)
    shape = [len(per_example), longest] if batched else [longest]
    return [(IndexRuns(counts, batched), [sum(counts), rank], dtypes.int64),
            (Chunks(per_example), [sum(counts)], dtypes.as_dtype(dtype)), (shape, [rank], dtypes.int64)]


def parse_examples(records: list, names: list, batched: bool, sparse: list, dense: list[DenseSpec],
                   assemble: bool = True, first_index: int = 0) -> tuple:
    """(sparse outputs, dense outputs) of ParseExampleV2 (each output (flat, shape, dtype)); `sparse` lists
    (key, dtype) pairs. With assemble=False only TensorFlow's checks run (on one record of each layout of a batch,
    whose position in the batch is `first_index`)."""
    decoded = [decode_example(data) for data in records]
    sparse_out: list = []
    for key, dtype in sparse:
        name = key.decode("utf-8", "backslashreplace")
        per_example = [sparse_values(name, dtype, example.get(key), _Where(batched, names, first_index + i))
                       for i, example in enumerate(decoded)]
        if assemble:
            sparse_out.append(assemble_sparse(dtype, per_example, batched))
    dense_out = []
    for spec in dense:
        rows = [dense_rows(spec, example.get(spec.key), _Where(batched, names, first_index + i))
                for i, example in enumerate(decoded)]
        if assemble:
            dense_out.append(assemble_dense(spec, rows, batched))
    return sparse_out, dense_out


def flatten_outputs(sparse_out: list, dense_out: list, make: Callable) -> list:
    """ParseExampleV2's output list in TensorFlow's order: every sparse indices, values, shapes, then the dense."""
    outputs = [make(*s[0]) for s in sparse_out] + [make(*s[1]) for s in sparse_out]
    outputs += [make(*s[2]) for s in sparse_out]
    return outputs + [make(*d) for d in dense_out]
