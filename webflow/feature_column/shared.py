"""Shared embeddings: one embedding table for several categorical columns (say "watched video" and "impression
video", both ids from the same vocabulary), each column looking its own ids up in it.

Two APIs, as TensorFlow has them, differing in where the table lives:
- TF1 `tf.compat.v1.feature_column.shared_embedding_columns`: for `input_layer`. The first column to be used
  makes `<scope>/<collection name>/embedding_weights` (`input_layer/a_b_shared_embedding/embedding_weights`) and
  puts it in the graph collection named after the columns; the others, and later input layers, take it from there.
- TF2 `tf.feature_column.shared_embeddings`: for `DenseFeatures` (graph mode only). The table is one variable per
  graph named by the collection name alone, outside any scope (`a_b_shared_embedding`); TF's DenseFeatures does not
  list it among its weights. `input_layer` refuses these columns.
Both refuse eager execution, as TensorFlow does. The collection name is the columns' names, sorted, joined by "_",
plus "_shared_embedding", unless given.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from webflow.feature_column.columns import EmbeddingColumn
from webflow.framework import dtypes


class SharedEmbeddingColumn:
    """One user of a shared table: `<categorical column name>_shared_embedding`, `dimension` wide."""

    def __init__(self, categorical_column: Any, table: Any, combiner: str, max_norm: Any):
        if combiner not in ("mean", "sqrtn", "sum"):
            raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner!r}")
        self.categorical_column, self.table = categorical_column, table
        self.combiner, self.max_norm = combiner, max_norm

    @property
    def name(self) -> str:
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def dimension(self) -> int:
        return self.table.dimension

    @property
    def variable_shape(self) -> int:
        return self.table.dimension

    @property
    def var_scope_name(self) -> str:
        """The variable scope input_layer opens for this column: the collection's, shared by all its users."""
        return self.table.name

    @property
    def is_v2(self) -> bool:
        return isinstance(self.table, SharedTableV2)

    def embedding_weights(self, trainable: bool = True, collections: Any = None) -> Any:
        return self.table.weights(trainable, collections)

    def dense_tensor(self, features: dict, weights: Any = None) -> Any:
        """`[batch, dimension]`: the rows of the shared table for this column's ids, combined by `combiner`."""
        from webflow.framework.scopes import name_scope_v1
        if weights is None:
            weights = self.embedding_weights()
        with name_scope_v1(None, default_name=self.name):   # TF: one name scope per user inside the shared one
            return EmbeddingColumn.dense_tensor(self, features, weights)


class _SharedTable:
    def __init__(self, name: str, num_buckets: int, dimension: int, initializer: Any, trainable: bool):
        self.name, self.num_buckets, self.dimension = name, num_buckets, dimension
        self.initializer, self.trainable = initializer, trainable

    @property
    def shape(self) -> list:
        return [self.num_buckets, self.dimension]


class SharedTableV1(_SharedTable):
    """TF1's: found in (or added to) the graph collection named `name`, made in the current variable scope."""

    def weights(self, trainable: bool = True, collections: Any = None) -> Any:
        from webflow.framework.scopes import add_to_collection, get_collection
        from webflow.ops.variable_scope import get_variable
        found = get_collection(self.name)
        if len(found) > 1:
            raise ValueError(f"Collection {found} can only contain one variable. Suggested fix A: Choose a unique "
                             "name for this collection. Suggested fix B: Do not add any variables to this collection. "
                             "The feature_column library already adds a variable under the hood.")
        if found:
            if found[0].shape.as_list() != self.shape:
                raise ValueError(
                    f"Shared embedding collection {self.name} contains variable {found[0].name} of unexpected shape "
                    f"{found[0].shape}. Expected shape is {tuple(self.shape)}. Suggested fix A: Choose a unique name "
                    "for this collection. Suggested fix B: Do not add any variables to this collection. The "
                    "feature_column library already adds a variable under the hood.")
            return found[0]
        table = get_variable("embedding_weights", self.shape, dtypes.float32, initializer=self.initializer,
                             trainable=self.trainable and trainable, collections=collections)
        add_to_collection(self.name, table)
        return table


