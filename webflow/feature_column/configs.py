"""Columns as TensorFlow's config dicts: `serialize_column(column)` gives `{"class_name": ..., "config": {...}}`
with TensorFlow <= 2.15's class names and keys (feature_column_v2.py); serialization.py reads them back."""

from __future__ import annotations

import math
from typing import Any

from webflow.feature_column.columns import (
    BucketizedColumn,
    EmbeddingColumn,
    HashBucketColumn,
    IdentityColumn,
    IndicatorColumn,
    NumericColumn,
    VocabularyListColumn,
    WeightedCategoricalColumn,
)
from webflow.feature_column.crossed import CrossedColumn
from webflow.framework import dtypes


def _dtype_name(dtype: Any) -> str:
    return dtypes.as_dtype(dtype).name


def _initializer_config(initializer: Any) -> Any:
    if initializer is None or not hasattr(initializer, "get_config"):
        return None
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def default_initializer(column: EmbeddingColumn) -> Any:
    """embedding_column's table initializer when none is given: truncated normal, stddev 1/sqrt(dimension)."""
    from webflow.ops.init_ops import TruncatedNormal
    return TruncatedNormal(mean=0.0, stddev=1.0 / math.sqrt(column.dimension))


def _config_of(column: Any) -> tuple[str, dict]:
    """(TensorFlow's class name, its config) for one column."""
    special = getattr(column, "tf_class_name", None)   # sequence.py's and vocabulary_file.py's columns
    if special == "SequenceCategoricalColumn":
        return special, {"categorical_column": serialize_column(column.categorical_column)}
    if special == "SequenceNumericColumn":
        return special, {"key": column.key, "shape": column.shape, "default_value": column.default_value,
                         "dtype": _dtype_name(column.dtype), "normalizer_fn": None}
    if special == "VocabularyFileCategoricalColumn":
        return special, {"key": column.key, "vocabulary_file": column.vocabulary_file,
                         "vocabulary_size": column.vocabulary_size, "num_oov_buckets": column.num_oov_buckets,
                         "dtype": _dtype_name(column.dtype), "default_value": column.default_value,
                         "file_format": None}
    if isinstance(column, NumericColumn):
        return "NumericColumn", {"key": column.key, "shape": column.shape, "default_value": column.default_value,
                                 "dtype": _dtype_name(column.dtype), "normalizer_fn": None}
    if isinstance(column, BucketizedColumn):
        return "BucketizedColumn", {"source_column": serialize_column(column.source_column),
                                    "boundaries": column.boundaries}
    if isinstance(column, VocabularyListColumn):
        return "VocabularyListCategoricalColumn", {
            "key": column.key, "vocabulary_list": column.vocabulary_list, "dtype": _dtype_name(column.dtype),
            "default_value": column.default_value, "num_oov_buckets": column.num_oov_buckets}
    if isinstance(column, IdentityColumn):
        return "IdentityCategoricalColumn", {"key": column.key, "number_buckets": column.num_buckets,
                                             "default_value": column.default_value}
    if isinstance(column, HashBucketColumn):
        return "HashedCategoricalColumn", {"key": column.key, "hash_bucket_size": column.num_buckets,
                                           "dtype": _dtype_name(column.dtype)}
    if isinstance(column, WeightedCategoricalColumn):
        return "WeightedCategoricalColumn", {"categorical_column": serialize_column(column.categorical_column),
                                             "weight_feature_key": column.weight_feature_key,
                                             "dtype": _dtype_name(column.dtype)}
    if isinstance(column, CrossedColumn):
        keys = tuple(key if isinstance(key, str) else serialize_column(key) for key in column.keys)
        return "CrossedColumn", {"keys": keys, "hash_bucket_size": column.hash_bucket_size,
                                 "hash_key": column.hash_key}
    if isinstance(column, IndicatorColumn):
        return "IndicatorColumn", {"categorical_column": serialize_column(column.categorical_column)}
    if isinstance(column, EmbeddingColumn):
        initializer = column.initializer or default_initializer(column)
        return "EmbeddingColumn", {
            "categorical_column": serialize_column(column.categorical_column), "dimension": column.dimension,
            "combiner": column.combiner, "initializer": _initializer_config(initializer),
            "ckpt_to_load_from": None, "tensor_name_in_ckpt": None, "max_norm": column.max_norm,
            "trainable": column.trainable, "use_safe_embedding_lookup": True}
    raise ValueError(f"Unsupported feature column for serialization: {column}")


def serialize_column(column: Any) -> dict:
    """`{"class_name": "NumericColumn", "config": {...}}` as TensorFlow's `serialize_feature_column` writes it."""
    class_name, config = _config_of(column)
    return {"class_name": class_name, "config": config}
