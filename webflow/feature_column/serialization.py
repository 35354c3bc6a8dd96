"""Feature columns as TensorFlow's config dicts (`{"class_name": ..., "config": {...}}`, the form
`tf.keras.layers.DenseFeatures.get_config()` writes) and back: `serialize_column`, `deserialize_column`.

The class names and config keys are TensorFlow <= 2.15's (feature_column_v2.py), so a `.keras` file or a
`get_config()` dict made by tf_keras reads here and the other way round.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.configs import default_initializer, serialize_column  # noqa: F401 (re-exported)
from webflow.framework import dtypes


def _initializer_from(config: Any) -> Any:
    if config is None:
        return None
    from webflow.ops import init_ops
    settings = dict(config["config"])
    if "dtype" in settings:
        settings["dtype"] = dtypes.as_dtype(settings["dtype"])
    return getattr(init_ops, config["class_name"])(**settings)


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
    return _more_column_from(class_name, config)


def _more_column_from(class_name: str, config: dict) -> Any:
    """The sequence columns and the vocabulary-file column."""
    from webflow.feature_column import sequence_api, vocabulary_file
    if class_name == "SequenceCategoricalColumn":
        return sequence_api.SequenceCategoricalColumn(deserialize_column(config["categorical_column"]))
    if class_name == "SequenceNumericColumn":
        return sequence_api.sequence_numeric_column(config["key"], tuple(config["shape"]), config["default_value"],
                                                    config["dtype"])
    if class_name == "VocabularyFileCategoricalColumn":
        return vocabulary_file.categorical_column_with_vocabulary_file(
            config["key"], config["vocabulary_file"], config["vocabulary_size"], config["num_oov_buckets"],
            config["default_value"], config["dtype"])
    raise ValueError(f"Unknown feature column class: {class_name}")


def deserialize_column(config: dict) -> Any:
    """The column a `serialize_column` dict describes."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Improper config format for {config}. Expecting python dict contains `class_name` "
                         "and `config` as keys")
    return _column_from(config["class_name"], config["config"])
