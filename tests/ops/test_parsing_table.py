"""Op table rows for the parsing ops: ParseExampleV2 and ParseSequenceExampleV2 (ops/parsing_ops.py,
sequence_parsing_ops.py), DecodeRaw, DecodePaddedRaw, DecodeCSV (ops/decode_ops.py), ReadFile, WriteFile
(io/file_ops.py), SerializeTensor and ParseTensor (io/tensor_ops.py), SparseToDense and SparseReorder
(ops/sparse_ops.py).

The serialized Examples are written here byte by byte from the protobuf wire format (varint keys, length-delimited
messages, packed floats and varints), not with protobuf or webflow's reader, so each parse row checks the kernels
against the format's specification. Only SparseToDense and SparseReorder have gradients (as in TensorFlow);
the rows' outputs are numbers only (no string tensors), so tests/no_numpy_tables.py runs them without NumPy (all
but serialize_parse_tensor, a GAP there: TensorProtos are written and read with NumPy and protobuf).
Sparse outputs and decoded lengths depend on the values, so those rows' static shapes are partly unknown, as in
TensorFlow (`fully_static=False`).
tests/io/test_example_tf.py compares the same ops with TensorFlow 2.21, strings and error messages included.
"""

import atexit
import os
import shutil
import struct
import tempfile

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
from webflow.io import file_ops, tensor_ops
from webflow.ops import decode_ops, parsing_ops, sequence_parsing_ops, sparse_ops
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature


# --- the wire format by hand ---------------------------------------------------------------------------------------
def varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 is its two's complement: ten bytes
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def feature(values: list) -> bytes:
    """Feature { bytes_list = 1 | float_list = 2 | int64_list = 3 }, the lists packed (field 1 of each list)."""
    if isinstance(values[0], bytes):
        return field(1, b"".join(field(1, v) for v in values))
    if isinstance(values[0], float):
        return field(2, field(1, struct.pack(f"<{len(values)}f", *values)))
    return field(3, field(1, b"".join(varint(v) for v in values)))


def features(mapping: dict) -> bytes:
    """Features { map<string, Feature> feature = 1 }: one entry {key = 1, value = 2} per key."""
    return b"".join(field(1, field(1, key.encode()) + field(2, feature(values))) for key, values in mapping.items())


def example(mapping: dict) -> bytes:
    return field(1, features(mapping))


def sequence_example(context: dict, lists: dict) -> bytes:
    """SequenceExample { context = 1; feature_lists = 2 { map<string, FeatureList { repeated Feature = 1 }> } }."""
    entries = b"".join(field(1, field(1, key.encode()) + field(2, b"".join(field(1, feature(r)) for r in rows)))
                       for key, rows in lists.items())
    return field(1, features(context)) + field(2, entries)


# --- records -------------------------------------------------------------------------------------------------------
MIXED = [example({"a": [1.5, 2.5], "b": [7], "c": [0.5]}), example({"b": [-8], "c": [1.0, 2.0, 3.0]})]
UNIFORM = [example({"img": [0.25 * i, 1.0, -2.0, 3.5], "label": [i], "id": [300 + i]}) for i in range(3)]
SEQUENCES = [example({"x": [1.0, 2.0, 3.0, 4.0]}), example({"x": [5.0, 6.0]}), example({"y": [1]})]
SEQUENCE = sequence_example({"n": [3], "w": [9, 8]}, {"tok": [[1], [2], [3]], "pos": [[1.0, 2.0], [3.0, 4.0]]})
RAW = [struct.pack("<3h", 1, -2, 300), struct.pack("<3h", 4, 5, -6)]
CSV = ["1,2.5,7", "3,,-1", '"4",0.5,"2"']
DIRECTORY = tempfile.mkdtemp(prefix="webflow_parsing_table_")
atexit.register(shutil.rmtree, DIRECTORY, True)  # the read_file / write_file rows' files
READ_PATH = os.path.join(DIRECTORY, "raw.bin")
with open(READ_PATH, "wb") as _file:
    _file.write(struct.pack("<4f", 1.0, -2.5, 3.25, 0.0))
WRITE_PATH = os.path.join(DIRECTORY, "sub", "written.bin")


