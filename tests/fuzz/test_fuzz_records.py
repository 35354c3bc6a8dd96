"""Fuzzed TFRecord-framed files and MNIST IDX files: each reader answers damage with its documented error.

Readers: tf_record_iterator (io/tfrecord.py, plain/ZLIB/GZIP), TFRecordDataset, the TF1 TFRecordReader op,
summary_iterator and the TensorBoard tail reader (summary/event_tail.py, logdir_reader.py), and
datasets/mnist.py's IDX parser (IDXFormatError, a ValueError, is its documented error).
"""

from __future__ import annotations

import gzip
import struct
import zlib

import pytest
from fuzz_support import FORGED_LENGTHS, corpus_files, expect_clean, mutated
from hypothesis import given
from hypothesis import strategies as st

import webflow as wf
import webflow.compat.v1 as tf
from webflow.datasets import mnist
from webflow.framework import errors
from webflow.io import tfrecord
from webflow.io.crc32c import masked_crc32c
from webflow.summary.event_tail import EventFileTail
from webflow.summary.logdir_reader import LogdirReader
from webflow.summary.summary_iterator import summary_iterator

RECORDS = [b"", b"a", b"hello world" * 3, bytes(range(256))]
PLAIN = b"".join(tfrecord.encode_record(r) for r in RECORDS)
COMPRESSED = {"": PLAIN, "ZLIB": zlib.compress(PLAIN), "GZIP": gzip.compress(PLAIN, mtime=0)}


def forged_record(length: int) -> bytes:
    """A record header whose length field is huge but whose length CRC is right: only the size is a lie."""
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", masked_crc32c(head)) + b"tiny"


def _write(tmp_path, data: bytes, name: str = "f.tfrecord") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _iterate(path: str, compression: str) -> list:
    return list(tfrecord.tf_record_iterator(path, compression))


def _dataset(path: str, compression: str) -> list:
    return [t.numpy() for t in wf.data.TFRecordDataset(path, compression_type=compression)]


def _tf1_reader(path: str, compression: str) -> list:
    with tf.Graph().as_default():
        options = tf.io.TFRecordOptions(compression) if compression else None
        reader = tf.TFRecordReader(options=options)
        queue = tf.FIFOQueue(1, tf.string)
        key, value = reader.read(queue)
        with tf.Session() as sess:
            sess.run(queue.enqueue([path]))
            sess.run(queue.close())
            out = []
            try:
                while True:
                    out.append(sess.run(value))
            except errors.OutOfRangeError:
                return out


def _summary(path: str, compression: str) -> list:
    return list(summary_iterator(path))


def _tail(path: str, compression: str) -> list:
    return EventFileTail(path).read_new()


def _logdir(path: str, compression: str) -> None:
    LogdirReader(str(__import__("pathlib").Path(path).parent)).reload()


READERS = {"iterator": _iterate, "dataset": _dataset, "tf1_reader": _tf1_reader}
# summary_iterator parses each record as an Event proto: TensorFlow lets protobuf's DecodeError through.
EVENT_READERS = {"summary_iterator": _summary, "event_tail": _tail}


def _decode_error() -> type:
    from google.protobuf.message import DecodeError

    return DecodeError


@pytest.mark.parametrize("compression", sorted(COMPRESSED))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_forged_lengths_raise_data_loss(tmp_path, reader, compression):
    for length in FORGED_LENGTHS:
        plain = tfrecord.encode_record(b"ok") + forged_record(length)
        data = {"": plain, "ZLIB": zlib.compress(plain), "GZIP": gzip.compress(plain, mtime=0)}[compression]
        path = _write(tmp_path, data)
        with pytest.raises(errors.DataLossError):
            expect_clean(lambda path=path: READERS[reader](path, compression), allowed=())


@pytest.mark.parametrize("reader", sorted(EVENT_READERS))
def test_event_readers_forged_lengths(tmp_path, reader):
    for length in FORGED_LENGTHS:
        path = _write(tmp_path, forged_record(length), "events.out.tfevents.1.host")
        expect_clean(lambda path=path: EVENT_READERS[reader](path, ""), allowed=(errors.OpError, _decode_error()))
        expect_clean(lambda path=path: _logdir(path, ""))


@pytest.mark.parametrize("compression", sorted(COMPRESSED))
@pytest.mark.parametrize("reader", sorted(READERS))
def test_mutated_record_files(tmp_path, reader, compression):
    @given(mutated(COMPRESSED[compression]))
    def check(data):
        path = _write(tmp_path, data)
        expect_clean(lambda: READERS[reader](path, compression))

    check()


@pytest.mark.parametrize("reader", sorted(EVENT_READERS))
def test_mutated_event_files(tmp_path, reader):
    seed = PLAIN + forged_record(2**40)[:12]

    @given(mutated(seed))
    def check(data):
        path = _write(tmp_path, data, "events.out.tfevents.1.host")
        expect_clean(lambda: EVENT_READERS[reader](path, ""), allowed=(errors.OpError, _decode_error()))
        expect_clean(lambda: _logdir(path, ""))

    check()


IDX_SEED = bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(range(6))


@given(mutated(IDX_SEED), st.booleans())
def test_mutated_idx(data, gzipped):
    expect_clean(lambda: mnist.parse_idx(data), allowed=(mnist.IDXFormatError,))


@given(mutated(gzip.compress(IDX_SEED, mtime=0)))
def test_mutated_gzipped_idx_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("idx") / "train-images-idx3-ubyte.gz"
    path.write_bytes(data)
    expect_clean(lambda: mnist.read_idx(path), allowed=(mnist.IDXFormatError,))


@pytest.mark.parametrize("path", corpus_files("tfrecord"), ids=lambda p: p.name)
def test_tfrecord_corpus(tmp_path, path):
    compression = {"zlib": "ZLIB", "gzip": "GZIP"}.get(path.suffix.lstrip("."), "")
    target = _write(tmp_path, path.read_bytes())
    for reader in READERS.values():
        expect_clean(lambda reader=reader: reader(target, compression))
    for reader in EVENT_READERS.values():
        expect_clean(lambda reader=reader: reader(target, ""), allowed=(errors.OpError, _decode_error()))


@pytest.mark.parametrize("path", corpus_files("idx"), ids=lambda p: p.name)
def test_idx_corpus(path):
    expect_clean(lambda: mnist.parse_idx(path.read_bytes()), allowed=(mnist.IDXFormatError,))


@pytest.mark.parametrize("path", corpus_files("idx_gz"), ids=lambda p: p.name)
def test_gzipped_idx_corpus(path):
    expect_clean(lambda: mnist.read_idx(path), allowed=(mnist.IDXFormatError,))
