"""`tf.keras.layers.DenseFeatures` (and `tf.compat.v1.keras.layers.DenseFeatures`): input_layer as an object.

`DenseFeatures(feature_columns)(features)` gives the same `[batch, n]` tensor as
`tf.compat.v1.feature_column.input_layer`, with its variables (embedding tables) in scope
`dense_features/<column>/...` (`dense_features_1`, ... for later layers). Graph mode, as the Estimators
use it. It is a plain callable here, not a full Keras Layer (no `fit`, no serialization).
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.api import dense_output


class DenseFeatures:
    """`DenseFeatures(feature_columns, trainable=True, name=None)`; call it on a dict of feature tensors."""

    def __init__(self, feature_columns: Any, trainable: bool = True, name: str | None = None, **kwargs: Any):
        columns = list(feature_columns) if not hasattr(feature_columns, "name") else [feature_columns]
        if not columns:
            raise ValueError("feature_columns must not be empty.")
        self._feature_columns, self.trainable, self.name = columns, trainable, name
        self._variables: list = []

    def __call__(self, features: dict, cols_to_output_tensors: Any = None, training: Any = None) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        cols_to_vars: dict = {}
        output = dense_output(features, self._feature_columns, self.name or "dense_features",
                              trainable=self.trainable, cols_to_vars=cols_to_vars,
                              cols_to_output_tensors=cols_to_output_tensors)
        self._variables = [v for found in cols_to_vars.values() for v in found]
        return output

    @property
    def variables(self) -> list:
        return list(self._variables)

    weights = variables

    @property
    def trainable_variables(self) -> list:
        return list(self._variables) if self.trainable else []

    trainable_weights = trainable_variables
