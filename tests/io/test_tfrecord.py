"""TFRecord files (webflow/io/tfrecord.py): round trips, the framing byte for byte, damaged files, and, with
WEBFLOW_TF_PYTHON set (tests/tf_subprocess.py), files exchanged with real TensorFlow in both directions."""

from __future__ import annotations

import gzip
import os
import random
import struct
import zlib
from pathlib import Path

import pytest
from tf_subprocess import SKIP_REASON, TF_PYTHON, run_tensorflow

import webflow as wf
import webflow.compat.v1 as tf1
from webflow.framework import errors
from webflow.io import tfrecord
from webflow.io.crc32c import masked_crc32c, python_extend
from webflow.io.tfrecord import TFRecordCompressionType, TFRecordOptions, TFRecordWriter, tf_record_iterator

RECORDS = [b"hello", b"", b"a", bytes(range(256)) * 40, random.Random(7).randbytes(100_003), "text \u00e9"]
EXPECTED = [r.encode("utf-8") if isinstance(r, str) else r for r in RECORDS]
COMPRESSIONS = ["", "GZIP", "ZLIB"]

# What TensorFlow 2.21 writes for the records b"hello", b"world!!" (tf.io.TFRecordWriter, no compression).
TF_HELLO_WORLD = bytes.fromhex("0500000000000000eab2043e68656c6c6fbb1f1c19"
                               "0700000000000000bbd79f11776f726c6421217754cd5a")


def write(path: Path, records: list, options: object = None) -> Path:
    with TFRecordWriter(str(path), options) as writer:
        for record in records:
            writer.write(record)
    return path


def read(path: Path, options: object = None) -> list[bytes]:
    return list(tf_record_iterator(str(path), options))


@pytest.mark.parametrize("options", COMPRESSIONS + [None, TFRecordOptions("GZIP"), TFRecordOptions(compression_type=1),
                                                    TFRecordCompressionType.GZIP, TFRecordCompressionType.NONE])
def test_round_trip(tmp_path: Path, options: object) -> None:
    path = write(tmp_path / "r.tfrecord", RECORDS, options)
    assert read(path, options) == EXPECTED


def test_compressed_files_are_gzip_and_zlib_streams_of_the_plain_file(tmp_path: Path) -> None:
    plain = write(tmp_path / "plain", RECORDS).read_bytes()
    assert gzip.decompress(write(tmp_path / "g", RECORDS, "GZIP").read_bytes()) == plain
    assert zlib.decompress(write(tmp_path / "z", RECORDS, "ZLIB").read_bytes()) == plain
    level_1 = TFRecordOptions("ZLIB", compression_level=1)
    assert zlib.decompress(write(tmp_path / "z1", RECORDS, level_1).read_bytes()) == plain


def test_the_framing_byte_for_byte(tmp_path: Path) -> None:
    """A record built by hand from the format: uint64 LE length, masked CRC32C of those 8 bytes (uint32 LE), the
    data, masked CRC32C of the data; CRCs from the pure-Python code, mask written out."""

    def masked(data: bytes) -> int:
        crc = python_extend(0, data)
        return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF

    def by_hand(data: bytes) -> bytes:
        length = struct.pack("<Q", len(data))
        return length + struct.pack("<I", masked(length)) + data + struct.pack("<I", masked(data))

    records = [b"hello", b"world!!", b"", bytes(1000)]
    assert write(tmp_path / "f", records).read_bytes() == b"".join(by_hand(r) for r in records)
    assert write(tmp_path / "hw", [b"hello", b"world!!"]).read_bytes() == TF_HELLO_WORLD
    assert tfrecord.encode_record(b"hello") == TF_HELLO_WORLD[:21]
    assert masked_crc32c(b"hello") == 0x191C1FBB
    (tmp_path / "tf").write_bytes(TF_HELLO_WORLD)
    assert read(tmp_path / "tf") == [b"hello", b"world!!"]


def test_an_empty_file_has_no_records(tmp_path: Path) -> None:
    (tmp_path / "empty").write_bytes(b"")
    assert read(tmp_path / "empty") == []
    assert read(write(tmp_path / "g", [], "GZIP"), "GZIP") == []


