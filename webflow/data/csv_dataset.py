"""`tf.data.experimental.make_csv_dataset`: batches of (features dict, label) from CSV files, as TensorFlow builds them.

Built on CsvDataset (data/readers.py), in TensorFlow's order: the files matching `file_pattern` (sorted; shuffled
when `shuffle`), each read by a CsvDataset (interleaved, `num_parallel_reads` at a time), then shuffle and repeat
(`num_epochs`; None repeats forever), batch (`drop_remainder` when repeating forever), one dict per batch
(column name -> column, the label column popped out when `label_name` is given) and prefetch.

Column names come from the header row when not given (every file must have the same header); column types, when
`column_defaults` is not given, are inferred as TensorFlow does from the first `num_rows_for_inference` rows of
text: the narrowest of int32, int64, float32, float64, string that holds every non-empty value, with default 0
(or "") for an empty field.
"""

from __future__ import annotations

import collections
import csv
import glob
import math
from typing import Any

from webflow.data.building import AUTOTUNE
from webflow.data.dataset import DatasetV2
from webflow.data.readers import CsvDataset
from webflow.framework import dtypes
from webflow.ops.constants import constant

_INT_LIMITS = ((dtypes.int32, 1 << 31), (dtypes.int64, 1 << 63))
_FLOAT_MAX = ((dtypes.float32, 3.4028234663852886e38), (dtypes.float64, 1.7976931348623157e308))
_ORDER = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]


def _file_names(file_pattern: Any) -> list:
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    names = sorted(name for pattern in patterns for name in glob.glob(
        pattern.decode() if isinstance(pattern, bytes) else pattern))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return names


def _rows(filename: str, field_delim: str, use_quote_delim: bool) -> Any:
    with open(filename, newline="", encoding="utf-8") as file:
        yield from csv.reader(file, delimiter=field_delim, quoting=csv.QUOTE_MINIMAL if use_quote_delim
                              else csv.QUOTE_NONE)


def _column_names(filenames: list, field_delim: str, use_quote_delim: bool) -> list:
    headers = [next(iter(_rows(f, field_delim, use_quote_delim)), []) for f in filenames]
    if any(h != headers[0] for h in headers):
        raise ValueError("Files have different column names in the header row.")
    return headers[0]


def _fits(text: str, dtype: Any) -> bool:
    for int_type, limit in _INT_LIMITS:
        if dtype == int_type:
            try:
                return -limit <= int(text) < limit
            except ValueError:
                return False
    for float_type, largest in _FLOAT_MAX:
        if dtype == float_type:
            try:
                value = float(text)
            except ValueError:
                return False
            return math.isnan(value) or abs(value) <= largest or math.isinf(value)
    return True


def _infer_type(text: str, na_value: str, previous: Any) -> Any:
    """The narrowest type of the ladder int32 < int64 < float32 < float64 < string holding `text` and `previous`."""
    if text in ("", na_value):
        return previous
    start = 0 if previous is None else _ORDER.index(previous)
    return next(t for t in _ORDER[start:] if _fits(text, t))


def _inferred_defaults(filenames: list, columns: list, field_delim: str, use_quote_delim: bool, na_value: str,
                       header: bool, rows_for_inference: int | None, count: int) -> list:
    types: list = [None] * len(columns)
    seen = 0
    for filename in filenames:
        for number, row in enumerate(_rows(filename, field_delim, use_quote_delim)):
            if header and number == 0:
                continue
            if rows_for_inference is not None and seen >= rows_for_inference:
                break
            if len(row) != count:
                raise ValueError("Problem inferring types: CSV row has different number of fields than expected.")
            types = [_infer_type(row[c], na_value, t) for c, t in zip(columns, types)]
            seen += 1
    return [constant(["" if (t or dtypes.string) == dtypes.string else 0], dtype=t or dtypes.string)
            for t in types]


def _selected(select_columns: list | None, names: list) -> list | None:
    if select_columns is None:
        return None
    indices = [names.index(c) if isinstance(c, str) else int(c) for c in select_columns]
    return sorted(indices)


def make_csv_dataset(file_pattern: Any, batch_size: int, column_names: list | None = None,
                     column_defaults: list | None = None, label_name: str | None = None,
                     select_columns: list | None = None, field_delim: str = ",", use_quote_delim: bool = True,
                     na_value: str = "", header: bool = True, num_epochs: int | None = None, shuffle: bool = True,
                     shuffle_buffer_size: int = 10000, shuffle_seed: int | None = None,
                     prefetch_buffer_size: int | None = None, num_parallel_reads: int | None = None,
                     sloppy: bool = False, num_rows_for_inference: int = 100, compression_type: str | None = None,
                     ignore_errors: bool = False, encoding: str = "utf-8") -> DatasetV2:
    """Batches of (OrderedDict of columns, label column) (just the dict without `label_name`) from CSV files."""
    filenames = _file_names(file_pattern)
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` to be provided.")
        column_names = _column_names(filenames, field_delim, use_quote_delim)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Cannot have duplicate column names.")
    selected = _selected(select_columns, list(column_names))
    if column_defaults is None:
        column_defaults = _inferred_defaults(filenames, selected or list(range(len(column_names))), field_delim,
                                             use_quote_delim, na_value, header, num_rows_for_inference,
                                             len(column_names))
    else:
        column_defaults = [constant([], dtype=d) if isinstance(d, dtypes.DType) else d for d in column_defaults]
    if len(column_defaults) != len(selected or column_names):
        raise ValueError("The number of column defaults does not match the number of (selected) columns.")
    names = [column_names[i] for i in selected] if selected is not None else list(column_names)
    if label_name is not None and label_name not in names:
        raise ValueError("`label_name` provided must be one of the columns.")

    def read_file(filename: Any) -> DatasetV2:
        return CsvDataset(filename, column_defaults, compression_type=compression_type, header=header,
                          field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                          select_cols=selected)

    def to_features(*columns: Any) -> Any:
        features = collections.OrderedDict(zip(names, columns))
        return (features, features.pop(label_name)) if label_name is not None else features

    dataset = DatasetV2.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    dataset = dataset.interleave(read_file, cycle_length=num_parallel_reads or 1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(to_features)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


__all__ = ["make_csv_dataset"]
