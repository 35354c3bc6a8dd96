"""The lookup tables of `tf.lookup` and TF1's `tf.contrib.lookup`, over the table ops of lookup_ops.py.

    init = tf.lookup.KeyValueTensorInitializer(["emerson", "lake", "palmer"], [0, 1, 2], value_dtype=tf.int64)
    table = tf.lookup.StaticHashTable(init, default_value=-1)
    table.lookup(tf.constant(["lake", "tarkus"]))              # [1, -1]
    tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)   # unknown words -> 3 + FarmHash bucket

In a TF1 graph a table's initializer joins the TABLE_INITIALIZERS collection and `tf.tables_initializer()` runs
them all; eagerly a table is filled as it is made.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import context, dtypes
from webflow.framework.graph import GraphKeys
from webflow.ops import lookup_ops
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.registry import op_scope


class TextFileIndex:
    """Which column of a vocabulary file's line is the key or value: WHOLE_LINE, LINE_NUMBER, or a column >= 0."""

    WHOLE_LINE = lookup_ops.WHOLE_LINE
    LINE_NUMBER = lookup_ops.LINE_NUMBER


def _register_initializer(init_op: Any) -> None:
    if not context.executing_eagerly():
        context.get_default_graph().add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)


class KeyValueTensorInitializer:
    """Fills a table with keys[i] -> values[i]."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: str | None = None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
        self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self.key_dtype = self._keys.dtype.base_dtype
        self.value_dtype = self._values.dtype.base_dtype
        self._name = name or "key_value_init"

    def initialize(self, table: Any) -> Any:
        with op_scope(self._name):
            init_op = lookup_ops.lookup_table_import(table.resource_handle, self._keys, self._values)
        _register_initializer(init_op)
        return init_op


class TextFileInitializer:
    """Fills a table from a text file, one entry per line: the key and value are columns split at `delimiter`,
    the whole line (TextFileIndex.WHOLE_LINE) or the line number (TextFileIndex.LINE_NUMBER)."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any, value_index: int,
                 vocab_size: int | None = None, delimiter: str = "\t", name: str | None = None,
                 value_index_offset: int = 0):
        self._filename = filename
        self.key_dtype, self.value_dtype = dtypes.as_dtype(key_dtype), dtypes.as_dtype(value_dtype)
        self._attrs = {"key_index": int(key_index), "value_index": int(value_index),
                       "vocab_size": -1 if vocab_size is None else int(vocab_size), "delimiter": delimiter,
                       "offset": int(value_index_offset)}
        self._name = name

    def initialize(self, table: Any) -> Any:
        from webflow.ops.registry import apply_op

        with op_scope(self._name or "text_file_init"):
            filename = convert_to_tensor(self._filename, dtype=dtypes.string, name="filename")
            init_op = apply_op("InitializeTableFromTextFileV2", [table.resource_handle, filename], self._attrs)
        _register_initializer(init_op)
        return init_op


