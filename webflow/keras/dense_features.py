"""`keras.layers.DenseFeatures(feature_columns)`: a dict of features -> one `[batch, n]` float32 tensor, as a
real Keras layer (tf_keras's `DenseFeatures`, the first layer of TensorFlow's "Classify structured data with
feature columns" tutorial).

Its output is `tf.compat.v1.feature_column.input_layer`'s (columns sorted by name, concatenated on axis 1). The
embedding columns' tables are its weights, made in `build` with `add_weight`, so they are named
`dense_features/<column>_embedding/embedding_weights:0` and saved under the edge `<column>_embedding/embedding_weights`,
as tf_keras names and tracks them. (webflow.feature_column.DenseFeatures stays the Estimators' graph-mode callable.)
"""

from __future__ import annotations

from typing import Any

from webflow.feature_column.api import check_columns
from webflow.feature_column.columns import EmbeddingColumn, concat_columns
from webflow.feature_column.keys import feature_keys
from webflow.feature_column.sequence import check_not_sequence
from webflow.feature_column.serialization import default_initializer, deserialize_column, serialize_column
from webflow.keras.base_layer import Layer
from webflow.keras.feature_inputs import SparseFeatureInputs


class DenseFeatures(SparseFeatureInputs, Layer):
    """`DenseFeatures(feature_columns, trainable=True, name=None)`; call it on a dict of feature tensors."""

    def __init__(self, feature_columns: Any, trainable: bool = True, name: str | None = None,
                 partitioner: Any = None, **kwargs: Any):
        columns = [feature_columns] if hasattr(feature_columns, "name") else list(feature_columns)
        check_columns(columns)
        super().__init__(trainable=trainable, name=name, **kwargs)
        object.__setattr__(self, "_feature_columns", sorted(columns, key=lambda c: c.name))
        object.__setattr__(self, "_tables", {})

    def build(self, input_shape: Any) -> None:
        for column in self._feature_columns:
            if isinstance(column, EmbeddingColumn):
                initializer = column.initializer or default_initializer(column)
                self._tables[column.name] = self.add_weight(
                    name=f"{column.name}/embedding_weights", shape=[column.categorical_column.num_buckets,
                                                                    column.dimension],
                    initializer=initializer, trainable=column.trainable)
        self.built = True

    def call(self, features: Any, cols_to_output_tensors: Any = None, training: Any = None) -> Any:
        if not isinstance(features, dict):
            raise ValueError(f"We expected a dictionary here. Instead we got: {features}")
        features = self.with_sparse_features(features)   # SparseTensor features (feature_inputs.py)
        outputs = []
        for column in self._feature_columns:
            for key in feature_keys(column):
                if key not in features:
                    raise ValueError(self._call_error(f"Feature {key} is not in features dictionary.", features,
                                                      cols_to_output_tensors, training))
            try:
                check_not_sequence(column)
            except ValueError as error:
                raise ValueError(self._call_error(str(error), features, cols_to_output_tensors, training)) from None
            if isinstance(column, EmbeddingColumn):
                tensor = column.dense_tensor(features, self._tables[column.name])
            else:
                tensor = column.dense_tensor(features)
            if cols_to_output_tensors is not None:
                cols_to_output_tensors[column] = tensor
            outputs.append(tensor)
        return concat_columns(outputs)

    def _call_error(self, message: str, features: dict, cols_to_output_tensors: Any, training: Any) -> str:
        """tf_keras's wrapping of an error raised in `call`: the layer, the message, the call's arguments."""
        layer = f"layer '{self.name}' (type {type(self).__name__})"
        shown = {key: f"tf.Tensor(shape={tuple(value.shape.as_list())}, dtype={value.dtype.name})"
                 for key, value in features.items()}
        return (f"Exception encountered when calling {layer}.\n\n{message}\n\nCall arguments received by {layer}:\n"
                f"  \u2022 features={shown}\n  \u2022 cols_to_output_tensors={cols_to_output_tensors}\n"
                f"  \u2022 training={training}")

    def compute_output_shape(self, input_shape: Any) -> tuple:
        """`(input_shape[0], total width)`, as tf_keras (which indexes a dict of shapes the same way: KeyError)."""
        return (input_shape[0], sum(column.variable_shape for column in self._feature_columns))

    def get_config(self) -> dict:
        config = super().get_config()
        config["feature_columns"] = [serialize_column(column) for column in self._feature_columns]
        config["partitioner"] = None
        return config

    @classmethod
    def from_config(cls, config: dict) -> DenseFeatures:
        config = dict(config)
        config["feature_columns"] = [deserialize_column(item) for item in config["feature_columns"]]
        return cls(**config)
