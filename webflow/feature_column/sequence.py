"""Sequence columns (`tf.feature_column.sequence_*`): one value per time step, for RNNs.

A sequence feature is a `[batch, T]` SparseTensor (categorical ones may also be dense, -1 / "" for "no id"): row b
holds the ids of example b's steps, at their positions. `SequenceFeatures` (keras/sequence_features.py) turns the
columns over them into `(sequence_input [batch, T, d], sequence_length [batch])`:
- embedding_column / indicator_column of a `sequence_categorical_column_with_*`: step t of row b is the embedding
  (one-hot) of that step's id, zeros where the step has none;
- `sequence_numeric_column(key, shape)`: the sparse values, `default_value` in the gaps, `prod(shape)` per step.
A row's length is the position of its last entry plus one (for numeric columns: in steps, rounded up), as TF's
`sequence_length_from_sparse_tensor` counts it. The ids stay dense here, as in columns.py.
"""

from __future__ import annotations

import math
from typing import Any

from webflow.feature_column.columns import EmbeddingColumn, IndicatorColumn
from webflow.feature_column.names import check_unique_names
from webflow.feature_column.reprs import describe, tf_type
from webflow.feature_column.sparse_input import as_sparse, densify, entry_mask, is_sparse
from webflow.framework import dtypes


class SequenceCategoricalColumn:
    """A categorical column read as a sequence: `[batch, T]` ids, one per step (-1 where a step has none)."""

    tf_class_name = "SequenceCategoricalColumn"

    def __init__(self, categorical_column: Any):
        self.categorical_column = categorical_column

    @property
    def name(self) -> str:
        return self.categorical_column.name

    @property
    def key(self) -> str:
        return self.categorical_column.key

    @property
    def num_buckets(self) -> int:
        return self.categorical_column.num_buckets

    def ids_and_valid(self, features: dict) -> tuple:
        return self.categorical_column.ids_and_valid(features)

    def id_tensor(self, features: dict) -> Any:
        return self.categorical_column.id_tensor(features)

    def sequence_length(self, features: dict) -> Any:
        """int64 [batch]: the last step holding an input value, plus one (0 for an empty row)."""
        from webflow.ops.math_ops import cast
        return _last_entry(cast(self.ids_and_valid(features)[1], dtypes.int64))

    def tf_repr(self) -> str:
        return f"SequenceCategoricalColumn(categorical_column={describe(self.categorical_column)})"


def _last_entry(mask: Any) -> Any:
    """int64 [batch]: for a 0/1 mask [batch, width], the position of each row's last 1, plus one (0 if none)."""
    from webflow.ops.reduction_ops import cumsum, reduce_max
    positions = cumsum(mask * 0 + 1, axis=1)   # 1, 2, ..., width on every row
    return reduce_max(positions * mask, axis=1)


class SequenceNumericColumn:
    """`sequence_numeric_column(key, shape=(1,), default_value=0.0, dtype=float32, normalizer_fn=None)`."""

    tf_class_name = "SequenceNumericColumn"

    def __init__(self, key: str, shape: tuple, default_value: float, dtype: Any, normalizer_fn: Any):
        self.key, self.shape, self.default_value = key, shape, default_value
        self.dtype, self.normalizer_fn = dtype, normalizer_fn

    @property
    def name(self) -> str:
        return self.key

    @property
    def variable_shape(self) -> int:
        return math.prod(self.shape)

    def sequence_dense_tensor(self, features: dict) -> tuple:
        """([batch, T, prod(shape)] float32, int64 [batch]); TF's TypeError for a dense feature."""
        from webflow.framework.sparse_tensor import SparseTensor
        from webflow.ops.binary_math_ops import floordiv
        from webflow.ops.math_ops import cast
        value = features[self.key]
        if not is_sparse(value):
            raise TypeError("Input must be a SparseTensor.")
        sparse = as_sparse(value)
        if self.normalizer_fn is not None:   # TF hands the SparseTensor itself to normalizer_fn
            sparse = as_sparse(self.normalizer_fn(sparse))
        values = cast(sparse.values, dtypes.float32)
        dense = densify(SparseTensor(sparse.indices, values, sparse.dense_shape), float(self.default_value))
        width = self.variable_shape
        length = floordiv(_last_entry(entry_mask(sparse)) + (width - 1), width)
        return _steps(dense, width), length

    def tf_repr(self) -> str:
        return (f"SequenceNumericColumn(key={self.key!r}, shape={self.shape!r}, default_value={self.default_value!r}, "
                f"dtype=tf.{self.dtype.name}, normalizer_fn={self.normalizer_fn!r})")


