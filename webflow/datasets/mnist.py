"""MNIST handwritten digits: an IDX file reader, `load_data()` as Keras has it, and the sample shipped here.

The IDX format (LeCun's): a 4-byte magic number `00 00 08 N` (unsigned bytes, N dimensions), then N
big-endian uint32 sizes, then the bytes themselves. Files may be gzip-compressed (`.gz`).

Where the data comes from, in order:
1. `load_data(path)`: a folder holding the four files (or a folder with an `mnist/` subfolder);
2. the environment variable `WEBFLOW_DATA` (same rules);
3. the download cache (`~/.cache/webflow/mnist`, or `WEBFLOW_CACHE/mnist`), filled by
4. a download from the usual public mirrors when `download=True`, each file checked against its sha256.
`load_sample()` reads the 6,000 + 1,000 image sample inside the package (no network, no files needed).
"""

from __future__ import annotations

import array
import gzip
import hashlib
import math
import os
import tempfile
import urllib.request
import zlib
from pathlib import Path

from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import dtypes

# The four files and the sha256 of their *uncompressed* bytes (the same whichever mirror compressed them).
FILES = {
    "train_images": ("train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"),
    "train_labels": ("train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5"),
    "test_images": ("t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7"),
    "test_labels": ("t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"),
}
MIRRORS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
SAMPLE_DIR = Path(__file__).parent / "sample"
IDX_UBYTE = 0x08


class IDXFormatError(ValueError):
    """A file that is not a well-formed IDX file of unsigned bytes (corrupt, truncated, wrong kind)."""


# --- reading IDX files ----------------------------------------------------------------------------
def read_file_bytes(path: str | os.PathLike) -> bytes:
    """The uncompressed bytes of `path` (gunzipped if it is gzip data, whatever its name)."""
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] != b"\x1f\x8b":
        return raw
    try:
        return gzip.decompress(raw)
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as error:  # zlib.error: a damaged deflate stream
        raise IDXFormatError(f"{path}: corrupt or truncated gzip data ({error})") from None


def parse_idx(data: bytes, source: str = "<bytes>") -> np.ndarray:
    """The uint8 array stored in IDX bytes `data`; IDXFormatError naming `source` if anything is off."""
    if len(data) < 4:
        raise IDXFormatError(f"{source}: too short for an IDX header ({len(data)} bytes)")
    zero1, zero2, type_code, ndim = data[0], data[1], data[2], data[3]
    if zero1 != 0 or zero2 != 0:
        raise IDXFormatError(f"{source}: bad magic number {data[:4].hex()} (an IDX file starts with 00 00)")
    if type_code != IDX_UBYTE:
        raise IDXFormatError(f"{source}: element type 0x{type_code:02x} is not unsigned byte (0x08)")
    header_size = 4 + 4 * ndim
    if len(data) < header_size:
        raise IDXFormatError(f"{source}: truncated header ({len(data)} bytes, {ndim} dimensions need {header_size})")
    shape = tuple(int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim))
    expected = math.prod(shape) + header_size
    if len(data) != expected:
        what = "truncated" if len(data) < expected else "has trailing bytes"
        raise IDXFormatError(f"{source}: {what}: shape {shape} needs {expected} bytes, the file has {len(data)}")
    if not HAVE_NUMPY:  # Pyodide without NumPy: webflow's own storage, fed to placeholders the same way
        return CArray(array.array("B", data[header_size:]), shape, dtypes.uint8)
    if math.prod(size for size in shape if size) >= 2**62:  # zero-sized, yet too wide for NumPy (a forged header)
        raise IDXFormatError(f"{source}: implausible shape {shape}")
    return np.frombuffer(data, dtype=np.uint8, offset=header_size).reshape(shape).copy()


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """Reads one IDX file (raw or gzip) into a uint8 array."""
    return parse_idx(read_file_bytes(path), str(path))


