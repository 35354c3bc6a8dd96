"""The `tf.feature_column` constructors and `input_layer` (TensorFlow <= 2.15's names and defaults)."""

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
    concat_columns,
)
from webflow.feature_column.names import check_unique_names
from webflow.feature_column.sequence import check_not_sequence
from webflow.framework import dtypes


def numeric_column(key: str, shape: Any = (1,), default_value: Any = None, dtype: Any = dtypes.float32,
                   normalizer_fn: Any = None) -> NumericColumn:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if not dtypes.as_dtype(dtype).is_floating and not dtypes.as_dtype(dtype).is_integer:
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    return NumericColumn(key, shape, default_value, dtypes.as_dtype(dtype), normalizer_fn)


def bucketized_column(source_column: Any, boundaries: Any) -> BucketizedColumn:
    if not isinstance(source_column, NumericColumn):
        raise ValueError(f"source_column must be a column generated with numeric_column(). Given: {source_column}")
    if list(boundaries) != sorted(boundaries) or len(set(boundaries)) != len(boundaries):
        raise ValueError(f"boundaries must be a sorted list. boundaries: {boundaries}")
    return BucketizedColumn(source_column, boundaries)


def categorical_column_with_vocabulary_list(key: str, vocabulary_list: Any, dtype: Any = None,
                                            default_value: int = -1, num_oov_buckets: int = 0) -> Any:
    vocabulary = tuple(vocabulary_list)
    if not vocabulary:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: {key}")
    if len(set(vocabulary)) != len(vocabulary):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: {key}")
    if num_oov_buckets and default_value != -1:
        raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
    if dtype is None:
        dtype = dtypes.string if isinstance(vocabulary[0], str) else dtypes.int64
    return VocabularyListColumn(key, vocabulary, dtypes.as_dtype(dtype), default_value, num_oov_buckets)


def categorical_column_with_identity(key: str, num_buckets: int, default_value: Any = None) -> IdentityColumn:
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and not 0 <= default_value < num_buckets:
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), column_name {key}")
    return IdentityColumn(key, num_buckets, default_value)


def categorical_column_with_hash_bucket(key: str, hash_bucket_size: int, dtype: Any = dtypes.string) -> Any:
    if hash_bucket_size is None or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: {hash_bucket_size}, key: {key}")
    return HashBucketColumn(key, hash_bucket_size, dtypes.as_dtype(dtype))


def weighted_categorical_column(categorical_column: Any, weight_feature_key: str,
                                dtype: Any = dtypes.float32) -> WeightedCategoricalColumn:
    if weight_feature_key is None:
        raise ValueError("weight_feature_key must be specified.")
    if not dtypes.as_dtype(dtype).is_floating and not dtypes.as_dtype(dtype).is_integer:
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    return WeightedCategoricalColumn(categorical_column, weight_feature_key, dtypes.as_dtype(dtype))


def indicator_column(categorical_column: Any) -> IndicatorColumn:
    return IndicatorColumn(categorical_column)


def embedding_column(categorical_column: Any, dimension: int, combiner: str = "mean", initializer: Any = None,
                     ckpt_to_load_from: Any = None, tensor_name_in_ckpt: Any = None, max_norm: Any = None,
                     trainable: bool = True, use_safe_embedding_lookup: bool = True) -> EmbeddingColumn:
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if initializer is not None and not callable(initializer):
        raise ValueError(f"initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    return EmbeddingColumn(categorical_column, dimension, combiner, initializer, max_norm, trainable)


def _embedding_weights(column: EmbeddingColumn, trainable: bool, collections: Any) -> Any:
    from webflow.ops.init_ops import TruncatedNormal
    from webflow.ops.variable_scope import get_variable
    initializer = column.initializer or TruncatedNormal(mean=0.0, stddev=1.0 / math.sqrt(column.dimension))
    return get_variable("embedding_weights", [column.categorical_column.num_buckets, column.dimension],
                        dtypes.float32, initializer=initializer, trainable=trainable and column.trainable,
                        collections=collections)


def _table(column: Any, trainable: bool, collections: Any) -> Any:
    """The embedding table `column` reads (made in the current variable scope), or None if it has none."""
    if hasattr(column, "embedding_weights"):   # shared embeddings (shared.py): the table they share
        return column.embedding_weights(trainable, collections)
    if isinstance(column, EmbeddingColumn):
        return _embedding_weights(column, trainable, collections)
    return None


def check_columns(columns: list) -> None:
    """TF's checks on the columns of input_layer / DenseFeatures: some, all dense, names unique."""
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    for column in columns:
        if not hasattr(column, "dense_tensor"):
            raise ValueError(f"Items of feature_columns must be a DenseColumn. You can wrap a categorical column "
                             f"with an embedding_column or indicator_column. Given: {column}")
    check_unique_names(columns)


def input_layer(features: dict, feature_columns: Any, weight_collections: Any = None, trainable: bool = True,
                cols_to_vars: Any = None, cols_to_output_tensors: Any = None) -> Any:
    """One `[batch, sum of widths]` float32 tensor: each dense column's output, columns sorted by name."""
    for column in feature_columns:
        if getattr(column, "is_v2", False):   # tf.feature_column.shared_embeddings' columns
            raise ValueError("SharedEmbeddingColumns are not supported in `linear_model` or `input_layer`. Please use "
                             "`DenseFeatures` or `LinearModel` instead.")
    return dense_output(features, feature_columns, "input_layer", weight_collections, trainable, cols_to_vars,
                        cols_to_output_tensors)


def dense_output(features: dict, feature_columns: Any, scope_name: str, weight_collections: Any = None,
                 trainable: bool = True, cols_to_vars: Any = None, cols_to_output_tensors: Any = None) -> Any:
    """input_layer's work in variable scope `scope_name` (made unique: input_layer_1, ...)."""
    from webflow.ops.variable_scope import variable_scope
    columns = list(feature_columns)
    check_columns(columns)
    collections = None
    if weight_collections:
        collections = list(weight_collections) + ["variables"]
    outputs = []
    with variable_scope(None, default_name=scope_name, values=list(features.values())):
        for column in sorted(columns, key=lambda c: c.name):
            with variable_scope(None, default_name=getattr(column, "var_scope_name", column.name)):
                check_not_sequence(column)
                weights = _table(column, trainable, collections)
                if weights is None:
                    tensor = column.dense_tensor(features)
                else:
                    if cols_to_vars is not None:
                        cols_to_vars[column] = [weights]
                    tensor = column.dense_tensor(features, weights)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = tensor
                outputs.append(tensor)
        return concat_columns(outputs)
