"""The checkpoint ops of TensorFlow's TF1 Saver graph: `SaveV2`, `RestoreV2`, `MergeV2Checkpoints`,
`ShardedFilename` (TensorFlow's io_ops), each a stanza whose kernel reads or writes the V2 bundle of
io/checkpoint_bundle.py.

A TensorFlow Saver puts them in the graph under `save/`, and its SaverDef names what to run: `save/Const:0`
(the prefix, fed), `save/control_dependency:0` or `save/Identity:0` (saving), `save/restore_all` (restoring,
through `RestoreV2` -> one `Assign` per variable). With these registered, webflow imports such a graph
(`import_meta_graph`, a TensorFlow SavedModel) and running those ops by name saves and restores. They live in
io/, not ops/, because their kernels are the bundle's reader and writer (ops/ may not import io/).

The kernels need NumPy (the bundle's arrays). Partitioned variables (non-empty `shape_and_slices`) are not
supported: UnimplementedError.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from webflow.framework import errors
from webflow.framework.dtypes import as_dtype, string
from webflow.io import bfloat16_bundle, checkpoint_bundle
from webflow.io.tensor_proto import numpy_module
from webflow.ops import string_ops  # noqa: F401 - StringJoin, StaticRegexFullMatch: in a sharded Saver's graph
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs


def _text(value: Any) -> str:
    value = numpy_module().asarray(value, dtype=object)
    item = value[()] if value.ndim == 0 else value
    return item.decode("utf-8") if isinstance(item, bytes) else str(item)


def _texts(value: Any) -> list[str]:
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v)
            for v in numpy_module().asarray(value, dtype=object).reshape(-1).tolist()]


def _check_slices(shape_and_slices: Any, count: int) -> None:
    slices = _texts(shape_and_slices)
    if len(slices) != count:
        raise errors.InvalidArgumentError(None, None, f"shape_and_slices has {len(slices)} entries for {count} "
                                                      "tensor names")
    if any(slices):
        raise errors.UnimplementedError(None, None, "webflow saves and restores whole tensors only: "
                                                    "shape_and_slices must be empty strings (no partitioned variables)")


def _require_rank(tensor: Any, rank: int, what: str) -> None:
    if tensor.shape.rank is not None and tensor.shape.rank != rank:
        raise ShapeError(f"Shape must be rank {rank} but is rank {tensor.shape.rank} for {what}")


# --- SaveV2 -------------------------------------------------------------------------------------------------
def _save_shape(inputs: list, attrs: dict) -> list:
    _require_rank(inputs[0], 0, "prefix")
    _require_rank(inputs[1], 1, "tensor_names")
    _require_rank(inputs[2], 1, "shape_and_slices")
    return no_outputs(inputs, attrs)


@register_op("SaveV2", "SaveV2", inputs=("prefix", "tensor_names", "shape_and_slices", "*tensors"),
             shape=_save_shape, stateful=True)
def save_v2_kernel(prefix: Any, tensor_names: Any, shape_and_slices: Any, *tensors: Any, dtypes: Any = None) -> None:
    """Writes `prefix.index` + `prefix.data-00000-of-00001` holding tensors[i] under tensor_names[i]."""
    names = _texts(tensor_names)
    if len(names) != len(tensors):
        raise errors.InvalidArgumentError(None, None, f"Got {len(tensors)} tensors but {len(names)} tensor names")
    _check_slices(shape_and_slices, len(names))
    kinds = list(dtypes or [None] * len(tensors))
    checkpoint_bundle.write_bundle(_text(prefix), [(n, _bundle_value(t, kind))
                                                   for n, t, kind in zip(names, tensors, kinds)])


def _bundle_value(value: Any, dtype: Any) -> Any:
    """A tensor's value as write_bundle takes it; a bfloat16 one (float32 storage) as its 16-bit values."""
    if dtype is not None and dtype.base_dtype.name == "bfloat16":
        return bfloat16_bundle.bundle_value(value)
    return numpy_module().asarray(value)


# --- RestoreV2 ----------------------------------------------------------------------------------------------
def _restore_shape(inputs: list, attrs: dict) -> list:
    _require_rank(inputs[0], 0, "prefix")
    _require_rank(inputs[1], 1, "tensor_names")
    return [output_spec(None, dtype) for dtype in attrs["dtypes"]]


@register_op("RestoreV2", "RestoreV2", inputs=("prefix", "tensor_names", "shape_and_slices"),
             shape=_restore_shape, stateful=True)
def restore_v2_kernel(prefix: Any, tensor_names: Any, shape_and_slices: Any, *, dtypes: Any) -> list:
    """tensors[i] = the tensor stored under tensor_names[i] in the checkpoint `prefix`, of dtype dtypes[i]."""
    names, prefix = _texts(tensor_names), _text(prefix)
    _check_slices(shape_and_slices, len(names))
    if len(names) != len(dtypes):
        raise errors.InvalidArgumentError(None, None, f"Got {len(names)} tensor names but {len(dtypes)} dtypes")
    if not os.path.exists(checkpoint_bundle.index_filename(prefix)):
        raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                                               f"matching files for {prefix}")
    reader = checkpoint_bundle.BundleReader(prefix)
    out = []
    for name, wanted in zip(names, dtypes):
        stored = reader.dtype(name)   # NotFoundError "Key ... not found in checkpoint" when absent
        if stored != wanted.base_dtype:
            raise errors.InvalidArgumentError(None, None, f"tensor_name = {name}; expected dtype "
                                                          f"{_type_string(wanted)} does not equal original dtype "
                                                          f"{_type_string(stored)}")
        out.append(reader.tensor(name))
    return out[0] if len(out) == 1 else out   # the executor stores a lone output's value as it is


