"""`categorical_column_with_vocabulary_file`: a vocabulary list read from a file, one entry a line.

TF looks ids up in a table initialized from the file (line i has id i, the first `vocabulary_size` lines) with
out-of-vocabulary ids hashed into `num_oov_buckets` extra buckets by Fingerprint64, as the list column does; so
the file is read once, when the column is first used, into the vocabulary list column's lookup.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.columns import VocabularyListColumn
from webflow.framework import dtypes


def _read_lines(path: str, limit: int | None) -> list[str]:
    with open(path, encoding="utf-8") as file:   # feature_column/ sits below io/: a local file, as TF's table reads
        lines = [line.rstrip("\r\n") for line in file]
    return lines if limit is None else lines[:limit]


class VocabularyFileColumn(VocabularyListColumn):
    """The vocabulary list column, its list taken from `vocabulary_file` when first needed."""

    tf_class_name = "VocabularyFileCategoricalColumn"

    def __init__(self, key: str, vocabulary_file: str, vocabulary_size: int, dtype: Any, default_value: int,
                 num_oov_buckets: int):
        self.key, self.vocabulary_file, self.vocabulary_size, self.dtype = key, vocabulary_file, vocabulary_size, dtype
        self.default_value, self.num_oov_buckets = default_value, num_oov_buckets
        self._words: tuple | None = None

    @property
    def vocabulary_list(self) -> tuple:   # the entries, typed as the column's dtype
        if self._words is None:
            lines = _read_lines(self.vocabulary_file, self.vocabulary_size)
            self._words = tuple(lines if self.dtype == dtypes.string else [int(line) for line in lines])
        return self._words

    @vocabulary_list.setter
    def vocabulary_list(self, value: Any) -> None:
        self._words = tuple(value)

    @property
    def num_buckets(self) -> int:
        return self.vocabulary_size + self.num_oov_buckets

    def tf_repr(self) -> str:
        return (f"VocabularyFileCategoricalColumn(key={self.key!r}, vocabulary_file={self.vocabulary_file!r}, "
                f"vocabulary_size={self.vocabulary_size}, num_oov_buckets={self.num_oov_buckets}, "
                f"dtype=tf.{self.dtype.name}, default_value={self.default_value}, file_format=None)")


def categorical_column_with_vocabulary_file(key: str, vocabulary_file: str, vocabulary_size: int | None = None,
                                            num_oov_buckets: int = 0, default_value: int | None = None,
                                            dtype: Any = dtypes.string,
                                            file_format: Any = None) -> VocabularyFileColumn:
    """`tf.feature_column.categorical_column_with_vocabulary_file` with TF's checks and defaults."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        vocabulary_size = len(_read_lines(vocabulary_file, None))
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    if num_oov_buckets:
        if default_value is not None:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"Invalid dtype {dtype} in {key}.")
    return VocabularyFileColumn(key, vocabulary_file, vocabulary_size, dtype,
                                -1 if default_value is None else default_value, num_oov_buckets)