class StaticHashTable:
    """`tf.lookup.StaticHashTable`: an immutable key -> value table, filled once by its initializer."""

    def __init__(self, initializer: Any, default_value: Any, name: str | None = None,
                 experimental_is_anonymous: bool = False):
        self._name = name or "hash_table"
        self._key_dtype, self._value_dtype = initializer.key_dtype, initializer.value_dtype
        self._resource_handle = lookup_ops.hash_table(self._key_dtype, self._value_dtype, name=self._name)
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype, name="Const")
        self._init_op = initializer.initialize(self)

    resource_handle = property(lambda self: self._resource_handle)
    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: self._value_dtype)
    default_value = property(lambda self: self._default_value)
    name = property(lambda self: self._name)
    initializer = property(lambda self: self._init_op)
    init = initializer  # TF1's spelling

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The value of each key (the default value for keys not in the table)."""
        with op_scope(name or f"{self._name}_Lookup"):
            keys = convert_to_tensor(keys, dtype=None if is_tensor_like(keys) else self._key_dtype, name="keys")
            if keys.dtype.base_dtype is not self._key_dtype:
                raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype!r}, received: {keys.dtype!r}")
            return lookup_ops.lookup_table_find(self._resource_handle, keys, self._default_value)

    __getitem__ = lookup

    def size(self, name: str | None = None) -> Any:
        with op_scope(name or f"{self._name}_Size"):
            return lookup_ops.lookup_table_size(self._resource_handle)


HashTable = StaticHashTable  # TF1's tf.contrib.lookup.HashTable


class StaticVocabularyTable:
    """`tf.lookup.StaticVocabularyTable`: ids from a vocabulary table, and for keys outside it one of
    `num_oov_buckets` ids after the vocabulary: vocabulary size + Fingerprint64(key) mod num_oov_buckets."""

    def __init__(self, initializer: Any, num_oov_buckets: int, lookup_key_dtype: Any = None, name: str | None = None,
                 experimental_is_anonymous: bool = False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer is not None and initializer.value_dtype is not dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {dtypes.int64!r} but got {initializer.value_dtype!r}.")
        self._num_oov_buckets = int(num_oov_buckets)
        self._table = None if initializer is None else StaticHashTable(initializer, -1, name=name)
        self._key_dtype = dtypes.as_dtype(lookup_key_dtype or (initializer.key_dtype if initializer else
                                                               dtypes.string))

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: dtypes.int64)
    resource_handle = property(lambda self: None if self._table is None else self._table.resource_handle)

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        return _ids_with_buckets(self._table, self._num_oov_buckets, keys, -1, name)

    __getitem__ = lookup

    def size(self, name: str | None = None) -> Any:
        from webflow.ops.math_ops import add

        if self._table is None:
            return convert_to_tensor(self._num_oov_buckets, dtype=dtypes.int64)
        return add(self._table.size(), self._num_oov_buckets, name=name)


def _ids_with_buckets(table: Any, num_buckets: int, keys: Any, default_value: int, name: str | None) -> Any:
    """table ids where the key is known, else table size + hash bucket (TensorFlow's vocabulary-with-OOV rule)."""
    from webflow.ops.logic_ops import not_equal, where_v2
    from webflow.ops.math_ops import add
    from webflow.ops.string_convert_ops import as_string, to_hash_bucket_fast

    with op_scope(name or "hash_table_Lookup"):
        keys = convert_to_tensor(keys)
        text = keys if keys.dtype.base_dtype is dtypes.string else as_string(keys)
        buckets = to_hash_bucket_fast(text, num_buckets)
        if table is None:
            return buckets
        ids = table.lookup(keys)
        buckets = add(buckets, table.size())
        return where_v2(not_equal(ids, default_value), ids, buckets)


class IdTableWithHashBuckets:
    """TF1's vocabulary table with out-of-vocabulary hash buckets (what index_table_from_tensor returns)."""

    def __init__(self, table: Any, num_oov_buckets: int, hasher_spec: Any = None, key_dtype: Any = None,
                 name: str | None = None):
        self._table, self._num_oov_buckets = table, int(num_oov_buckets)
        self._key_dtype = table.key_dtype if table is not None else dtypes.as_dtype(key_dtype or dtypes.string)

    key_dtype = property(lambda self: self._key_dtype)
    value_dtype = property(lambda self: dtypes.int64)
    init = property(lambda self: self._table.init)
    initializer = init

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        default = -1 if self._table is None else self._table.default_value
        return _ids_with_buckets(self._table, self._num_oov_buckets, keys, default, name)

    def size(self, name: str | None = None) -> Any:
        from webflow.ops.math_ops import add

        return add(self._table.size(), self._num_oov_buckets, name=name)


def index_table_from_tensor(vocabulary_list: Any, num_oov_buckets: int = 0, default_value: int = -1,
                            hasher_spec: Any = None, dtype: Any = dtypes.string, name: str | None = None) -> Any:
    """TF1: a table mapping vocabulary_list[i] -> i (int64); unknown keys -> default_value, or with
    num_oov_buckets > 0 -> len(vocabulary_list) + a FarmHash bucket."""
    from webflow.ops.sequence_ops import range as range_op

    if vocabulary_list is None:
        raise ValueError("`vocabulary_list` must be specified.")
    with op_scope(name or "string_to_index"):
        keys = convert_to_tensor(vocabulary_list, dtype=dtype, name="vocabulary_list")
        size = keys.shape.num_elements()
        values = range_op(0, size, 1, dtype=dtypes.int64) if size is not None else None
        if values is None:
            raise ValueError("index_table_from_tensor needs a vocabulary of static size")
        init = KeyValueTensorInitializer(keys, values, name="table_init")
        table = StaticHashTable(init, default_value, name="hash_table")
        if num_oov_buckets:
            return IdTableWithHashBuckets(table, num_oov_buckets)
    return table


def index_table_from_file(vocabulary_file: Any = None, num_oov_buckets: int = 0, vocab_size: int | None = None,
                          default_value: int = -1, hasher_spec: Any = None, key_dtype: Any = dtypes.string,
                          name: str | None = None, key_column_index: int = TextFileIndex.WHOLE_LINE,
                          value_column_index: int = TextFileIndex.LINE_NUMBER, delimiter: str = "\t") -> Any:
    """TF1: a table mapping each line of a vocabulary file (or one of its columns) -> its line number."""
    if vocabulary_file is None or (isinstance(vocabulary_file, str) and not vocabulary_file):
        raise ValueError("`vocabulary_file` must be specified and must not be empty.")
    with op_scope(name or "string_to_index"):
        init = TextFileInitializer(vocabulary_file, key_dtype, key_column_index, dtypes.int64, value_column_index,
                                   vocab_size=vocab_size, delimiter=delimiter)
        table = StaticHashTable(init, default_value, name="hash_table")
        if num_oov_buckets:
            return IdTableWithHashBuckets(table, num_oov_buckets)
    return table


def index_to_string_table_from_tensor(vocabulary_list: Any, default_value: str = "UNK",
                                      name: str | None = None) -> Any:
    """TF1: a table mapping i (int64) -> vocabulary_list[i]; other ids -> default_value."""
    from webflow.ops.sequence_ops import range as range_op

    with op_scope(name or "index_to_string"):
        values = convert_to_tensor(vocabulary_list, dtype=dtypes.string, name="vocabulary_list")
        keys = range_op(0, values.shape.num_elements(), 1, dtype=dtypes.int64)
        init = KeyValueTensorInitializer(keys, values, name="table_init")
        return StaticHashTable(init, default_value, name="hash_table")


def tables_initializer(name: str = "init_all_tables") -> Any:
    """TF1: one op running every table initializer of the default graph (a NoOp when there are none)."""
    from webflow.ops.control_flow_ops import group, no_op

    if context.executing_eagerly():
        return None
    initializers = context.get_default_graph().get_collection(GraphKeys.TABLE_INITIALIZERS)
    return group(*initializers, name=name) if initializers else no_op(name=name)


__all__ = ["TextFileIndex", "KeyValueTensorInitializer", "TextFileInitializer", "StaticHashTable", "HashTable",
           "StaticVocabularyTable", "IdTableWithHashBuckets", "index_table_from_file", "index_table_from_tensor",
           "index_to_string_table_from_tensor", "tables_initializer"]