def _steps(dense: Any, width: int) -> Any:
    """[batch, T * width] -> [batch, T, width]."""
    from webflow.ops.array_ops import reshape, shape
    from webflow.ops.concat_ops import concat
    from webflow.ops.constants import constant
    batch = shape(dense, out_type=dtypes.int32)[:1]
    return reshape(dense, concat([batch, constant([-1, width], dtypes.int32)], 0))


def _kind(column: Any) -> str:
    return "indicator_column" if isinstance(column, IndicatorColumn) else "embedding_column"


def check_not_sequence(column: Any) -> None:
    """DenseFeatures / input_layer: TF's error for an embedding or indicator column over a sequence column."""
    inner = getattr(column, "categorical_column", None)
    if isinstance(inner, SequenceCategoricalColumn) and hasattr(column, "dense_tensor"):
        raise ValueError(f"In {_kind(column)}: {column.name}. categorical_column must not be of type "
                         "SequenceCategoricalColumn. Suggested fix A: If you wish to use DenseFeatures, use a "
                         "non-sequence categorical_column_with_*. Suggested fix B: If you wish to create sequence "
                         f"input, use SequenceFeatures instead of DenseFeatures. Given (type {tf_type(inner)}): "
                         f"{describe(inner)}")


def check_sequence_columns(columns: list) -> None:
    """SequenceFeatures' checks when made: some columns, each a sequence dense column (TF's messages)."""
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    for column in columns:
        if not isinstance(column, (EmbeddingColumn, IndicatorColumn, SequenceNumericColumn)) and not hasattr(
                column, "embedding_weights"):
            raise ValueError("Items of feature_columns must be a <class 'tensorflow.python.feature_column."
                             "feature_column_v2.SequenceDenseColumn'>. You can wrap a categorical column with an "
                             f"embedding_column or indicator_column. Given: {describe(column)}")
    check_unique_names(columns)


def _check_sequence_input(column: Any) -> None:
    inner = column.categorical_column
    if not isinstance(inner, SequenceCategoricalColumn):
        raise ValueError(f"In {_kind(column)}: {column.name}. categorical_column must be of type "
                         "SequenceCategoricalColumn to use SequenceFeatures. Suggested fix: Use one of "
                         f"sequence_categorical_column_with_*. Given (type {tf_type(inner)}): {describe(inner)}")


def sequence_dense_tensor(column: Any, features: dict, table: Any = None) -> tuple:
    """(`[batch, T, width]` float32, int64 `[batch]` lengths) of one sequence dense column; `table` is an
    embedding column's weights."""
    from webflow.ops.array_ops import reshape, shape
    from webflow.ops.concat_ops import concat
    from webflow.ops.constants import constant
    from webflow.ops.matmul_ops import matmul
    from webflow.ops.sequence_ops import one_hot
    if isinstance(column, SequenceNumericColumn):
        return column.sequence_dense_tensor(features)
    _check_sequence_input(column)
    sequence = column.categorical_column
    ids = sequence.id_tensor(features)
    hot = one_hot(ids, sequence.num_buckets, dtype=dtypes.float32)   # [batch, T, buckets]; an id of -1: zeros
    if isinstance(column, IndicatorColumn):
        return hot, sequence.sequence_length(features)
    if table is None:
        table = column.embedding_weights()
    # each step holds one id, so every combiner gives that id's row: one-hot rows times the table
    flat = matmul(reshape(hot, [-1, sequence.num_buckets]), table)
    steps = concat([shape(ids, out_type=dtypes.int32), constant([column.dimension], dtypes.int32)], 0)
    return reshape(flat, steps), sequence.sequence_length(features)


def check_batch_sizes(columns: list, outputs: list) -> None:
    """TF's ValueError when the columns' static batch sizes differ."""
    sizes = [output.shape.as_list()[0] for output in outputs]
    if None not in sizes and len(set(sizes)) > 1:
        names = ", ".join(column.name for column in columns)
        raise ValueError(f"Batch size (first dimension) of each feature must be same. Batch size of columns "
                         f"({names}): ({', '.join(str(size) for size in sizes)})")