def _damaged(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "damaged.tfrecord"
    path.write_bytes(data)
    return str(path)


def _data_loss(path: str, options: object = None) -> str:
    records = []
    with pytest.raises(errors.DataLossError) as raised:
        for record in tf_record_iterator(path, options):
            records.append(record)
    message = str(raised.value)
    assert path in message
    assert records == [b"hello"][:len(records)]  # the records before the damage come out first
    return message


# TF_HELLO_WORLD: record 1 at offset 0 (12 header + 5 data + 4), record 2 at offset 21, its data at 33.
@pytest.mark.parametrize("name, change, expected", [
    ("length CRC", lambda b: b[:29] + bytes([b[29] ^ 1]) + b[30:], "corrupted record at 21"),
    ("length", lambda b: b[:21] + b"\xff" + b[22:], "corrupted record at 21"),
    ("data", lambda b: b[:35] + bytes([b[35] ^ 0x40]) + b[36:], "corrupted record at 33"),
    ("data CRC", lambda b: b[:-1] + bytes([b[-1] ^ 0x80]), "corrupted record at 33"),
    ("header cut short", lambda b: b[:21 + 6], "truncated record at 21"),
    ("header without data", lambda b: b[:21 + 12], "truncated record at 21"),
    ("data cut short", lambda b: b[:21 + 12 + 3], "truncated record at 21"),
    ("data CRC cut short", lambda b: b[:-2], "truncated record at 21"),
])
def test_a_damaged_file_raises_data_loss_naming_file_and_offset(tmp_path: Path, name: str, change, expected) -> None:
    message = _data_loss(_damaged(tmp_path, change(TF_HELLO_WORLD)))
    assert message.startswith(expected), message


def test_damage_inside_a_compressed_file_is_found_too(tmp_path: Path) -> None:
    plain = bytearray(TF_HELLO_WORLD)
    plain[35] ^= 0x40
    message = _data_loss(_damaged(tmp_path, gzip.compress(bytes(plain))), "GZIP")
    assert message.startswith("corrupted record at 33")  # offsets count uncompressed bytes
    message = _data_loss(_damaged(tmp_path, zlib.compress(TF_HELLO_WORLD[:30])), "ZLIB")
    assert message.startswith("truncated record at 21")
    broken = bytearray(gzip.compress(TF_HELLO_WORLD))
    broken[12:16] = b"\xff\xff\xff\xff"
    assert "corrupted GZIP data" in _data_loss(_damaged(tmp_path, bytes(broken)), "GZIP")


def test_a_compressed_file_read_as_plain_says_what_it_looks_like(tmp_path: Path) -> None:
    path = write(tmp_path / "g.tfrecord", [b"hello"], "GZIP")
    message = _data_loss(str(path))
    assert message.startswith("corrupted record at 0") and "Is this even a TFRecord file?" in message
    assert "options='GZIP'" in message
    assert "options='ZLIB'" in _data_loss(str(write(tmp_path / "z.tfrecord", [b"hello"], "ZLIB")))


def test_concatenated_gzip_streams_read_as_one(tmp_path: Path) -> None:
    one, two = tfrecord.encode_record(b"one"), tfrecord.encode_record(b"two")
    path = _damaged(tmp_path, gzip.compress(one) + gzip.compress(two))
    assert read(Path(path), "GZIP") == [b"one", b"two"]


def test_flush_makes_every_written_record_readable(tmp_path: Path) -> None:
    for compression in COMPRESSIONS:
        path = tmp_path / f"flushed{compression}"
        writer = TFRecordWriter(str(path), compression)
        writer.write(b"first")
        writer.write(b"second")
        writer.flush()
        assert read(path, compression) == [b"first", b"second"]
        writer.write(b"third")
        writer.close()
        assert read(path, compression) == [b"first", b"second", b"third"]


def test_writer_and_iterator_close_their_files(tmp_path: Path) -> None:
    path = tmp_path / "w.tfrecord"
    writer = TFRecordWriter(path)  # a path-like works too
    writer.write(b"x")
    writer.close()
    writer.close()  # harmless, as in TensorFlow
    for call in (lambda: writer.write(b"y"), writer.flush):
        with pytest.raises(errors.FailedPreconditionError, match="Writer is closed."):
            call()
    with TFRecordWriter(str(path), "GZIP") as writer:
        writer.write(b"y")
    assert writer._file is None
    assert read(path, "GZIP") == [b"y"]

    iterator = tf_record_iterator(str(path), "GZIP")
    assert next(iterator) == b"y"
    with pytest.raises(StopIteration):
        next(iterator)
    assert iterator._stream is None  # closed at the end
    iterator.reopen()
    assert list(iterator) == [b"y"]
    iterator = tf_record_iterator(str(path), "GZIP")
    iterator.close()
    assert list(iterator) == []


def test_files_that_cannot_be_opened(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.tfrecord")
    with pytest.raises(errors.NotFoundError, match="missing.tfrecord; No such file or directory"):
        tf_record_iterator(missing)  # at once, as TensorFlow's iterator
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        TFRecordWriter(str(tmp_path / "no" / "dir.tfrecord"))
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        tf_record_iterator(str(tmp_path))


def test_options() -> None:
    assert TFRecordOptions.get_compression_type_string(None) == ""
    assert TFRecordOptions.get_compression_type_string(TFRecordCompressionType.ZLIB) == "ZLIB"
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions("GZIP")) == "GZIP"
    assert TFRecordOptions(TFRecordCompressionType.GZIP).compression_type == 2  # kept as given
    for bad in ("BZIP", "gzip", 3):
        with pytest.raises(ValueError, match=f'Not a valid compression_type: "{bad}"'):
            TFRecordOptions(bad)
        with pytest.raises(ValueError, match="Not a valid compression_type"):
            tf_record_iterator("anything", bad)


def test_the_facades_export_tensorflows_names() -> None:
    assert wf.io.TFRecordWriter is tf1.io.TFRecordWriter is tf1.python_io.TFRecordWriter is TFRecordWriter
    assert wf.io.TFRecordOptions is tf1.io.TFRecordOptions is tf1.python_io.TFRecordOptions is TFRecordOptions
    assert tf1.io.tf_record_iterator is tf1.python_io.tf_record_iterator is tf_record_iterator
    assert tf1.io.TFRecordCompressionType is tf1.python_io.TFRecordCompressionType is TFRecordCompressionType
    assert not hasattr(wf.io, "tf_record_iterator")  # TF2's tf.io has none (tf.data.TFRecordDataset instead)


# --- with real TensorFlow: files written by one are read by the other ---

_TF_READERS = r"""
def read_iterator(path, compression):
    return [r.hex() for r in tf.io.tf_record_iterator(path, compression)]

def read_dataset(path, compression):
    following = tf.data.make_one_shot_iterator(tf.data.TFRecordDataset([path], compression_type=compression)).get_next()
    out = []
    with tf.Session() as session:
        while True:
            try:
                out.append(session.run(following).hex())
            except tf.errors.OutOfRangeError:
                return out

def write_file(path, records, compression):
    with tf.io.TFRecordWriter(path, compression) as writer:
        for record in records:
            writer.write(bytes.fromhex(record))
    return path
"""


@pytest.fixture(scope="module")
def exchanged(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Writes webflow files, has TensorFlow read them and write its own (one subprocess), returns its results."""
    folder = tmp_path_factory.mktemp("tfrecord_exchange")
    records = [record.hex() for record in EXPECTED]
    programs = {}
    for compression in COMPRESSIONS:
        ours = str(write(folder / f"webflow{compression}.tfrecord", RECORDS, compression))
        theirs = str(folder / f"tensorflow{compression}.tfrecord")
        programs[f"iterator{compression}"] = _TF_READERS + f"result = read_iterator({ours!r}, {compression!r})"
        programs[f"dataset{compression}"] = _TF_READERS + f"result = read_dataset({ours!r}, {compression!r})"
        programs[f"write{compression}"] = (_TF_READERS
                                           + f"result = write_file({theirs!r}, {records!r}, {compression!r})")
    return run_tensorflow(programs)


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_tensorflow_reads_webflow_files(exchanged: dict, compression: str) -> None:
    expected = [record.hex() for record in EXPECTED]
    assert exchanged[f"iterator{compression}"] == expected
    assert exchanged[f"dataset{compression}"] == expected


@pytest.mark.skipif(not TF_PYTHON, reason=SKIP_REASON)
@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_webflow_reads_tensorflow_files(exchanged: dict, compression: str) -> None:
    path = exchanged[f"write{compression}"]
    assert read(Path(path), compression) == EXPECTED
    if not compression:  # the same records make the same bytes
        ours = Path(path).with_name("webflow.tfrecord").read_bytes()
        assert Path(path).read_bytes() == ours
    else:
        decompress = gzip.decompress if compression == "GZIP" else zlib.decompress
        assert decompress(Path(path).read_bytes()) == Path(path).with_name("webflow.tfrecord").read_bytes()
    assert os.path.getsize(path) > 0
