"""File datasets: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset (each element a scalar tf.string).

One reader op reads a vector of files in turn; with `num_parallel_reads` the files are interleaved one
record at a time (TensorFlow's deterministic order for parallel reads), through `interleave`.
"""

from __future__ import annotations

from typing import Any

from webflow.data import structure
from webflow.data.building import make_dataset
from webflow.data.dataset import DatasetV2
from webflow.framework import dtypes
from webflow.io import tfrecord
from webflow.ops import dataset_readers
from webflow.ops.convert import convert_to_tensor

# The TFRecord framing lives in io/ (above ops/): hand the reader to the TFRecordDataset kernel.
dataset_readers.install_record_reader(lambda path, compression: tfrecord.RecordIterator(path, compression))

_RECORD = structure.TensorSpec([], dtypes.string)


def _filenames(filenames: Any) -> Any:
    if hasattr(filenames, "_variant_tensor"):
        raise TypeError("A dataset of file names is not supported here: pass a string, a list or a string tensor")
    tensor = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if tensor.shape.rank not in (None, 0, 1):
        raise TypeError(f"`filenames` must be a `tf.Tensor` of `tf.string` of rank 0 or 1, got shape {tensor.shape}")
    return tensor


def _compression(value: Any) -> Any:
    return convert_to_tensor("" if value is None else value, dtype=dtypes.string, name="compression_type")


def _buffer(value: Any, default: int) -> Any:
    return convert_to_tensor(default if value is None else value, dtype=dtypes.int64, name="buffer_size")


class _FileDataset(DatasetV2):
    """Builds `read_one(filenames)` directly, or interleaved over the files when num_parallel_reads is set."""

    def _build(self, filenames: Any, num_parallel_reads: Any, read_one: Any) -> None:
        if num_parallel_reads is None:
            dataset = read_one(_filenames(filenames))
        else:
            files = DatasetV2.from_tensor_slices(_filenames(filenames))
            dataset = files.interleave(read_one, cycle_length=num_parallel_reads, block_length=1)
        DatasetV2.__init__(self, dataset._variant_tensor, dataset.element_spec)


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (compression_type "", "GZIP" or "ZLIB")."""

    _kind = "TFRecordDatasetV2"

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None):
        def read_one(files: Any) -> DatasetV2:
            inputs = [files, _compression(compression_type), _buffer(buffer_size, 262144)]
            return make_dataset("TFRecordDataset", inputs, {}, _RECORD, name, "_TFRecordDataset", None)

        self._build(filenames, num_parallel_reads, read_one)


class TextLineDataset(_FileDataset):
    """The lines of text files, without their end-of-line."""

    _kind = "TextLineDatasetV2"

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None):
        def read_one(files: Any) -> DatasetV2:
            inputs = [files, _compression(compression_type), _buffer(buffer_size, 262144)]
            return make_dataset("TextLineDataset", inputs, {}, _RECORD, name, "_TextLineDataset", None)

        self._build(filenames, num_parallel_reads, read_one)


class FixedLengthRecordDataset(_FileDataset):
    """Fixed-size records between a header and a footer (the raw MNIST IDX and CIFAR-10 files)."""

    _kind = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None, compression_type: str | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None):
        def read_one(files: Any) -> DatasetV2:
            numbers = [convert_to_tensor(0 if v is None else v, dtype=dtypes.int64, name=n) for v, n in
                       ((header_bytes, "header_bytes"), (record_bytes, "record_bytes"), (footer_bytes, "footer_bytes"))]
            return make_dataset("FixedLengthRecordDatasetV2",
                                [files] + numbers + [_buffer(buffer_size, 262144), _compression(compression_type)],
                                {}, _RECORD, name, "_FixedLengthRecordDataset", None)

        self._build(filenames, num_parallel_reads, read_one)




class CsvDataset(_FileDataset):
    """`tf.data.experimental.CsvDataset`: one tuple of scalars per CSV line, a column per record_defaults entry
    (a dtype: a required column; a value: that column's default, and its dtype)."""

    _kind = "CsvDatasetV2"

    def __init__(self, filenames: Any, record_defaults: list, compression_type: str | None = None,
                 buffer_size: int | None = None, header: bool = False, field_delim: str = ",",
                 use_quote_delim: bool = True, na_value: str = "", select_cols: list | None = None,
                 exclude_cols: list | None = None, name: str | None = None):
        if exclude_cols is not None:
            raise ValueError("exclude_cols is not supported here: use select_cols")
        defaults = [_record_default(d) for d in record_defaults]
        spec = tuple(structure.TensorSpec([], d.dtype.base_dtype) for d in defaults)

        def read_one(files: Any) -> DatasetV2:
            options = [_compression(compression_type), _buffer(buffer_size, 4 * 1024 * 1024),
                       convert_to_tensor(header, dtype=dtypes.bool, name="header"),
                       convert_to_tensor(field_delim, dtype=dtypes.string, name="field_delim"),
                       convert_to_tensor(use_quote_delim, dtype=dtypes.bool, name="use_quote_delim"),
                       convert_to_tensor(na_value, dtype=dtypes.string, name="na_value"),
                       convert_to_tensor(select_cols or [], dtype=dtypes.int64, name="select_cols")]
            exclude = convert_to_tensor([], dtype=dtypes.int64, name="exclude_cols")
            return make_dataset("CSVDatasetV2", [files] + options + defaults + [exclude], {}, spec, name,
                                "_CsvDataset")

        self._build(filenames, None, read_one)


def _record_default(default: Any) -> Any:
    """A dtype means a required column (an empty tensor of it); a value is the column's default."""
    if isinstance(default, dtypes.DType):
        return convert_to_tensor(_empty(default), dtype=default, name="record_defaults")
    return convert_to_tensor(default, name="record_defaults")


def _empty(dtype: Any) -> Any:
    from webflow.ops.dataset_elements import string_array

    if dtype == dtypes.string:
        return string_array([], (0,))
    from webflow.backends.arrays import values as backend_values

    return backend_values.vector([], dtype)


__all__ = ["TFRecordDataset", "TextLineDataset", "FixedLengthRecordDataset", "CsvDataset"]
