"""Feature-column descriptions: each column knows its name and how to turn the features dict into a tensor.

Dense columns (`numeric`, `bucketized`, `indicator`, `embedding`) give `[batch, variable_shape]` float32;
categorical columns give dense int64 ids `[batch, k]` where -1 marks "no id" (TF keeps these as a
SparseTensor and drops the -1 / "" entries; one_hot of -1 is all zeros, so the dense outputs agree).
"""

from __future__ import annotations

import math
from typing import Any

from webflow.feature_column.sparse_input import check_not_sparse, dense_feature, densify, is_sparse
from webflow.framework import dtypes
from webflow.ops.array_ops import reshape
from webflow.ops.concat_ops import concat
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor
from webflow.ops.logic_ops import equal, greater_equal, logical_and, not_equal, where
from webflow.ops.manip_ops import expand_dims
from webflow.ops.math_ops import add_n, cast
from webflow.ops.sequence_ops import one_hot
from webflow.ops.string_convert_ops import as_string, to_hash_bucket_fast
from webflow.ops.sum_mean_ops import reduce_sum


def _as_2d(value: Any) -> Any:
    """A feature as a tensor of rank >= 2: TF expands a rank-1 feature `[batch]` to `[batch, 1]`."""
    tensor = convert_to_tensor(value)
    if tensor.shape.ndims == 1:
        tensor = expand_dims(tensor, -1)
    return tensor


def _flat(tensor: Any, width: int) -> Any:
    return reshape(tensor, [-1, width])


class NumericColumn:
    """`numeric_column(key, shape=(1,), default_value=None, dtype=float32, normalizer_fn=None)`."""

    def __init__(self, key: str, shape: tuple, default_value: Any, dtype: Any, normalizer_fn: Any):
        self.key, self.shape, self.default_value = key, shape, default_value
        self.dtype, self.normalizer_fn = dtype, normalizer_fn

    @property
    def name(self) -> str:
        return self.key

    @property
    def variable_shape(self) -> int:
        return math.prod(self.shape)

    def dense_tensor(self, features: dict) -> Any:
        check_not_sparse(features[self.key], self.key)
        value = cast(_as_2d(features[self.key]), dtypes.float32)
        if self.normalizer_fn is not None:
            value = self.normalizer_fn(value)
        return _flat(value, self.variable_shape)


class BucketizedColumn:
    """`bucketized_column(source_column, boundaries)`: bucket i holds boundaries[i-1] <= x < boundaries[i]."""

    def __init__(self, source_column: NumericColumn, boundaries: list):
        self.source_column, self.boundaries = source_column, tuple(float(b) for b in boundaries)

    @property
    def name(self) -> str:
        return f"{self.source_column.name}_bucketized"

    @property
    def num_buckets(self) -> int:
        return self.source_column.variable_shape * (len(self.boundaries) + 1)

    @property
    def variable_shape(self) -> int:
        return self.num_buckets

    def _buckets(self, features: dict) -> Any:
        # The bucket of x is how many boundaries are <= x (TF's Bucketize op, written as a sum of comparisons).
        check_not_sparse(features[self.source_column.key], self.source_column.key)
        value = cast(_as_2d(features[self.source_column.key]), dtypes.float32)
        value = _flat(value, self.source_column.variable_shape)
        if not self.boundaries:
            return cast(value * 0.0, dtypes.int64)
        hits = [cast(greater_equal(value, b), dtypes.int64) for b in self.boundaries]
        return add_n(hits) if len(hits) > 1 else hits[0]

    def id_tensor(self, features: dict) -> Any:
        # Dimension j of the source uses ids j*(len(boundaries)+1) ... (TF's layout).
        width = self.source_column.variable_shape
        offsets = constant([j * (len(self.boundaries) + 1) for j in range(width)], dtypes.int64)
        return self._buckets(features) + offsets

    def dense_tensor(self, features: dict) -> Any:
        hot = one_hot(self._buckets(features), len(self.boundaries) + 1, dtype=dtypes.float32)
        return _flat(hot, self.variable_shape)


class _Categorical:
    key: str
    num_buckets: int

    @property
    def name(self) -> str:
        return self.key

    def _input(self, features: dict) -> tuple:
        """(values [batch, k], valid mask): TF drops "" from string input and -1 from integer input."""
        value = _as_2d(dense_feature(features[self.key]))   # a SparseTensor: its gaps filled with "" / -1
        missing = "" if value.dtype == dtypes.string else -1
        return value, not_equal(value, constant(missing, value.dtype))

    def _masked(self, ids: Any, valid: Any) -> Any:
        ids = cast(ids, dtypes.int64)
        return where(valid, ids, constant(-1, dtypes.int64) + ids * 0)

    def id_tensor(self, features: dict) -> Any:
        return self._masked(*self.ids_and_valid(features))


class VocabularyListColumn(_Categorical):
    """`categorical_column_with_vocabulary_list(key, vocabulary_list, dtype, default_value=-1, num_oov_buckets=0)`."""

    def __init__(self, key: str, vocabulary_list: tuple, dtype: Any, default_value: int, num_oov_buckets: int):
        self.key, self.vocabulary_list, self.dtype = key, tuple(vocabulary_list), dtype
        self.default_value, self.num_oov_buckets = default_value, num_oov_buckets

    @property
    def num_buckets(self) -> int:
        return len(self.vocabulary_list) + self.num_oov_buckets

    def ids_and_valid(self, features: dict) -> tuple:
        """(int64 ids [batch, k], mask of the entries TF keeps: not "" / -1 in the input)."""
        value, valid = self._input(features)
        vocabulary = constant(list(self.vocabulary_list), value.dtype)
        match = cast(equal(expand_dims(value, -1), vocabulary), dtypes.int64)
        positions = constant(list(range(1, len(self.vocabulary_list) + 1)), dtypes.int64)
        found = reduce_sum(match, -1)
        index = reduce_sum(match * positions, -1) - 1
        if self.num_oov_buckets:
            text = value if value.dtype == dtypes.string else as_string(value)
            oov = cast(to_hash_bucket_fast(text, self.num_oov_buckets), dtypes.int64) + len(self.vocabulary_list)
        else:
            oov = index * 0 + self.default_value
        return where(equal(found, 0), oov, index), valid