class SharedTableV2(_SharedTable):
    """TF2's: one variable per graph, named `name` at the root of the graph's variable and name scopes."""

    def __init__(self, *args: Any):
        super().__init__(*args)
        self._by_graph: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def weights(self, trainable: bool = True, collections: Any = None) -> Any:
        from webflow.framework.context import get_default_graph
        from webflow.ops.variable_scope import VariableScope, get_variable, variable_scope
        graph = get_default_graph()
        if graph not in self._by_graph:
            with variable_scope(VariableScope(None)):
                self._by_graph[graph] = get_variable(self.name, self.shape, dtypes.float32,
                                                     initializer=self.initializer, trainable=self.trainable)
        return self._by_graph[graph]


def _base(column: Any) -> Any:
    """The categorical column under weighted / sequence wrappers (what must agree across the users)."""
    while hasattr(column, "categorical_column"):
        column = column.categorical_column
    return column


def _check(categorical_columns: Any, dimension: Any, initializer: Any, ckpt_to_load_from: Any,
           tensor_name_in_ckpt: Any, v2: bool) -> Any:
    """TF's checks, in its order; returns the initializer (truncated normal, stddev 1/sqrt(dimension), if None)."""
    from webflow.framework.context import executing_eagerly
    from webflow.ops.init_ops import TruncatedNormal
    if executing_eagerly():
        raise RuntimeError("shared_embedding_columns are not supported when eager execution is enabled.")
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or none of them.")
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    columns = sorted(categorical_columns, key=lambda c: c.name)
    first = columns[0]
    if not hasattr(first, "num_buckets") or hasattr(first, "dense_tensor"):
        kind = "CategoricalColumn" if v2 else "_CategoricalColumn"
        raise ValueError(f"All categorical_columns must be subclasses of {kind}. Given: {first}, of type: "
                         f"{type(first)}")
    for column in columns[1:]:
        if type(_base(column)) is not type(_base(first)):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same type, or "
                             f"be weighted_categorical_column or sequence column of the same type. Given column: "
                             f"{_base(first)} of type: {type(_base(first))} does not match given column: "
                             f"{_base(column)} of type: {type(_base(column))}")
        if column.num_buckets != first.num_buckets:
            spelled = "Given" if v2 else "ven"   # TF 2.15's TF1 message lost two letters
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must have the same number of "
                             f"buckets. {spelled} column: {_base(first)} with buckets: {first.num_buckets} does  not "
                             f"match column: {_base(column)} with buckets: {column.num_buckets}")
    if initializer is None:
        initializer = TruncatedNormal(mean=0.0, stddev=1.0 / math.sqrt(dimension))
    return initializer


def _collection_name(categorical_columns: Any, given: str | None) -> str:
    names = sorted(column.name for column in categorical_columns)
    return given or "_".join(names) + "_shared_embedding"


def shared_embedding_columns(categorical_columns: Any, dimension: int, combiner: str = "mean",
                             initializer: Any = None, shared_embedding_collection_name: str | None = None,
                             ckpt_to_load_from: Any = None, tensor_name_in_ckpt: Any = None, max_norm: Any = None,
                             trainable: bool = True, use_safe_embedding_lookup: bool = True) -> list:
    """`tf.compat.v1.feature_column.shared_embedding_columns`: for input_layer (and the TF1 Estimators)."""
    initializer = _check(categorical_columns, dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt, False)
    name = _collection_name(categorical_columns, shared_embedding_collection_name)
    table = SharedTableV1(name, categorical_columns[0].num_buckets, dimension, initializer, trainable)
    return [SharedEmbeddingColumn(column, table, combiner, max_norm) for column in categorical_columns]


def shared_embeddings(categorical_columns: Any, dimension: int, combiner: str = "mean", initializer: Any = None,
                      shared_embedding_collection_name: str | None = None, ckpt_to_load_from: Any = None,
                      tensor_name_in_ckpt: Any = None, max_norm: Any = None, trainable: bool = True,
                      use_safe_embedding_lookup: bool = True) -> list:
    """`tf.feature_column.shared_embeddings` (TF2): for DenseFeatures and the Estimators, in graph mode."""
    initializer = _check(categorical_columns, dimension, initializer, ckpt_to_load_from, tensor_name_in_ckpt, True)
    name = _collection_name(categorical_columns, shared_embedding_collection_name)
    table = SharedTableV2(name, categorical_columns[0].num_buckets, dimension, initializer, trainable)
    return [SharedEmbeddingColumn(column, table, combiner, max_norm) for column in categorical_columns]
