"""Feature columns as TensorFlow's config dicts (`{"class_name": ..., "config": {...}}`, the form
`tf.keras.layers.DenseFeatures.get_config()` writes) and back: `serialize_column`, `deserialize_column`.

The class names and config keys are TensorFlow <= 2.15's (feature_column_v2.py), so a `.keras` file or a
`get_config()` dict made by tf_keras reads here and the other way round.
"""

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


def _initializer_from(config: Any) -> Any:
    if config is None:
        return None
    from webflow.ops import init_ops
    settings = dict(config["config"])
    if "dtype" in settings:
        settings["dtype"] = dtypes.as_dtype(settings["dtype"])
    return getattr(init_ops, config["class_name"])(**settings)


def default_initializer(column: EmbeddingColumn) -> Any:
    """embedding_column's table initializer when none is given: truncated normal, stddev 1/sqrt(dimension)."""
    from webflow.ops.init_ops import TruncatedNormal
    return TruncatedNormal(mean=0.0, stddev=1.0 / math.sqrt(column.dimension))


def _config_of(column: Any) -> tuple[str, dict]:
    """(TensorFlow's class name, its config) for one column."""
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


def _column_from(class_name: str, config: dict) -> Any:
    from webflow.feature_column import api, crossed
    if class_name == "NumericColumn":
        return api.numeric_column(config["key"], tuple(config["shape"]), config["default_value"], config["dtype"])
    if class_name == "BucketizedColumn":
        return api.bucketized_column(deserialize_column(config["source_column"]), list(config["boundaries"]))
    if class_name == "VocabularyListCategoricalColumn":
        return api.categorical_column_with_vocabulary_list(
            config["key"], config["vocabulary_list"], config["dtype"], config["default_value"],
            config["num_oov_buckets"])
    if class_name == "IdentityCategoricalColumn":
        return api.categorical_column_with_identity(config["key"], config["number_buckets"],
                                                    config["default_value"])
    if class_name == "HashedCategoricalColumn":
        return api.categorical_column_with_hash_bucket(config["key"], config["hash_bucket_size"], config["dtype"])
    if class_name == "WeightedCategoricalColumn":
        return api.weighted_categorical_column(deserialize_column(config["categorical_column"]),
                                               config["weight_feature_key"], config["dtype"])
    if class_name == "CrossedColumn":
        keys = [key if isinstance(key, str) else deserialize_column(key) for key in config["keys"]]
        return crossed.crossed_column(keys, config["hash_bucket_size"], config["hash_key"])
    if class_name == "IndicatorColumn":
        return api.indicator_column(deserialize_column(config["categorical_column"]))
    if class_name == "EmbeddingColumn":
        return api.embedding_column(deserialize_column(config["categorical_column"]), config["dimension"],
                                    config["combiner"], _initializer_from(config["initializer"]),
                                    max_norm=config["max_norm"], trainable=config["trainable"])
    raise ValueError(f"Unknown feature column class: {class_name}")


def deserialize_column(config: dict) -> Any:
    """The column a `serialize_column` dict describes."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Improper config format for {config}. Expecting python dict contains `class_name` "
                         "and `config` as keys")
    return _column_from(config["class_name"], config["config"])
