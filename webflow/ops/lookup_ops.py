"""Lookup-table ops (TensorFlow's lookup_ops): HashTableV2 makes a table, LookupTableImportV2 and
InitializeTableFromTextFileV2 fill it, LookupTableFindV2 maps keys to values (a default for missing keys),
LookupTableSizeV2 counts its entries. The Python classes over them (`tf.lookup.StaticHashTable`,
`StaticVocabularyTable`, TF1's `index_table_from_tensor`) are ops/lookup_tables.py.

A table is a resource, as a variable: in a graph its HashTableV2 op names it, and each Session keeps its own
`Table` object under that name (so a TF1 table must be initialized in every session, and looking up before
`tf.tables_initializer()` runs is TensorFlow's FailedPreconditionError "Table not initialized."). Eagerly the
HashTableV2 op returns a fresh Table. Kernels run with or without NumPy (backends/arrays/string_values.py).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.string_values import elements, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op
from webflow.ops.shapes import no_outputs, scalar_rule

WHOLE_LINE = -2   # TextFileIndex.WHOLE_LINE: the key (or value) is the whole line
LINE_NUMBER = -1  # TextFileIndex.LINE_NUMBER: ... the line's number, from 0


class Table:
    """A hash table's contents: key (bytes or number) -> value, and whether it was initialized."""

    dtype = dtypes.resource  # (what an EagerTensor holding it reports)
    shape = ()
    ndim = 0

    def __init__(self, key_dtype: Any, value_dtype: Any):
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self.entries: dict = {}
        self.initialized = False

    def fill(self, keys: list, values: list) -> None:
        """Sets the entries (importing again replaces them, as TensorFlow's LookupTableImportV2)."""
        self.entries = {}
        for key, value in zip(keys, values):
            if key in self.entries and self.entries[key] != value:
                raise InvalidArgumentError(None, None, f"HashTable has different value for same key. Key "
                                                       f"{_text(key)} has {_text(self.entries[key])} and trying "
                                                       f"to add value {_text(value)}")
            self.entries[key] = value
        self.initialized = True

    def __repr__(self) -> str:
        return f"<Table {self.key_dtype.name} -> {self.value_dtype.name}, {len(self.entries)} entries>"


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _table(handle: Any) -> Table:
    table = handle if isinstance(handle, Table) else handle[()]
    if not table.initialized:
        raise FailedPreconditionError(None, None, "Table not initialized.")
    return table


# --- HashTableV2 ---------------------------------------------------------------------------------------------
@register_op("HashTableV2", "hash_table", shape=scalar_rule(dtypes.resource), needs_context=True, stateful=True)
def hash_table_kernel(context: Any, *, key_dtype: Any, value_dtype: Any, container: str = "",
                      shared_name: str = "", use_node_name_sharing: bool = False) -> Table:
    """output = the table this op names (made empty the first time a session runs it; a new one eagerly)."""
    if context.op is None:
        return Table(key_dtype, value_dtype)
    key = "table:" + (shared_name or context.op_name)
    if key not in context.resources:
        context.resources[key] = Table(key_dtype, value_dtype)
    return context.resources[key]


def hash_table(key_dtype: Any, value_dtype: Any, shared_name: str = "", name: str | None = None) -> Any:
    attrs = {"key_dtype": dtypes.as_dtype(key_dtype), "value_dtype": dtypes.as_dtype(value_dtype),
             "container": "", "shared_name": shared_name, "use_node_name_sharing": False}
    return apply_op("HashTableV2", [], attrs, name=name)


# --- LookupTableImportV2, InitializeTableFromTextFileV2 -----------------------------------------------------
@register_op("LookupTableImportV2", "LookupTableImportV2", inputs=("table_handle", "keys", "values"),
             shape=no_outputs, stateful=True)
def lookup_table_import_kernel(handle: Any, keys: Any, values: Any) -> None:
    """table = {keys[i]: values[i]} (what KeyValueTensorInitializer runs; running it again changes nothing)."""
    table = handle if isinstance(handle, Table) else handle[()]
    key_items, key_shape = elements(keys)
    value_items, value_shape = elements(values)
    if key_shape != value_shape:
        raise InvalidArgumentError(None, None, f"Keys and values must have the same size {list(key_shape)} vs "
                                               f"{list(value_shape)}")
    table.fill(key_items, value_items)