class IdentityColumn(_Categorical):
    """`categorical_column_with_identity(key, num_buckets, default_value=None)`: the integer is the id."""

    def __init__(self, key: str, num_buckets: int, default_value: Any):
        self.key, self.num_buckets, self.default_value = key, num_buckets, default_value

    def ids_and_valid(self, features: dict) -> tuple:
        """(int64 ids [batch, k], mask of the entries TF keeps: not "" / -1 in the input)."""
        value, valid = self._input(features)
        ids = cast(value, dtypes.int64)
        if self.default_value is not None:
            inside = logical_and(greater_equal(ids, 0), ids < self.num_buckets)
            ids = where(inside, ids, ids * 0 + self.default_value)
        return ids, valid


class HashBucketColumn(_Categorical):
    """`categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=string)`: Fingerprint64 % size."""

    def __init__(self, key: str, hash_bucket_size: int, dtype: Any):
        self.key, self.num_buckets, self.dtype = key, hash_bucket_size, dtype

    def ids_and_valid(self, features: dict) -> tuple:
        """(int64 ids [batch, k], mask of the entries TF keeps: not "" / -1 in the input)."""
        value, valid = self._input(features)
        text = value if value.dtype == dtypes.string else as_string(value)
        return cast(to_hash_bucket_fast(text, self.num_buckets), dtypes.int64), valid


class WeightedCategoricalColumn:
    """`weighted_categorical_column(categorical_column, weight_feature_key, dtype=float32)`: each id of the row
    carries the weight at the same place of features[weight_feature_key]."""

    def __init__(self, categorical_column: Any, weight_feature_key: str, dtype: Any):
        self.categorical_column, self.weight_feature_key, self.dtype = categorical_column, weight_feature_key, dtype

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def id_tensor(self, features: dict) -> Any:
        return self.categorical_column.id_tensor(features)

    def weight_tensor(self, features: dict) -> Any:
        """[batch, k] float32 weights, 0 where the id is missing (TF drops both)."""
        ids = self.id_tensor(features)
        weights = features[self.weight_feature_key]
        weights = cast(_as_2d(densify(weights, 0) if is_sparse(weights) else weights), dtypes.float32)
        return weights * cast(greater_equal(ids, 0), dtypes.float32)


def _id_weights(categorical: Any, features: dict) -> Any:
    """[batch, k] float32: each id's weight (1, or the weighted column's; 0 for a missing id)."""
    if hasattr(categorical, "weight_tensor"):
        return categorical.weight_tensor(features)
    return cast(greater_equal(categorical.id_tensor(features), 0), dtypes.float32)


def _id_counts(categorical: Any, features: dict) -> Any:
    """[batch, num_buckets] float32: the summed weight of each id in the row (ids of -1 count nowhere)."""
    hot = one_hot(categorical.id_tensor(features), categorical.num_buckets, dtype=dtypes.float32)
    if hasattr(categorical, "weight_tensor"):
        hot = hot * expand_dims(categorical.weight_tensor(features), -1)
    return reduce_sum(hot, -2)


class IndicatorColumn:
    """`indicator_column(categorical_column)`: multi-hot counts of the ids."""

    def __init__(self, categorical_column: Any):
        self.categorical_column = categorical_column

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_indicator"

    @property
    def variable_shape(self) -> int:
        return self.categorical_column.num_buckets

    def dense_tensor(self, features: dict) -> Any:
        return _id_counts(self.categorical_column, features)


class EmbeddingColumn:
    """`embedding_column(categorical_column, dimension, combiner='mean', initializer=None, ...)`."""

    def __init__(self, categorical_column: Any, dimension: int, combiner: str, initializer: Any,
                 max_norm: Any, trainable: bool):
        if combiner not in ("mean", "sqrtn", "sum"):
            raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
        self.categorical_column, self.dimension, self.combiner = categorical_column, dimension, combiner
        self.initializer, self.max_norm, self.trainable = initializer, max_norm, trainable

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_embedding"

    @property
    def variable_shape(self) -> int:
        return self.dimension

    def dense_tensor(self, features: dict, weights: Any) -> Any:
        # The counts matrix times the table sums each row's embeddings (a dense embedding_lookup_sparse).
        from webflow.ops.binary_math_ops import div_no_nan
        from webflow.ops.matmul_ops import matmul
        from webflow.ops.unary_math_ops import sqrt
        counts = _id_counts(self.categorical_column, features)
        total = matmul(counts, weights)
        if self.combiner == "sum":
            return total
        weights = _id_weights(self.categorical_column, features)
        if self.combiner == "sqrtn":  # sum(w * e) / sqrt(sum(w^2)); a row without ids gives zeros
            return div_no_nan(total, sqrt(reduce_sum(weights * weights, -1, keepdims=True)))
        return div_no_nan(total, reduce_sum(weights, -1, keepdims=True))


def concat_columns(tensors: list) -> Any:
    return concat(tensors, 1) if len(tensors) > 1 else tensors[0]
