"""`tf.feature_column` (TensorFlow <= 2.15): column descriptions and `input_layer` for Estimators."""

# ruff: noqa: F401
from webflow.feature_column.api import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_list,
    embedding_column,
    indicator_column,
    input_layer,
    numeric_column,
    weighted_categorical_column,
)
from webflow.feature_column.crossed import crossed_column
from webflow.feature_column.dense_features import DenseFeatures
from webflow.feature_column.sequence_api import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from webflow.feature_column.shared import shared_embedding_columns, shared_embeddings
from webflow.feature_column.vocabulary_file import categorical_column_with_vocabulary_file