def write_idx(path: str | os.PathLike, array: np.ndarray) -> None:
    """Writes a uint8 array as a gzip-compressed IDX file (fixed mtime: same bytes every time), atomically."""
    array = np.ascontiguousarray(array, dtype=np.uint8)
    header = bytes([0, 0, IDX_UBYTE, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
    atomic_write(Path(path), gzip.compress(header + array.tobytes(), compresslevel=9, mtime=0))


def atomic_write(path: Path, data: bytes) -> None:
    """Writes to a temp file in the same folder, then renames it into place: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.chmod(temp, 0o644)   # mkstemp makes owner-only files; a data file is for everyone to read
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


# --- finding the files ----------------------------------------------------------------------------
def find_file(folder: Path, stem: str) -> Path | None:
    """`stem.gz` or `stem` (or the old `stem` with a dot before idx) inside `folder`."""
    for name in (stem + ".gz", stem, stem.replace("-idx", ".idx") + ".gz", stem.replace("-idx", ".idx")):
        if (folder / name).is_file():
            return folder / name
    return None


def find_folder(path: str | os.PathLike) -> Path | None:
    """`path` itself or `path/mnist`, whichever holds all four files; None if neither does."""
    for folder in (Path(path), Path(path) / "mnist"):
        if all(find_file(folder, stem) is not None for stem, _ in FILES.values()):
            return folder
    return None


def cache_dir() -> Path:
    root = os.environ.get("WEBFLOW_CACHE") or Path.home() / ".cache" / "webflow"
    return Path(root) / "mnist"


def load_folder(folder: str | os.PathLike, verify: bool = False) -> tuple:
    """((x_train, y_train), (x_test, y_test)) from a folder holding the four IDX files."""
    arrays = {}
    for key, (stem, sha256) in FILES.items():
        path = find_file(Path(folder), stem)
        if path is None:
            raise FileNotFoundError(f"MNIST file {stem}(.gz) not found in {folder}")
        data = read_file_bytes(path)
        if verify and hashlib.sha256(data).hexdigest() != sha256:
            raise IDXFormatError(f"{path}: sha256 {hashlib.sha256(data).hexdigest()} is not MNIST's {sha256}")
        arrays[key] = parse_idx(data, str(path))
    return check_pairs(arrays, str(folder))


def check_pairs(arrays: dict, source: str) -> tuple:
    for split in ("train", "test"):
        images, labels = arrays[f"{split}_images"], arrays[f"{split}_labels"]
        if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
            raise IDXFormatError(f"{source}: {split} images {images.shape} and labels {labels.shape} do not pair up "
                                 "(expected [n, rows, cols] and [n])")
        top = max(labels.data, default=0) if isinstance(labels, CArray) else (labels.max() if labels.size else 0)
        if top > 9:
            raise IDXFormatError(f"{source}: {split} labels hold {top}, not a digit")
    return (arrays["train_images"], arrays["train_labels"]), (arrays["test_images"], arrays["test_labels"])


# --- downloading ----------------------------------------------------------------------------------
def download_files(target: str | os.PathLike | None = None, mirrors: tuple | None = None,
                   timeout: float = 60.0) -> Path:
    """Fetches the four files into `target` (default: the cache), checking each one's sha256; returns the folder.

    A file already there with the right checksum is kept. Each file is written atomically, so an
    interrupted download leaves nothing half-written behind.
    """
    folder = Path(target) if target is not None else cache_dir()
    mirrors = MIRRORS if mirrors is None else mirrors
    for stem, sha256 in FILES.values():
        path = folder / (stem + ".gz")
        if path.is_file() and _sha256_ok(path, sha256):
            continue
        errors = []
        for mirror in mirrors:
            url = mirror + stem + ".gz"
            try:
                with urllib.request.urlopen(url, timeout=timeout) as response:
                    payload = response.read()
                data = gzip.decompress(payload) if payload[:2] == b"\x1f\x8b" else payload
            except (OSError, EOFError) as error:
                errors.append(f"{url}: {error}")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest != sha256:
                errors.append(f"{url}: sha256 {digest} is not the expected {sha256}")
                continue
            atomic_write(path, gzip.compress(data, mtime=0) if payload[:2] != b"\x1f\x8b" else payload)
            break
        else:
            raise OSError(f"Could not download MNIST file {stem}.gz:\n  " + "\n  ".join(errors) +
                          "\nPoint WEBFLOW_DATA (or path=...) at a folder with the IDX files, or use load_sample().")
    return folder


def _sha256_ok(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(read_file_bytes(path)).hexdigest() == sha256
    except (OSError, IDXFormatError):
        return False


# --- the public entry points ----------------------------------------------------------------------
def locate(path: str | os.PathLike | None = None) -> Path | None:
    """The folder `load_data` would read: `path`, else WEBFLOW_DATA, else the cache; None if none has MNIST."""
    if path is not None:
        found = find_folder(path)
        if found is None:
            raise FileNotFoundError(f"No MNIST IDX files in {path} or {Path(path) / 'mnist'} (expected "
                                    + ", ".join(stem + ".gz" for stem, _ in FILES.values()) + ")")
        return found
    env = os.environ.get("WEBFLOW_DATA")
    if env:
        found = find_folder(env)
        if found is None:
            raise FileNotFoundError(f"WEBFLOW_DATA={env} holds no MNIST IDX files (looked in it and in its mnist/)")
        return found
    return find_folder(cache_dir())


def load_data(path: str | os.PathLike | None = None, download: bool = True) -> tuple:
    """Keras's `mnist.load_data()`: ((x_train, y_train), (x_test, y_test)), uint8 [n, 28, 28] images and [n] labels.

    Reads `path` (a folder), else WEBFLOW_DATA, else the cache; downloads into the cache (checking sha256)
    when none has the files and `download` is true.
    """
    folder = locate(path)
    if folder is None:
        if not download:
            raise FileNotFoundError("MNIST not found: pass path=..., set WEBFLOW_DATA, or use load_sample()")
        folder = download_files()
    return load_folder(folder)


def load_sample() -> tuple:
    """The sample shipped in the package: the first 6,000 training and first 1,000 test images of MNIST."""
    return load_folder(SAMPLE_DIR)
