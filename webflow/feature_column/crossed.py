"""`crossed_column(keys, hash_bucket_size, hash_key=None)`: the hashed crosses of several features.

Each leaf key is a raw feature (a string key: its strings or integers, all of them, as TF passes the dense
tensor) or a categorical column (its ids, without the inputs TF drops); nested crossed columns contribute
their own keys. Row by row, every combination of one value per key is hashed by TF's SparseCross
(ops/sparse_cross_ops.py: FingerprintCat64 chained from hash_key, mod hash_bucket_size; sparse inputs first,
then dense ones, as TF's sparse_cross_hashed orders them). The ids come back dense ([batch, crosses], -1 where
a row has fewer crosses), like the other categorical columns here.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.columns import HashBucketColumn, _as_2d
from webflow.feature_column.sparse_input import as_sparse, is_sparse
from webflow.framework import dtypes
from webflow.ops.sparse_cross_ops import DEFAULT_HASH_KEY


def leaf_keys(keys: tuple) -> list:
    """The keys with nested crossed columns expanded (TF's _collect_leaf_level_keys)."""
    found: list = []
    for key in keys:
        found.extend(leaf_keys(key.keys) if isinstance(key, CrossedColumn) else [key])
    return found


class _Sparse:
    """(indices, values, dense_shape) of the entries of a dense [batch, k] tensor where `keep` is true."""

    def __init__(self, dense: Any, keep: Any):
        from webflow.ops.array_ops import shape
        from webflow.ops.gather_ops import gather_nd
        from webflow.ops.logic_ops import where
        from webflow.ops.math_ops import cast
        self.indices = where(keep)
        self.values = gather_nd(dense, self.indices)
        self.dense_shape = cast(shape(dense), dtypes.int64)

    @classmethod
    def of_feature(cls, value: Any) -> _Sparse:
        """A SparseTensor feature as it is (integer values as int64, as TF's sparse_cross casts them)."""
        from webflow.ops.math_ops import cast
        sparse = as_sparse(value)
        crossed = cls.__new__(cls)
        crossed.indices, crossed.dense_shape = sparse.indices, sparse.dense_shape
        crossed.values = sparse.values if sparse.dtype == dtypes.string else cast(sparse.values, dtypes.int64)
        return crossed


class CrossedColumn:
    def __init__(self, keys: tuple, hash_bucket_size: int, hash_key: int | None):
        self.keys, self.hash_bucket_size, self.hash_key = keys, hash_bucket_size, hash_key

    @property
    def name(self) -> str:
        return "_X_".join(sorted(k if isinstance(k, str) else k.name for k in leaf_keys(self.keys)))

    @property
    def num_buckets(self) -> int:
        return self.hash_bucket_size

    @staticmethod
    def _input(key: Any, features: dict) -> Any:
        """A raw feature: dense, every value crossed (TF passes it as is), or sparse, its entries; a categorical
        column: its sparse ids (an out-of-vocabulary -1 is crossed, a dropped "" / -1 input is not)."""
        from webflow.ops.logic_ops import greater_equal
        from webflow.ops.math_ops import cast
        if isinstance(key, str) and is_sparse(features[key]):
            return _Sparse.of_feature(features[key])
        if isinstance(key, str):
            value = _as_2d(features[key])
            return value if value.dtype == dtypes.string else cast(value, dtypes.int64)
        if hasattr(key, "ids_and_valid"):
            return _Sparse(*key.ids_and_valid(features))
        ids = key.id_tensor(features)  # bucketized: every id is there
        return _Sparse(ids, greater_equal(ids, 0))

    def id_tensor(self, features: dict) -> Any:
        from webflow.ops.constants import constant
        from webflow.ops.sparse_cross_ops import sparse_cross
        from webflow.ops.sparse_ops import sparse_to_dense
        inputs = [self._input(key, features) for key in leaf_keys(self.keys)]
        sparse = [i for i in inputs if isinstance(i, _Sparse)]
        dense = [i for i in inputs if not isinstance(i, _Sparse)]  # TF puts the sparse columns first too
        indices, values, shape = sparse_cross(sparse, dense, True, self.hash_bucket_size,
                                              self.hash_key or DEFAULT_HASH_KEY)
        return sparse_to_dense(indices, shape, values, constant(-1, dtypes.int64))


def crossed_column(keys: Any, hash_bucket_size: int, hash_key: int | None = None) -> CrossedColumn:
    """`tf.feature_column.crossed_column`: TF's checks, then a CrossedColumn."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if isinstance(key, HashBucketColumn):
            raise ValueError(f"categorical_column_with_hash_bucket is not supported for crossing. Hashing before "
                             f"crossing will increase probability of collision. Instead, use the feature name as a "
                             f"string. Given: {key}")
        if not isinstance(key, str) and not hasattr(key, "id_tensor"):
            raise ValueError(f"Unsupported key type. All keys must be either string, or categorical column except "
                             f"HashedCategoricalColumn. Given: {key}")
    return CrossedColumn(tuple(keys), hash_bucket_size, hash_key)