def lookup_table_import(table_handle: Any, keys: Any, values: Any, name: str | None = None) -> Any:
    return apply_op("LookupTableImportV2", [table_handle, keys, values], name=name)


@register_op("InitializeTableFromTextFileV2", "InitializeTableFromTextFileV2", inputs=("table_handle", "filename"),
             shape=no_outputs, stateful=True)
def initialize_table_from_text_file_kernel(handle: Any, filename: Any, *, key_index: int, value_index: int,
                                           vocab_size: int = -1, delimiter: str = "\t", offset: int = 0) -> None:
    """For each line n of the file (up to vocab_size): table[column key_index] = column value_index, where
    column -2 is the whole line and -1 the line number n (plus `offset`)."""
    table = handle if isinstance(handle, Table) else handle[()]
    path = elements(filename)[0][0].decode()
    try:
        with open(path, "rb") as file:
            lines = file.read().splitlines()
    except FileNotFoundError:
        raise NotFoundError(None, None, f"{path}; No such file or directory") from None
    if vocab_size > -1:
        lines = lines[:vocab_size]
    keys = [_column(line, n + offset, key_index, delimiter, table.key_dtype, path) for n, line in enumerate(lines)]
    values = [_column(line, n + offset, value_index, delimiter, table.value_dtype, path)
              for n, line in enumerate(lines)]
    table.fill(keys, values)


def _column(line: bytes, number: int, index: int, delimiter: str, dtype: Any, path: str) -> Any:
    if index == LINE_NUMBER:
        return number
    text = line if index == WHOLE_LINE else _split_line(line, delimiter, index, number, path)
    if dtype is dtypes.string:
        return text
    try:
        return float(text) if dtype.is_floating else int(text)
    except ValueError:
        raise InvalidArgumentError(None, None, f"Field {_text(text)} in line {number} is not a valid "
                                               f"{dtype.name}.") from None


def _split_line(line: bytes, delimiter: str, index: int, number: int, path: str) -> bytes:
    columns = line.split(delimiter.encode())
    if index >= len(columns):
        raise InvalidArgumentError(None, None, f"Invalid number of columns in {path} line {number} "
                                               f"({_text(line)}) : expected at least {index + 1} got "
                                               f"{len(columns)}")
    return columns[index]


# --- LookupTableFindV2, LookupTableSizeV2 -----------------------------------------------------------------------
def _find_shape(inputs: list, attrs: dict) -> tuple:
    return output_spec(inputs[1].shape, inputs[2].dtype.base_dtype)


@register_op("LookupTableFindV2", "LookupTableFindV2", inputs=("table_handle", "keys", "default_value"),
             shape=_find_shape)
def lookup_table_find_kernel(handle: Any, keys: Any, default: Any) -> Any:
    """y[i] = table[keys[i]] if present, else default_value."""
    table = _table(handle)
    items, shape = elements(keys)
    fallback = elements(default)[0][0]
    found = [table.entries.get(key, fallback) for key in items]
    if table.value_dtype is dtypes.string:
        return strings(found, shape)
    return numbers(found, shape, table.value_dtype)


def lookup_table_find(table_handle: Any, keys: Any, default_value: Any, name: str | None = None) -> Any:
    return apply_op("LookupTableFindV2", [table_handle, keys, default_value], name=name)


@register_op("LookupTableSizeV2", "LookupTableSizeV2", inputs=("table_handle",), shape=scalar_rule(dtypes.int64))
def lookup_table_size_kernel(handle: Any) -> Any:
    """y = the number of entries of the table."""
    return numbers([len(_table(handle).entries)], (), dtypes.int64)


def lookup_table_size(table_handle: Any, name: str | None = None) -> Any:
    return apply_op("LookupTableSizeV2", [table_handle], name=name)


for _op_type in ("HashTableV2", "LookupTableImportV2", "InitializeTableFromTextFileV2", "LookupTableFindV2",
                 "LookupTableSizeV2"):
    NotDifferentiable(_op_type)
