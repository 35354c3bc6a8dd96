"""`tf.keras.experimental.SequenceFeatures(feature_columns)`: a dict of sequence features -> `(sequence_input
[batch, T, d], sequence_length [batch])`, the input of an RNN (tf_keras's layer).

The columns are embedding / indicator columns over `sequence_categorical_column_with_*` and
`sequence_numeric_column`s (feature_column/sequence.py), sorted by name and concatenated on the last axis. Embedding
tables are the layer's weights, named `sequence_features/<column>_embedding/embedding_weights:0` as in tf_keras.
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.keys import feature_keys
from webflow.feature_column.sequence import check_batch_sizes, check_sequence_columns, sequence_dense_tensor
from webflow.framework.errors import InvalidArgumentError
from webflow.keras.base_layer import Layer
from webflow.keras.dense_features import DenseFeatures


def _all_equal(lengths: list) -> Any:
    """The first column's lengths, once asserted equal to every other column's (TF's _assert_all_equal_and_return)."""
    if len(lengths) == 1:
        return lengths[0]
    from webflow.framework.scopes import control_dependencies
    from webflow.ops.array_ops import identity
    from webflow.ops.check_ops import assert_equal
    checks = [assert_equal(lengths[0], other) for other in lengths[1:]]
    with control_dependencies([check for check in checks if check is not None]):
        return identity(lengths[0])


class SequenceFeatures(DenseFeatures):
    """`SequenceFeatures(feature_columns, trainable=True, name=None)`; call it on a dict of (sparse) features."""

    def __init__(self, feature_columns: Any, trainable: bool = True, name: str | None = None,
                 partitioner: Any = None, **kwargs: Any):
        columns = [feature_columns] if hasattr(feature_columns, "name") else list(feature_columns)
        check_sequence_columns(columns)
        Layer.__init__(self, trainable=trainable, name=name, **kwargs)
        object.__setattr__(self, "_feature_columns", sorted(columns, key=lambda c: c.name))
        object.__setattr__(self, "_tables", {})

    def call(self, features: Any, training: Any = None) -> tuple:
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        from webflow.ops.concat_ops import concat
        features = self.with_sparse_features(features)
        outputs, lengths = [], []
        for column in self._feature_columns:
            try:
                for key in feature_keys(column):
                    if key not in features:
                        raise ValueError(f"Feature {key} is not in features dictionary.")
                tensor, length = sequence_dense_tensor(column, features, self._tables.get(column.name))
            except (ValueError, TypeError) as error:
                raise type(error)(self._sequence_error(str(error), features, training)) from None
            outputs.append(tensor)
            lengths.append(length)
        try:
            check_batch_sizes(self._feature_columns, outputs)
            length = _all_equal(lengths)
        except ValueError as error:
            raise ValueError(self._sequence_error(str(error), features, training)) from None
        except InvalidArgumentError as error:
            raise InvalidArgumentError(None, None, self._sequence_error(error.message, features, training)) from None
        return (concat(outputs, -1) if len(outputs) > 1 else outputs[0]), length

    def _sequence_error(self, message: str, features: dict, training: Any) -> str:
        """tf_keras's wrapping of an error raised in `call` (SequenceFeatures' call takes no cols_to_output_tensors)."""
        text = self._call_error(message, features, None, training)
        return text.replace("  \u2022 cols_to_output_tensors=None\n", "")

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (input_shape[0], None, sum(column.variable_shape for column in self._feature_columns))
