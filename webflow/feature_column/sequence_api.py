"""The `tf.feature_column.sequence_*` constructors (TensorFlow <= 2.15's names, defaults and checks); the columns
themselves are in sequence.py."""

from __future__ import annotations

from typing import Any

from webflow.feature_column.api import (
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
)
from webflow.feature_column.sequence import SequenceCategoricalColumn, SequenceNumericColumn
from webflow.feature_column.vocabulary_file import categorical_column_with_vocabulary_file
from webflow.framework import dtypes


def sequence_categorical_column_with_identity(key: str, num_buckets: int,
                                              default_value: Any = None) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_identity(key, num_buckets, default_value))


def sequence_categorical_column_with_vocabulary_list(key: str, vocabulary_list: Any, dtype: Any = None,
                                                     default_value: int = -1,
                                                     num_oov_buckets: int = 0) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_list(key, vocabulary_list, dtype,
                                                                             default_value, num_oov_buckets))


def sequence_categorical_column_with_vocabulary_file(key: str, vocabulary_file: str, vocabulary_size: Any = None,
                                                     num_oov_buckets: int = 0, default_value: Any = None,
                                                     dtype: Any = dtypes.string) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_vocabulary_file(
        key, vocabulary_file, vocabulary_size, num_oov_buckets, default_value, dtype))


def sequence_categorical_column_with_hash_bucket(key: str, hash_bucket_size: int,
                                                 dtype: Any = dtypes.string) -> SequenceCategoricalColumn:
    return SequenceCategoricalColumn(categorical_column_with_hash_bucket(key, hash_bucket_size, dtype))


def sequence_numeric_column(key: str, shape: Any = (1,), default_value: float = 0.0, dtype: Any = dtypes.float32,
                            normalizer_fn: Any = None) -> SequenceNumericColumn:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return SequenceNumericColumn(key, shape, default_value, dtype, normalizer_fn)
