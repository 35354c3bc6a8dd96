"""`wf.lookup`: TensorFlow's lookup tables (`tf.lookup.StaticHashTable`, `StaticVocabularyTable`, their
initializers). The classes are ops/lookup_tables.py, the table ops ops/lookup_ops.py; TF1's extras
(`tables_initializer`, `tf.contrib.lookup.index_table_from_tensor`) are reached from webflow.compat.v1."""

# ruff: noqa: F401, I001
from webflow.ops.lookup_tables import (
    KeyValueTensorInitializer, StaticHashTable, StaticVocabularyTable, TextFileIndex, TextFileInitializer,
)

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
           "TextFileInitializer"]
