"""TF1's `tf.contrib.feature_column.sequence_input_layer(features, feature_columns)`: SequenceFeatures as a graph
function, `(input_layer [batch, T, d], sequence_length [batch])`, embedding tables made with `get_variable` in
scope `sequence_input_layer/<column name>/embedding_weights` (TensorFlow 1.15's contrib names)."""

from __future__ import annotations

from typing import Any

from webflow.feature_column.api import _embedding_weights
from webflow.feature_column.columns import EmbeddingColumn, IndicatorColumn
from webflow.feature_column.reprs import describe, tf_type
from webflow.feature_column.sequence import SequenceNumericColumn, check_batch_sizes, sequence_dense_tensor


def _check(columns: list) -> None:
    for column in columns:
        if not isinstance(column, (EmbeddingColumn, IndicatorColumn, SequenceNumericColumn)):
            raise ValueError("All feature_columns must be of type _SequenceDenseColumn. You can wrap a "
                             "sequence_categorical_column with an embedding_column or indicator_column. Given (type "
                             f"{tf_type(column)}): {describe(column)}")


def sequence_input_layer(features: dict, feature_columns: Any, weight_collections: Any = None,
                         trainable: bool = True) -> tuple:
    """The columns' sequence inputs (sorted by name, concatenated on the last axis) and the rows' lengths."""
    from webflow.framework.scopes import control_dependencies
    from webflow.ops.array_ops import identity
    from webflow.ops.check_ops import assert_equal
    from webflow.ops.concat_ops import concat
    from webflow.ops.variable_scope import variable_scope
    columns = sorted(feature_columns, key=lambda c: c.name)
    _check(columns)
    collections = list(weight_collections) + ["variables"] if weight_collections else None
    outputs, lengths = [], []
    with variable_scope(None, default_name="sequence_input_layer", values=list(features.values())):
        for column in columns:
            with variable_scope(None, default_name=column.name):
                table = None
                if isinstance(column, EmbeddingColumn):
                    table = _embedding_weights(column, trainable, collections)
                tensor, length = sequence_dense_tensor(column, features, table)
            outputs.append(tensor)
            lengths.append(length)
        check_batch_sizes(columns, outputs)
        checks = [assert_equal(lengths[0], other) for other in lengths[1:]]   # TF's run-time check; the first wins
        with control_dependencies([check for check in checks if check is not None]):
            length = identity(lengths[0])
        return (concat(outputs, -1) if len(outputs) > 1 else outputs[0]), length
