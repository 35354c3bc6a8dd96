"""webflow/io/durable_file.py and the checkpoint bundle's write path through it: files replaced whole, temporary
files gone, and the bytes of every array layout (threads or not) those NumPy's own little-endian C-order bytes."""

from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from webflow.io import checkpoint_bundle, crc32c, durable_file


def test_write_atomically_replaces_the_file_and_leaves_no_temporary(tmp_path) -> None:
    path = tmp_path / "state"
    path.write_bytes(b"old")
    durable_file.write_atomically(str(path), b"new contents")
    assert path.read_bytes() == b"new contents"
    assert os.listdir(tmp_path) == ["state"]


def test_a_discarded_file_keeps_the_old_one(tmp_path) -> None:
    path = tmp_path / "model.index"
    path.write_bytes(b"old")
    durable = durable_file.DurableFile(str(path))
    durable.write(b"half of the new")
    durable.discard()
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.index"]


def test_writeback_chunks_keep_every_byte(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(durable_file, "WRITEBACK_CHUNK", 1000)   # start writeback on almost every write
    payload = bytes(range(256)) * 50
    durable = durable_file.DurableFile(str(tmp_path / "f"))
    for start in range(0, len(payload), 777):
        durable.write(payload[start:start + 777])
    durable.finish()
    durable.publish()
    assert (tmp_path / "f").read_bytes() == payload


def test_background_hands_its_error_to_wait() -> None:
    def fails() -> None:
        raise OSError("disk full")

    for use_thread in (True, False):
        with pytest.raises(OSError, match="disk full"):
            durable_file.Background(fails, use_thread).wait()


def _arrays() -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(0)
    big = rng.standard_normal((700, 600)).astype(np.float32)   # > 1 MiB
    return [("big", big), ("big_endian", np.arange(12, dtype=">i4").reshape(3, 4)),
            ("fortran", np.asfortranarray(rng.standard_normal((5, 3)))), ("strided", big[::7, ::3].copy()[:, ::2]),
            ("scalar", np.array(2.5, np.float16)), ("flags", np.array([True, False, True])),
            ("empty", np.zeros((0, 3), np.int64))]


@pytest.mark.parametrize("threads", [True, False])
def test_bundle_bytes_are_numpys_little_endian_c_order_bytes(tmp_path, monkeypatch, threads) -> None:
    monkeypatch.setattr(durable_file, "threads_available", lambda: threads)
    arrays = _arrays()
    prefix = str(tmp_path / "model")
    checkpoint_bundle.write_bundle(prefix, arrays)
    expected = b"".join(a.astype(a.dtype.newbyteorder("<")).tobytes(order="C") for _, a in arrays)
    assert open(checkpoint_bundle.data_filename(prefix), "rb").read() == expected
    reader = checkpoint_bundle.BundleReader(prefix)
    for name, array in arrays:
        assert reader.tensor(name).tolist() == array.tolist()
        raw = array.astype(array.dtype.newbyteorder("<")).tobytes(order="C")
        assert reader.entries[name].crc32c == crc32c.masked_crc32c(raw)
    assert sorted(os.listdir(tmp_path)) == ["model.data-00000-of-00001", "model.index"]


def test_threads_or_not_the_same_files(tmp_path, monkeypatch) -> None:
    files = []
    for threads in (True, False):
        monkeypatch.setattr(durable_file, "threads_available", lambda threads=threads: threads)
        prefix = str(tmp_path / f"model{threads}")
        checkpoint_bundle.write_bundle(prefix, _arrays())
        files.append([open(path, "rb").read() for path in (checkpoint_bundle.data_filename(prefix),
                                                            checkpoint_bundle.index_filename(prefix))])
    assert files[0] == files[1]
    assert struct.unpack("<Q", files[0][1][-8:])[0] == checkpoint_bundle.MAGIC


def test_crc_reads_an_array_in_place_as_its_bytes() -> None:
    array = np.arange(1000, dtype=np.float32).reshape(10, 100)
    assert crc32c.crc32c(array.reshape(-1).view("u1")) == crc32c.python_extend(0, array.tobytes())
    assert crc32c.crc32c(memoryview(array.tobytes())) == crc32c.python_extend(0, array.tobytes())
