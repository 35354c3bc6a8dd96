"""TensorFlow's tensor bundle (the V2 checkpoint format), written and read byte for byte.

A checkpoint with prefix P is two files (TensorFlow's core/util/tensor_bundle/tensor_bundle.cc):

- `P.data-00000-of-00001`: every tensor's raw little-endian bytes, back to back, in the order written;
- `P.index`: a LevelDB-format table (TensorFlow's tsl/lib/io/table_builder.cc) mapping each key, sorted
  bytewise, to a serialized message. The key "" holds the BundleHeaderProto (number of shards, byte order,
  format version); every other key is a tensor's name and holds its BundleEntryProto: dtype, shape, shard,
  offset and size in the data file, and the masked CRC32C of its bytes.

The table, from the start of the file:

    data block ... data block | metaindex block | index block | footer (48 bytes)

A block is a run of entries `varint32 shared, varint32 non_shared, varint32 value_length, key[shared:], value`,
each key stored as the number of leading bytes it shares with the previous key plus the rest; every 16th
entry (a "restart point") stores its key whole, and the block ends with the restart points' offsets (uint32
each) and their count (uint32). Every block is followed by a 5-byte trailer: compression type (0, none: TF
writes checkpoints uncompressed) and the masked CRC32C of the block plus that type byte. The index block
has one entry per data block (restart interval 1): a key >= the block's last key and < the next block's
first key, and as value the block's handle (varint64 offset, varint64 size). The metaindex block is empty
(no filters). The footer holds the metaindex and index handles, zero-padded to 40 bytes, then the magic
number 0xdb4775248b80fb57 (little-endian).

Reading checks every CRC (each block's, each tensor's) and raises DataLossError naming the file on any
damage or truncation. Files are written to a temporary name, synced and renamed into place: the data file
first, then the index, so an index on disk always describes a complete data file (io/durable_file.py).

String tensors (TF2's object graph is one) have a layout of their own: bundle_strings.py.
"""

from __future__ import annotations

import contextlib
import os
import struct
from typing import Any

from webflow.framework import bfloat16_bits, dtypes, errors
from webflow.io import buffer_values, bundle_strings, crc32c, durable_file, varint

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48                # two BlockHandles of at most 20 bytes each, padded to 40, plus the magic
BLOCK_SIZE = 262144             # TensorFlow's table::Options::block_size for checkpoint index files
RESTART_INTERVAL = 16           # table::Options::block_restart_interval
NO_COMPRESSION = 0
HEADER_KEY = b""
TENSOR_BUNDLE_VERSION = 1       # kTensorBundleVersion (producer), kTensorBundleMinConsumer is 0


def data_filename(prefix: str, shard: int = 0, num_shards: int = 1) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


# --- varints and block handles ---------------------------------------------------------------------------

_varint = varint.encode
_read_varint = varint.read


def _handle(offset: int, size: int) -> bytes:
    return _varint(offset) + _varint(size)


# --- writing ---------------------------------------------------------------------------------------------

class _BlockBuilder:
    """One block: prefix-compressed entries, restart points every `interval` entries (block_builder.cc)."""

    def __init__(self, interval: int):
        self.interval = interval
        self.reset()

    def reset(self) -> None:
        self.buffer = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def empty(self) -> bool:
        return not self.buffer

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.counter = 0
        self.buffer += _varint(shared) + _varint(len(key) - shared) + _varint(len(value))
        self.buffer += key[shared:] + value
        self.last_key = key
        self.counter += 1

    def finish(self) -> bytes:
        return bytes(self.buffer) + b"".join(struct.pack("<I", r) for r in self.restarts) + \
            struct.pack("<I", len(self.restarts))


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """The bytewise comparator's FindShortestSeparator: a short key k with start <= k < limit."""
    common = 0
    size = min(len(start), len(limit))
    while common < size and start[common] == limit[common]:
        common += 1
    if common < size:
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """The bytewise comparator's FindShortSuccessor: a short key >= key."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(items: list[tuple[bytes, bytes]]) -> bytes:
    """The bytes of a LevelDB table holding (key, value) pairs, which must be sorted by key and unique."""
    out = bytearray()
    data = _BlockBuilder(RESTART_INTERVAL)
    index = _BlockBuilder(1)
    pending: tuple[int, int] | None = None    # the handle of a finished block still lacking its index entry

    def write_block(block: _BlockBuilder) -> tuple[int, int]:
        contents = block.finish()
        offset = len(out)
        trailer_type = bytes([NO_COMPRESSION])
        out.extend(contents + trailer_type + struct.pack("<I", crc32c.masked_crc32c(contents + trailer_type)))
        block.reset()
        return offset, len(contents)

    last_key = None
    for key, value in items:
        if last_key is not None and key <= last_key:
            raise ValueError(f"table keys must be added in increasing order: {key!r} after {last_key!r}")
        if pending is not None:
            index.add(_shortest_separator(last_key, key), _handle(*pending))
            pending = None
        data.add(key, value)
        last_key = key
        if data.size_estimate() >= BLOCK_SIZE:
            pending = write_block(data)
    if not data.empty():
        pending = write_block(data)
    if pending is not None:
        index.add(_short_successor(last_key), _handle(*pending))
    metaindex_handle = _handle(*write_block(_BlockBuilder(RESTART_INTERVAL)))
    index_handle = _handle(*write_block(index))
    footer = metaindex_handle + index_handle
    out.extend(footer + bytes(FOOTER_SIZE - 8 - len(footer)) + struct.pack("<Q", MAGIC))
    return bytes(out)


def tensor_bytes(array: Any) -> bytes:
    """A NumPy array's elements as TensorFlow stores them: C order, little-endian (numbers and booleans)."""
    if buffer_values.is_buffer_array(array):  # a CArray (no NumPy, as in Pyodide): its buffer, already in C order
        return buffer_values.little_endian_bytes(array)
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes(order="C")