def _type_string(dtype: Any) -> str:
    """TensorFlow's C++ name of a dtype (DataTypeString), which its kernels' messages use."""
    name = dtype.base_dtype.name
    return {"float32": "float", "float64": "double", "float16": "half"}.get(name, name)


# --- ShardedFilename ------------------------------------------------------------------------------------------
def _sharded_filename_shape(inputs: list, attrs: dict) -> tuple:
    for tensor, what in zip(inputs, ("basename", "shard", "num_shards")):
        _require_rank(tensor, 0, what)
    return output_spec((), string)


@register_op("ShardedFilename", "ShardedFilename", inputs=("basename", "shard", "num_shards"),
             shape=_sharded_filename_shape)
def sharded_filename_kernel(basename: Any, shard: Any, num_shards: Any) -> Any:
    """filename = "%s-%05d-of-%05d" % (basename, shard, num_shards)."""
    out = numpy_module().empty((), dtype=object)
    out[()] = f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}".encode()
    return out


# --- MergeV2Checkpoints ---------------------------------------------------------------------------------------
def _merge_shape(inputs: list, attrs: dict) -> list:
    _require_rank(inputs[0], 1, "checkpoint_prefixes")
    _require_rank(inputs[1], 0, "destination_prefix")
    return no_outputs(inputs, attrs)


@register_op("MergeV2Checkpoints", "MergeV2Checkpoints", inputs=("checkpoint_prefixes", "destination_prefix"),
             shape=_merge_shape, stateful=True)
def merge_v2_checkpoints_kernel(checkpoint_prefixes: Any, destination_prefix: Any, *, delete_old_dirs: bool = True,
                                allow_missing_files: bool = False) -> None:
    """One checkpoint `destination_prefix` from the single-shard checkpoints `checkpoint_prefixes`: shard i's
    data file renamed to `destination.data-i-of-n`, one index listing every tensor with its shard; the old
    index files deleted, and their directories too when `delete_old_dirs` and empty."""
    from webflow.protos import tensor_bundle_pb2

    sources, destination = _texts(checkpoint_prefixes), _text(destination_prefix)
    if allow_missing_files:
        sources = [p for p in sources if os.path.exists(checkpoint_bundle.index_filename(p))]
    items, renames = {}, []
    for shard, source in enumerate(sources):
        reader = checkpoint_bundle.BundleReader(source)
        if reader.header.num_shards != 1:
            raise errors.UnimplementedError(None, None, f"{source} has {reader.header.num_shards} shards: webflow "
                                                        "merges single-shard checkpoints")
        for name, entry in reader.entries.items():
            if name.encode("utf-8") in items:
                raise errors.InvalidArgumentError(None, None, f"Duplicate tensor key {name} in {source}")
            entry.shard_id = shard
            items[name.encode("utf-8")] = entry.SerializeToString()
        renames.append((checkpoint_bundle.data_filename(source),
                        checkpoint_bundle.data_filename(destination, shard, len(sources))))
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=len(sources),
                                                 endianness=tensor_bundle_pb2.BundleHeaderProto.LITTLE)
    header.version.producer = checkpoint_bundle.TENSOR_BUNDLE_VERSION
    table = checkpoint_bundle.build_table([(checkpoint_bundle.HEADER_KEY, header.SerializeToString())]
                                          + sorted(items.items()))
    if os.path.dirname(destination):
        os.makedirs(os.path.dirname(destination), exist_ok=True)
    for old, new in renames:   # the data first, the index last: an index on disk names complete data files
        os.replace(old, new)
    _write_atomically(checkpoint_bundle.index_filename(destination), table)
    for source in sources:
        with contextlib.suppress(OSError):
            os.remove(checkpoint_bundle.index_filename(source))
        if delete_old_dirs:
            with contextlib.suppress(OSError):
                os.rmdir(os.path.dirname(source))   # only when empty, as TensorFlow's DeleteRecursively of it


def _write_atomically(path: str, payload: bytes) -> None:
    temp = f"{path}.tempstate{os.getpid()}"
    with open(temp, "wb") as handle:
        handle.write(payload)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)


for _op_type in ("SaveV2", "RestoreV2", "ShardedFilename", "MergeV2Checkpoints"):
    NotDifferentiable(_op_type)


# --- wrappers (TensorFlow's gen_io_ops names) -----------------------------------------------------------------
def save_v2(prefix: Any, tensor_names: list, shape_and_slices: list, tensors: list, name: str | None = None) -> Any:
    tensors = list(tensors)
    return apply_op("SaveV2", [prefix, list(tensor_names), list(shape_and_slices)] + tensors,
                    {"dtypes": [t.dtype.base_dtype for t in tensors]}, name=name)


def restore_v2(prefix: Any, tensor_names: list, shape_and_slices: list, dtypes: list,  # noqa: A002
               name: str | None = None) -> list:
    wanted = [as_dtype(d) for d in dtypes]
    result = apply_op("RestoreV2", [prefix, list(tensor_names), list(shape_and_slices)], {"dtypes": wanted},
                      name=name)
    return result if isinstance(result, list) else [result]


def sharded_filename(basename: Any, shard: Any, num_shards: Any, name: str | None = None) -> Any:
    return apply_op("ShardedFilename", [basename, shard, num_shards], name=name)


def merge_v2_checkpoints(checkpoint_prefixes: Any, destination_prefix: Any, delete_old_dirs: bool = True,
                         allow_missing_files: bool = False, name: str | None = None) -> Any:
    return apply_op("MergeV2Checkpoints", [checkpoint_prefixes, destination_prefix],
                    {"delete_old_dirs": delete_old_dirs, "allow_missing_files": allow_missing_files}, name=name)
