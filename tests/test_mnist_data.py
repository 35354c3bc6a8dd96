"""MNIST data: the IDX reader (against hand-made files and the real data's published sha256), its errors
for corrupt files, the download path (against a local HTTP server only), the shipped sample and the TF1
tutorial reader."""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.server
import os
import re
import threading
from pathlib import Path

import numpy as np
import pytest

from webflow.datasets import mnist
from webflow.datasets.tutorial_reader import DataSet, read_data_sets

FIRST_TRAIN_LABELS = [5, 0, 4, 1, 9, 2, 1, 3, 1, 4]   # stated in ../shared/data/README.md


def idx_bytes(array: np.ndarray) -> bytes:
    """IDX encoding written out by hand from the format's definition (independent of mnist.write_idx)."""
    header = b"\x00\x00\x08" + bytes([array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    return header + array.astype(np.uint8).tobytes()


# --- the real data, checked against the published sha256 --------------------------------------------
def shared_mnist_folder() -> Path:
    root = os.environ.get("WEBFLOW_DATA")
    if not root:
        pytest.skip("WEBFLOW_DATA is not set (point it at ../shared/data to check the full MNIST files)")
    folder = mnist.find_folder(root)
    if folder is None:
        pytest.skip(f"WEBFLOW_DATA={root} holds no MNIST files")
    return folder


def published_sha256(folder: Path) -> dict:
    """The sha256 lines of the data README (`- train-images 60k: <hex>`), if the README is beside the data."""
    for readme in (folder / "README.md", folder.parent / "README.md"):
        if readme.is_file():
            found = dict(re.findall(r"^- ([\w-]+)[^:]*:\s+([0-9a-f]{64})$", readme.read_text(), re.M))
            if found:
                return found
    pytest.skip("no README with sha256 values beside the MNIST files")


def test_full_mnist_files_match_published_sha256_and_parse():
    folder = shared_mnist_folder()
    published = published_sha256(folder)
    names = {"train-images": "train-images-idx3-ubyte", "train-labels": "train-labels-idx1-ubyte",
             "t10k-images": "t10k-images-idx3-ubyte", "t10k-labels": "t10k-labels-idx1-ubyte"}
    for key, stem in names.items():
        data = gzip.decompress((folder / (stem + ".gz")).read_bytes())
        assert hashlib.sha256(data).hexdigest() == published[key], stem
    (x_train, y_train), (x_test, y_test) = mnist.load_data(folder)
    assert x_train.shape == (60000, 28, 28) and x_train.dtype == np.uint8
    assert y_train.shape == (60000,) and x_test.shape == (10000, 28, 28) and y_test.shape == (10000,)
    assert y_train[:10].tolist() == FIRST_TRAIN_LABELS
    assert np.bincount(y_test).sum() == 10000 and set(np.unique(y_train)) == set(range(10))
    # The IDX bytes after the 16-byte header are the image pixels, row by row.
    raw = gzip.decompress((folder / "train-images-idx3-ubyte.gz").read_bytes())
    assert raw[16:16 + 784] == x_train[0].tobytes()


def test_sample_is_the_first_images_of_the_full_data():
    folder = shared_mnist_folder()
    (x_train, y_train), (x_test, y_test) = mnist.load_data(folder)
    (s_train, s_labels), (s_test, s_test_labels) = mnist.load_sample()
    np.testing.assert_array_equal(s_train, x_train[:len(s_train)])
    np.testing.assert_array_equal(s_labels, y_train[:len(s_labels)])
    np.testing.assert_array_equal(s_test, x_test[:len(s_test)])
    np.testing.assert_array_equal(s_test_labels, y_test[:len(s_test_labels)])


def test_data_env_may_name_the_folder_or_its_parent(tmp_path, monkeypatch):
    folder = tmp_path / "mnist"
    write_fake_mnist(folder)
    for value in (tmp_path, folder):
        monkeypatch.setenv("WEBFLOW_DATA", str(value))
        (x_train, _), _ = mnist.load_data(download=False)
        assert x_train.shape == (3, 2, 2)
    monkeypatch.setenv("WEBFLOW_DATA", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="WEBFLOW_DATA=.*nowhere holds no MNIST"):
        mnist.load_data(download=False)


# --- the shipped sample -------------------------------------------------------------------------------
def test_sample_loads_and_matches_its_readme():
    (x_train, y_train), (x_test, y_test) = mnist.load_sample()
    assert x_train.shape == (6000, 28, 28) and y_train.shape == (6000,)
    assert x_test.shape == (1000, 28, 28) and y_test.shape == (1000,)
    assert x_train.dtype == np.uint8 and y_train.dtype == np.uint8
    assert y_train[:10].tolist() == FIRST_TRAIN_LABELS
    readme = (mnist.SAMPLE_DIR / "README.md").read_text()
    assert "LeCun" in readme and "CC BY-SA 3.0" in readme
    for name, digest in re.findall(r"`([\w-]+\.gz)` \| [^|]+ \| ([0-9a-f]{64})", readme):
        assert hashlib.sha256(gzip.decompress((mnist.SAMPLE_DIR / name).read_bytes())).hexdigest() == digest, name


# --- IDX parsing and its errors -----------------------------------------------------------------------
def test_idx_reader_reads_raw_and_gzip_files(tmp_path):
    images = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    (tmp_path / "raw-idx3-ubyte").write_bytes(idx_bytes(images))
    (tmp_path / "gz-idx3-ubyte.gz").write_bytes(gzip.compress(idx_bytes(images)))
    np.testing.assert_array_equal(mnist.read_idx(tmp_path / "raw-idx3-ubyte"), images)
    np.testing.assert_array_equal(mnist.read_idx(tmp_path / "gz-idx3-ubyte.gz"), images)
    mnist.write_idx(tmp_path / "written.gz", images)
    assert gzip.decompress((tmp_path / "written.gz").read_bytes()) == idx_bytes(images)


@pytest.mark.parametrize("mangle, message", [
    (lambda b: b"\x01" + b[1:], "bad magic number"),
    (lambda b: b[:2] + b"\x0d" + b[3:], r"element type 0x0d is not unsigned byte"),
    (lambda b: b[:-5], r"truncated: shape \(2, 3, 4\) needs 40 bytes, the file has 35"),
    (lambda b: b + b"\x00", "has trailing bytes"),
    (lambda b: b[:9], "truncated header"),
    (lambda b: b[:3], "too short for an IDX header"),
])
def test_corrupt_idx_files_raise_errors_naming_the_file(tmp_path, mangle, message):
    path = tmp_path / "broken-idx3-ubyte"
    path.write_bytes(mangle(idx_bytes(np.zeros((2, 3, 4), np.uint8))))
    with pytest.raises(mnist.IDXFormatError, match=message) as raised:
        mnist.read_idx(path)
    assert str(path) in str(raised.value)


def test_truncated_gzip_file_raises_error_naming_the_file(tmp_path):
    path = tmp_path / "cut-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(idx_bytes(np.arange(100, dtype=np.uint8)))[:-12])
    with pytest.raises(mnist.IDXFormatError, match="corrupt or truncated gzip") as raised:
        mnist.read_idx(path)
    assert str(path) in str(raised.value)


def test_images_and_labels_that_do_not_pair_up_are_rejected(tmp_path):
    write_fake_mnist(tmp_path)
    (tmp_path / "train-labels-idx1-ubyte.gz").write_bytes(gzip.compress(idx_bytes(np.zeros(2, np.uint8))))
    with pytest.raises(mnist.IDXFormatError, match=r"train images \(3, 2, 2\) and labels \(2,\) do not pair up"):
        mnist.load_data(tmp_path)


def test_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="No MNIST IDX files in"):
        mnist.load_data(tmp_path)


# --- downloading, against a local server only ---------------------------------------------------------
def fake_mnist_arrays() -> dict:
    rng = np.random.default_rng(3)
    return {"train_images": rng.integers(0, 256, (3, 2, 2), dtype=np.uint8),
            "train_labels": np.array([1, 2, 3], np.uint8),
            "test_images": rng.integers(0, 256, (2, 2, 2), dtype=np.uint8),
            "test_labels": np.array([4, 5], np.uint8)}


def write_fake_mnist(folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    arrays = fake_mnist_arrays()
    for key, array in arrays.items():
        (folder / (mnist.FILES[key][0] + ".gz")).write_bytes(gzip.compress(idx_bytes(array)))
    return arrays


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests: list = []

    def log_message(self, *args) -> None:
        return None

    def do_GET(self) -> None:
        QuietHandler.requests.append(self.path)
        super().do_GET()


@contextlib.contextmanager
def local_server(folder: Path):
    """An HTTP server on 127.0.0.1 (an ephemeral port) serving `folder`; stopped on exit."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def fake_published(monkeypatch, tmp_path):
    """Serves fake MNIST files and makes their sha256 the 'published' ones."""
    served = tmp_path / "served"
    arrays = write_fake_mnist(served)
    files = {key: (stem, hashlib.sha256(idx_bytes(arrays[key])).hexdigest()) for key, (stem, _) in mnist.FILES.items()}
    monkeypatch.setattr(mnist, "FILES", files)
    monkeypatch.delenv("WEBFLOW_DATA", raising=False)
    monkeypatch.setenv("WEBFLOW_CACHE", str(tmp_path / "cache"))
    QuietHandler.requests = []
    return served, arrays


def test_download_checks_sha256_and_fills_the_cache(fake_published, tmp_path):
    served, arrays = fake_published
    with local_server(served) as url:
        folder = mnist.download_files(mirrors=(url,), timeout=5)
    assert folder == tmp_path / "cache" / "mnist"
    assert sorted(QuietHandler.requests) == sorted("/" + stem + ".gz" for stem, _ in mnist.FILES.values())
    # The cache now serves load_data with no server at all.
    (x_train, y_train), (x_test, y_test) = mnist.load_data(download=False)
    np.testing.assert_array_equal(x_train, arrays["train_images"])
    np.testing.assert_array_equal(y_test, arrays["test_labels"])
    assert not [p for p in folder.iterdir() if p.suffix == ".tmp"], "no temp files left behind"
    # A second download finds every file already there with the right checksum and fetches nothing.
    QuietHandler.requests = []
    with local_server(served) as url:
        mnist.download_files(mirrors=(url,), timeout=5)
    assert QuietHandler.requests == []


def test_download_falls_back_to_the_next_mirror_and_rejects_bad_checksums(fake_published, tmp_path):
    served, _ = fake_published
    tampered = tmp_path / "tampered"
    write_fake_mnist(tampered)
    stem = mnist.FILES["train_labels"][0]
    (tampered / (stem + ".gz")).write_bytes(gzip.compress(idx_bytes(np.array([9, 9, 9], np.uint8))))
    empty = tmp_path / "empty"
    empty.mkdir()
    with local_server(empty) as missing_url, local_server(tampered) as bad_url:
        with pytest.raises(OSError, match=r"(?s)Could not download MNIST file train-labels.*404.*sha256 [0-9a-f]+ is "
                                          r"not the expected"):
            mnist.download_files(tmp_path / "target", mirrors=(missing_url, bad_url), timeout=5)
        assert not (tmp_path / "target" / (stem + ".gz")).exists()
        with local_server(served) as good_url:
            folder = mnist.download_files(tmp_path / "target", mirrors=(missing_url, bad_url, good_url), timeout=5)
    (_, y_train), _ = mnist.load_folder(folder, verify=True)
    assert y_train.tolist() == [1, 2, 3]


def test_load_data_downloads_when_nothing_is_local(fake_published, monkeypatch):
    served, arrays = fake_published
    with local_server(served) as url:
        monkeypatch.setattr(mnist, "MIRRORS", (url,))
        (x_train, _), _ = mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays["train_images"])


# --- the TF1 tutorial reader --------------------------------------------------------------------------
def test_read_data_sets_on_the_sample():
    data = read_data_sets(mnist.SAMPLE_DIR, one_hot=True, validation_size=1000)
    assert (data.train.num_examples, data.validation.num_examples, data.test.num_examples) == (5000, 1000, 1000)
    images = data.train.images
    assert images.shape == (5000, 784) and images.dtype == np.float32
    assert images.min() == 0.0 and images.max() == 1.0
    (x_train, y_train), _ = mnist.load_sample()
    np.testing.assert_allclose(data.validation.images[0], x_train[0].reshape(-1) / 255.0, rtol=1e-6)
    assert data.validation.labels.shape == (1000, 10) and data.validation.labels[0].argmax() == y_train[0]
    with pytest.raises(ValueError, match="Validation size should be between 0 and 6000. Received: 7000."):
        read_data_sets(mnist.SAMPLE_DIR, validation_size=7000)


def test_next_batch_visits_every_example_once_per_epoch():
    dataset = DataSet(np.arange(10, dtype=np.uint8).reshape(10, 1, 1), np.arange(10), seed=5)
    seen = [dataset.next_batch(4)[1] for _ in range(5)]          # 20 examples = exactly two epochs
    flat = np.concatenate(seen)
    assert sorted(flat[:10].tolist()) == list(range(10)) and sorted(flat[10:].tolist()) == list(range(10))
    assert flat[:10].tolist() != list(range(10)), "the order is shuffled"
    assert dataset.epochs_completed == 1          # the second epoch ended exactly at the last batch's end
    ordered = DataSet(np.zeros((3, 1, 1), np.uint8), np.arange(3))
    assert [ordered.next_batch(2, shuffle=False)[1].tolist() for _ in range(3)] == [[0, 1], [2, 0], [1, 2]]