def _parse_mixed(default):
    parsed = parsing_ops.parse_example_v2(MIXED, {"a": FixedLenFeature([2], wf.float32, default_value=default),
                                                  "b": FixedLenFeature([], wf.int64, default_value=-1),
                                                  "c": VarLenFeature(wf.float32)})
    return [parsed["c"].indices, parsed["c"].values, parsed["c"].dense_shape, parsed["a"], parsed["b"]]


def _parse_uniform():
    parsed = parsing_ops.parse_example(UNIFORM, {"img": FixedLenFeature([2, 2], wf.float32),
                                                 "label": FixedLenFeature([], wf.int64),
                                                 "id": VarLenFeature(wf.int64)})
    return [parsed["id"].indices, parsed["id"].values, parsed["id"].dense_shape, parsed["img"], parsed["label"]]


def _parse_sequence_features(padding):
    parsed = parsing_ops.parse_example_v2(SEQUENCES, {
        "x": FixedLenSequenceFeature([2], wf.float32, allow_missing=True, default_value=padding),
        "y": FixedLenSequenceFeature([], wf.int64, allow_missing=True)})
    return [parsed["x"], parsed["y"]]


def _parse_single(default):
    parsed = parsing_ops.parse_single_example_v2(MIXED[1], {
        "a": FixedLenFeature([2], wf.float32, default_value=default), "c": VarLenFeature(wf.float32)})
    return [parsed["c"].indices, parsed["c"].values, parsed["c"].dense_shape, parsed["a"]]


def _parse_sequence_example():
    context, lists = sequence_parsing_ops.parse_single_sequence_example(
        SEQUENCE, {"n": FixedLenFeature([], wf.int64), "w": VarLenFeature(wf.int64)},
        {"tok": FixedLenSequenceFeature([], wf.int64), "pos": VarLenFeature(wf.float32)})
    return [context["w"].indices, context["w"].values, context["n"], lists["pos"].indices, lists["pos"].values,
            lists["pos"].dense_shape, lists["tok"]]


def _write_then_read():
    written = file_ops.write_file(WRITE_PATH, struct.pack("<2i", 7, -9))
    if wf.executing_eagerly():
        return decode_ops.decode_raw_v2(file_ops.read_file(WRITE_PATH), wf.int32)
    with wf.control_dependencies([written]):
        return decode_ops.decode_raw_v2(file_ops.read_file(WRITE_PATH), wf.int32)


def sparse(indices: list, values):
    return wf.SparseTensor(wf.constant(indices, wf.int64), values, wf.constant([3, 3], wf.int64))


def _dense(indices, shape, values, default):
    out = np.full(shape, default, dtype=values.dtype)
    out[tuple(np.asarray(indices).T)] = values
    return out


I64 = np.int64
# index constants as plain lists inside the builds (no NumPy there: tests/no_numpy_tables.py), arrays for references
SP_LIST, UNSORTED_LIST = [[0, 1], [1, 0], [2, 2]], [[2, 2], [0, 1], [1, 0], [0, 0]]
SP_INDICES, UNSORTED = np.array(SP_LIST, I64), np.array(UNSORTED_LIST, I64)
VALUES = np.array([1.5, -2.0, 3.0], np.float32)