def _tensor_buffer(array: Any) -> Any:
    """The bytes of tensor_bytes(array) without copying a little-endian C-ordered array: a flat uint8 view of
    it, which file writes and google_crc32c read in place (a copy per tensor cost ~5 ms per 100 MB:
    benchmarks/checkpoint_io.py, benchmarks/FIGURES.md)."""
    if buffer_values.is_buffer_array(array):
        return buffer_values.little_endian_bytes(array)
    flat = array.astype(array.dtype.newbyteorder("<"), copy=False).reshape(-1)
    if not flat.flags.c_contiguous:   # (reshape may keep a view with a stride: every 2nd element of a row...)
        flat = flat.copy()
    return flat.view("u1")


def _entry_bytes(array: Any, offset: int, size: int, crc: int) -> bytes:
    """The serialized BundleEntryProto of a tensor stored at data-file bytes offset..offset+size."""
    from webflow.protos import tensor_bundle_pb2

    entry = tensor_bundle_pb2.BundleEntryProto()
    entry.dtype = dtypes.as_dtype(array.dtype).as_datatype_enum
    entry.shape.SetInParent()
    for dim in array.shape:
        entry.shape.dim.add().size = int(dim)
    entry.shard_id = 0
    entry.offset = offset
    entry.size = size
    entry.crc32c = crc
    return entry.SerializeToString()


def _write_and_checksum(data_file: durable_file.DurableFile, array: Any) -> tuple[int, int]:
    """Writes one tensor's bytes; returns (their size, their masked CRC32C). (Writing a big tensor in a thread
    while computing its CRC was measured a tie: benchmarks/FIGURES.md.)"""
    if buffer_values.is_strings(array):
        raw, crc = bundle_strings.encode(array)
    else:
        raw = _tensor_buffer(array)
        crc = crc32c.masked_crc32c(raw)
    data_file.write(raw)
    return len(raw), crc


def _write_tensors(data_file: durable_file.DurableFile, tensors: list[tuple[str, Any]]) -> dict[bytes, bytes]:
    """Each tensor's bytes, in the order given, straight to the data file; {key: serialized BundleEntryProto}."""
    entries = {}
    offset = 0
    for name, array in tensors:
        key = name.encode("utf-8")
        if key in entries or not key:
            raise ValueError(f"tensor names in a bundle must be unique and non-empty: {name!r}")
        size, crc = _write_and_checksum(data_file, array)
        entries[key] = _entry_bytes(array, offset, size, crc)
        offset += size
    return entries


def _index_table(entries: dict[bytes, bytes]) -> bytes:
    from webflow.protos import tensor_bundle_pb2

    header = tensor_bundle_pb2.BundleHeaderProto()
    header.num_shards = 1
    header.endianness = tensor_bundle_pb2.BundleHeaderProto.LITTLE
    header.version.producer = TENSOR_BUNDLE_VERSION
    return build_table([(HEADER_KEY, header.SerializeToString())] + sorted(entries.items()))


