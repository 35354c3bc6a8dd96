"""Dataset values that read files: TFRecord records, text lines, fixed-length records (each a scalar tf.string).

TFRecord framing (length, masked CRC32C ...) is io/tfrecord.py's: io/ sits above ops/, so webflow.data installs
that reader here on import (`install_record_reader`), as runtime/ installs the function runner.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from webflow.framework.errors import InvalidArgumentError, NotFoundError
from webflow.ops import dataset_elements as elements
from webflow.ops.dataset_values import DatasetValue

# io/tfrecord.py's RecordIterator(path, compression_type), once webflow.data is imported
_record_reader: Callable[[str, str], Iterator[bytes]] | None = None


def install_record_reader(reader: Callable[[str, str], Iterator[bytes]]) -> None:
    global _record_reader
    _record_reader = reader


def _check_compression(compression: str) -> str:
    if compression not in ("", "GZIP", "ZLIB"):
        raise InvalidArgumentError(None, None, f"Unsupported compression_type: {compression}.")
    return compression


def read_file_bytes(path: str, compression: str) -> bytes:
    """The whole (decompressed) content of `path`; NotFoundError naming it when it is missing."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    if compression == "GZIP":
        return gzip.decompress(data)
    if compression == "ZLIB":
        return zlib.decompress(data)
    return data


class TFRecordValue(DatasetValue):
    def __init__(self, filenames: list, compression: str):
        self.filenames, self.compression = filenames, _check_compression(compression)

    def elements(self, context: Any = None) -> Iterator[list]:
        if _record_reader is None:
            raise RuntimeError("TFRecordDataset needs webflow.data imported (it installs the TFRecord reader)")
        for path in self.filenames:
            for record in _record_reader(path, self.compression):
                yield [elements.string_array([record], ())]


class TextLineValue(DatasetValue):
    """Lines without their end-of-line ("\\n", or "\\r\\n"), file after file."""

    def __init__(self, filenames: list, compression: str):
        self.filenames, self.compression = filenames, _check_compression(compression)

    def elements(self, context: Any = None) -> Iterator[list]:
        for path in self.filenames:
            data = read_file_bytes(path, self.compression)
            for line in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
                if line or data:
                    yield [elements.string_array([line[:-1] if line.endswith(b"\r") else line], ())]


class FixedLengthRecordValue(DatasetValue):
    """Records of `record_bytes` between a file's `header_bytes` and `footer_bytes` (InvalidArgumentError when
    they do not fill the body exactly)."""

    def __init__(self, filenames: list, header_bytes: int, record_bytes: int, footer_bytes: int,
                 compression: str):
        if record_bytes <= 0:
            raise InvalidArgumentError(None, None, f"record_bytes must be > 0 but it is {record_bytes}")
        self.filenames, self.compression = filenames, _check_compression(compression)
        self.header, self.record, self.footer = header_bytes, record_bytes, footer_bytes

    def elements(self, context: Any = None) -> Iterator[list]:
        for path in self.filenames:
            data = read_file_bytes(path, self.compression)
            body = data[self.header:len(data) - self.footer]
            if len(body) % self.record:
                raise InvalidArgumentError(None, None, f"Excluding the header ({self.header} bytes) and footer "
                                           f"({self.footer} bytes), input file \"{path}\" has body length "
                                           f"{len(body)} bytes, which is not an exact multiple of the record "
                                           f"length ({self.record} bytes).")
            for start in range(0, len(body) - self.record + 1, self.record):
                yield [elements.string_array([body[start:start + self.record]], ())]


def file_list(value: Any) -> list:
    """A `filenames` input (a string scalar or vector) as a list of paths."""
    return elements.to_texts(value)


__all__ = ["TFRecordValue", "TextLineValue", "FixedLengthRecordValue", "install_record_reader", "file_list",
           "read_file_bytes"]


# --- CSV ---------------------------------------------------------------------------------------------------------
class CsvValue(DatasetValue):
    """Records of CSV files: per line, the selected columns converted to their record_defaults' dtypes (an empty
    field, or one equal to na_value, takes the column's default; a column without one must be present)."""

    def __init__(self, filenames: list, compression: str, header: bool, delimiter: str, use_quote_delim: bool,
                 na_value: str, select_cols: list, defaults: list):
        self.filenames, self.compression = filenames, _check_compression(compression)
        self.header, self.delimiter, self.quoting = header, delimiter, use_quote_delim
        self.na_value, self.select_cols, self.defaults = na_value, select_cols, defaults

    def elements(self, context: Any = None) -> Iterator[list]:
        import csv

        for path in self.filenames:
            text = read_file_bytes(path, self.compression).decode("latin-1")  # bytes kept one char each
            rows = csv.reader(text.splitlines(), delimiter=self.delimiter,
                              quoting=csv.QUOTE_MINIMAL if self.quoting else csv.QUOTE_NONE)
            for number, fields in enumerate(rows):
                if number == 0 and self.header:
                    continue
                yield self._record(fields, number, path)

    def _record(self, fields: list, number: int, path: str) -> list:
        columns = self.select_cols or list(range(len(fields)))
        if len(columns) != len(self.defaults) or (columns and columns[-1] >= len(fields)):
            raise InvalidArgumentError(None, None, f"Expect {len(self.defaults)} fields but have {len(fields)} in "
                                       f"record {number} of {path}")
        return [_csv_field(fields[c], dtype, default, self.na_value, i, number)
                for i, (c, (dtype, default)) in enumerate(zip(columns, self.defaults))]


def _csv_field(text: str, dtype: Any, default: Any, na_value: str, column: int, record: int) -> Any:
    """One field as a scalar of `dtype` (TensorFlow's parsing: integers and floats in C syntax)."""
    from webflow.framework import dtypes

    if text == "" or text == na_value:
        if default is None:
            raise InvalidArgumentError(None, None, f"Field {column} is required but missing in record {record}!")
        return default
    if dtype == dtypes.string:
        return elements.string_array([text.encode("latin-1")], ())
    try:
        number = int(text, 10) if dtype.is_integer else float(text)
    except ValueError:
        raise InvalidArgumentError(None, None, f"Field {column} in record {record} is not a valid "
                                   f"{dtype.name}: {text}") from None
    return elements.scalar(number, dtype)


__all__ += ["CsvValue"]