CASES = [
    OpCase("parse_example_fixed_var_default", _parse_mixed, [np.array([9.0, 8.0], np.float32)],
           lambda d: [np.array([[0, 0], [1, 0], [1, 1], [1, 2]], I64), np.array([0.5, 1, 2, 3], np.float32),
                      np.array([2, 3], I64), np.array([[1.5, 2.5], d], np.float32), np.array([7, -8], I64)],
           grad=False, fully_static=False),
    OpCase("parse_example_uniform_batch", _parse_uniform, [],
           lambda: [np.array([[0, 0], [1, 0], [2, 0]], I64), np.array([300, 301, 302], I64), np.array([3, 1], I64),
                    np.array([[[0.25 * i, 1.0], [-2.0, 3.5]] for i in range(3)], np.float32), np.arange(3, dtype=I64)],
           grad=False, fully_static=False),
    OpCase("parse_example_sequence_features_padded", _parse_sequence_features, [np.float32(-1.0)],
           lambda p: [np.array([[[1, 2], [3, 4]], [[5, 6], [p, p]], [[p, p], [p, p]]], np.float32),
                      np.array([[0], [0], [1]], I64)],
           grad=False, fully_static=False),
    OpCase("parse_single_example", _parse_single, [np.array([4.0, 5.0], np.float32)],
           lambda d: [np.array([[0], [1], [2]], I64), np.array([1, 2, 3], np.float32), np.array([3], I64), d],
           grad=False, fully_static=False),
    OpCase("parse_single_sequence_example", _parse_sequence_example, [],
           lambda: [np.array([[0], [1]], I64), np.array([9, 8], I64), I64(3), np.array([[0, 0], [0, 1], [1, 0],
                    [1, 1]], I64), np.array([1, 2, 3, 4], np.float32), np.array([2, 2], I64), np.array([1, 2, 3], I64)],
           grad=False, fully_static=False),
    OpCase("decode_raw_int16", lambda: decode_ops.decode_raw_v2(RAW, wf.int16), [],
           lambda: np.array([[1, -2, 300], [4, 5, -6]], np.int16), grad=False, fully_static=False),
    OpCase("decode_raw_big_endian_uint16", lambda: decode_ops.decode_raw_v2(RAW[0], wf.uint16, little_endian=False), [],
           lambda: np.frombuffer(RAW[0], ">u2").astype(np.uint16), grad=False, fully_static=False),
    OpCase("decode_padded_raw", lambda: decode_ops.decode_raw_v2(RAW, wf.int16, fixed_length=8), [],
           lambda: np.array([[1, -2, 300, 0], [4, 5, -6, 0]], np.int16), grad=False),
    OpCase("decode_csv", lambda d: decode_ops.decode_csv_v2(CSV, [[0], d, wf.constant([], wf.int64)]),
           [np.array([-1.0], np.float32)],
           lambda d: [np.array([1, 3, 4], np.int32), np.array([2.5, d[0], 0.5], np.float32),
                      np.array([7, -1, 2], I64)], grad=False),
    OpCase("decode_csv_one_column", lambda: decode_ops.decode_csv_v2(["5", "-6"], [[0]])[0], [],
           lambda: np.array([5, -6], np.int32), grad=False),
    OpCase("parse_example_one_output", lambda: parsing_ops.parse_example_v2(UNIFORM, {
        "label": FixedLenFeature([], wf.int64)})["label"], [], lambda: np.arange(3, dtype=I64), grad=False),
    OpCase("serialize_parse_tensor", lambda x: tensor_ops.parse_tensor(tensor_ops.serialize_tensor(x), wf.float32),
           [np.array([[1.5, -2.0, 0.25]], np.float32)], lambda x: x, grad=False, fully_static=False),
    OpCase("read_file", lambda: decode_ops.decode_raw_v2(file_ops.read_file(READ_PATH), wf.float32), [],
           lambda: np.array([1.0, -2.5, 3.25, 0.0], np.float32), grad=False, fully_static=False),
    OpCase("write_file", _write_then_read, [], lambda: np.array([7, -9], np.int32), grad=False, fully_static=False),
    OpCase("sparse_to_dense", lambda v, d: sparse_ops.sparse_to_dense(SP_LIST, [3, 4], v, d), [VALUES,
           np.float32(0.5)], lambda v, d: _dense(SP_INDICES, (3, 4), v, d)),
    OpCase("sparse_to_dense_scalar_value", lambda: sparse_ops.sparse_to_dense([1, 3], [5], 7, default_value=-1), [],
           lambda: np.array([-1, 7, -1, 7, -1], np.int32), grad=False),
    OpCase("sparse_tensor_to_dense", lambda v: wf.sparse.to_dense(sparse(SP_LIST, v)), [VALUES],
           lambda v: _dense(SP_INDICES, (3, 3), v, 0)),
    OpCase("sparse_reorder", lambda v: [wf.sparse.reorder(sparse(UNSORTED_LIST, v)).indices,
                                        wf.sparse.reorder(sparse(UNSORTED_LIST, v)).values],
           [np.array([1.0, 2.0, 3.0, 4.0], np.float32)],
           lambda v: [UNSORTED[[3, 1, 2, 0]], v[[3, 1, 2, 0]]], grad=False),
    OpCase("sparse_reorder_values_gradient", lambda v: wf.sparse.reorder(sparse(UNSORTED_LIST, v)).values,
           [np.array([1.0, 2.0, 3.0, 4.0], np.float32)], lambda v: v[[3, 1, 2, 0]]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