def write_bundle(prefix: str, tensors: list[tuple[str, Any]]) -> None:
    """Writes `prefix.data-00000-of-00001` and `prefix.index` for (name, NumPy array) pairs.

    Bytes go to the data file in the order given (TensorFlow's Saver gives them sorted by name); the index
    lists them sorted. Each file is written under a temporary name and synced (io/durable_file.py); both are
    renamed once both are on the disk, data first, then the directory is synced: a kill at any moment leaves
    the old checkpoint or the new one, and an index on disk always describes a complete data file.
    """
    directory = os.path.dirname(prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    data_file = durable_file.DurableFile(data_filename(prefix))
    index_file = None
    data_synced = None
    try:
        entries = _write_tensors(data_file, tensors)
        # the data file's sync is most of a big save (the disk's time): a thread waits for it while the index
        # is built, written and synced (benchmarks/checkpoint_io.py); without threads (Pyodide) one after the other
        data_synced = durable_file.Background(data_file.finish, durable_file.threads_available())
        index_file = durable_file.DurableFile(index_filename(prefix))
        index_file.write(_index_table(entries))
        index_file.finish()
        data_synced.wait()
        data_file.publish()
        index_file.publish()
    except BaseException:
        if data_synced is not None:
            with contextlib.suppress(BaseException):
                data_synced.wait()   # the thread may still hold the file: let it end before removing it
        data_file.discard()
        if index_file is not None:
            index_file.discard()
        raise
    durable_file.sync_directory(directory)


# --- reading ---------------------------------------------------------------------------------------------

def _read_block(data: bytes, offset: int, size: int, path: str) -> bytes:
    end = offset + size
    if offset < 0 or end + 5 > len(data):
        raise errors.DataLossError(None, None, f"truncated block read in {path}: block at {offset} of "
                                               f"{size} bytes runs past the end of the file ({len(data)} bytes)")
    contents = data[offset:end]
    kind = data[end]
    (stored,) = struct.unpack_from("<I", data, end + 1)
    if crc32c.unmask(stored) != crc32c.crc32c(data[offset:end + 1]):
        raise errors.DataLossError(None, None, f"block checksum mismatch in {path} (block at offset {offset})")
    if kind != NO_COMPRESSION:
        raise errors.DataLossError(None, None, f"bad block type {kind} in {path}: webflow reads uncompressed "
                                               "index files only")
    return contents


def _block_entries(block: bytes, where: str) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise errors.DataLossError(None, None, f"bad block contents in {where}")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise errors.DataLossError(None, None, f"bad block contents in {where}")
    entries = []
    pos = 0
    key = b""
    while pos < limit:
        shared, pos = _read_varint(block, pos, limit, where)
        non_shared, pos = _read_varint(block, pos, limit, where)
        value_length, pos = _read_varint(block, pos, limit, where)
        if shared > len(key) or pos + non_shared + value_length > limit:
            raise errors.DataLossError(None, None, f"bad entry in block in {where}")
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        entries.append((key, block[pos:pos + value_length]))
        pos += value_length
    return entries


def read_table(path: str) -> list[tuple[bytes, bytes]]:
    """The (key, value) pairs of a LevelDB table file, every block's CRC checked."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    if len(data) < FOOTER_SIZE:
        raise errors.DataLossError(None, None, f"file is too short to be an sstable: {path} "
                                               f"({len(data)} bytes)")
    footer = data[-FOOTER_SIZE:]
    if struct.unpack_from("<Q", footer, FOOTER_SIZE - 8)[0] != MAGIC:
        raise errors.DataLossError(None, None, f"not an sstable (bad magic number): {path}")
    where = f"the footer of {path}"
    meta_offset, pos = _read_varint(footer, 0, 40, where)
    meta_size, pos = _read_varint(footer, pos, 40, where)
    index_offset, pos = _read_varint(footer, pos, 40, where)
    index_size, pos = _read_varint(footer, pos, 40, where)
    body = data[:-FOOTER_SIZE]
    _block_entries(_read_block(body, meta_offset, meta_size, path), path)   # (empty: checked, not used)
    items = []
    for _, handle_bytes in _block_entries(_read_block(body, index_offset, index_size, path), path):
        offset, pos = _read_varint(handle_bytes, 0, len(handle_bytes), path)
        size, _ = _read_varint(handle_bytes, pos, len(handle_bytes), path)
        items.extend(_block_entries(_read_block(body, offset, size, path), path))
    return items


class BundleReader:
    """A checkpoint's index, read and checked at construction; tensors read (and CRC-checked) on demand."""

    def __init__(self, prefix: str):
        from webflow.protos import tensor_bundle_pb2

        self.prefix = prefix
        self.index_path = index_filename(prefix)
        items = read_table(self.index_path)
        if not items or items[0][0] != HEADER_KEY:
            raise errors.DataLossError(None, None, f"no bundle header in {self.index_path}")
        self.header = tensor_bundle_pb2.BundleHeaderProto()
        self.entries: dict[str, Any] = {}
        try:
            self.header.ParseFromString(items[0][1])
            for key, value in items[1:]:
                entry = tensor_bundle_pb2.BundleEntryProto()
                entry.ParseFromString(value)
                self.entries[key.decode("utf-8")] = entry
        except Exception as error:  # protobuf's DecodeError, bad UTF-8
            raise errors.DataLossError(None, None, f"corrupt entry in {self.index_path}: {error}") from None
        if self.header.endianness != tensor_bundle_pb2.BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(None, None, f"big-endian checkpoint {self.index_path}")
        self._shards: dict[int, bytes] = {}

    def _shard(self, shard_id: int) -> tuple[str, bytes]:
        path = data_filename(self.prefix, shard_id, self.header.num_shards)
        if shard_id not in self._shards:
            try:
                with open(path, "rb") as handle:
                    self._shards[shard_id] = handle.read()
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
        return path, self._shards[shard_id]

    def has_tensor(self, name: str) -> bool:
        return name in self.entries

    def shape(self, name: str) -> list[int]:
        return [dim.size for dim in self._entry(name).shape.dim]

    def dtype(self, name: str) -> dtypes.DType:
        return self._entry_dtype(name, self._entry(name))

    def _entry_dtype(self, name: str, entry: Any) -> dtypes.DType:
        # A damaged or foreign index may hold any DataType number: as_dtype's TypeError must not leak.
        try:
            return dtypes.as_dtype(entry.dtype)
        except TypeError:
            raise errors.DataLossError(None, None, f"tensor {name} in {self.index_path}: unknown or unsupported "
                                                   f"DataType {entry.dtype}") from None

    def _entry(self, name: str) -> Any:
        if name not in self.entries:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return self.entries[name]

    def tensor(self, name: str) -> Any:
        """The NumPy array stored under `name`; DataLossError naming the data file if its bytes are damaged."""
        from webflow.io.tensor_proto import numpy_module

        np = numpy_module()
        dtype, shape, payload = self.checked_tensor(name)
        if dtype == dtypes.string:
            out = np.empty(len(payload), dtype=object)
            out[:] = payload
            return out.reshape(shape)
        if dtype == dtypes.bfloat16:  # 16 bits each: the high half of the float32 that holds it in webflow
            return bfloat16_bits.from_high_halves(np.frombuffer(payload, dtype="<u2")).reshape(shape)
        np_dtype = np.dtype(dtype.as_numpy_dtype).newbyteorder("<")
        return np.frombuffer(payload, dtype=np_dtype).astype(np_dtype.newbyteorder("="), copy=True).reshape(shape)

    def checked_tensor(self, name: str) -> tuple[dtypes.DType, list[int], Any]:
        """(dtype, shape, payload) of the tensor stored under `name`, its CRCs and size checked, without NumPy:
        the payload is the little-endian bytes of a numeric tensor, the list of elements (bytes) of a string one.
        Where NumPy is missing (Pyodide) the caller makes its array from these (train/checkpoint_values.py)."""
        entry = self._entry(name)
        if entry.slices:
            raise errors.UnimplementedError(None, None, f"partitioned variable {name} in {self.index_path}")
        dtype = self._entry_dtype(name, entry)
        path, data = self._shard(entry.shard_id)
        raw = data[entry.offset:entry.offset + entry.size]
        if len(raw) != entry.size:
            raise errors.DataLossError(None, None, f"truncated data file {path}: tensor {name} needs bytes "
                                                   f"{entry.offset}..{entry.offset + entry.size}, the file has "
                                                   f"{len(data)}")
        shape = [dim.size for dim in entry.shape.dim]
        if dtype == dtypes.string:
            return dtype, shape, self._string_elements(name, entry, raw, shape, path)
        if crc32c.crc32c(raw) != crc32c.unmask(entry.crc32c):
            raise errors.DataLossError(None, None, f"Checksum does not match: stored {entry.crc32c} vs. "
                                                   f"calculated on the restored bytes "
                                                   f"{crc32c.masked_crc32c(raw)} for tensor {name} in {path}")
        count = 1
        for size in shape:
            count *= size
        if count * dtype.size != entry.size:
            raise errors.DataLossError(None, None, f"tensor {name} in {self.index_path}: {entry.size} bytes "
                                                   f"for shape {shape} of {dtype.name}")
        return dtype, shape, raw

    def _string_elements(self, name: str, entry: Any, raw: bytes, shape: list[int], path: str) -> list[bytes]:
        """The bytes elements of a string tensor (bundle_strings.py's layout, both CRCs checked)."""
        count = 1
        for size in shape:
            count *= size
        return bundle_strings.decode(raw, count, entry.crc32c, f"tensor {name} in {path}")
