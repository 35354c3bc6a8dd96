"""SparseTensor features for the feature layers (DenseFeatures, SequenceFeatures): `Layer.__call__` converts its
inputs to dense tensors, which a SparseTensor is not, so the sparse entries of the features dict go around that
conversion and rejoin the dict in `call` (tf_keras passes composite tensors through unchanged)."""

from __future__ import annotations

from typing import Any

from webflow.feature_column.sparse_input import as_sparse, is_sparse


class SparseFeatureInputs:
    """Mixin for a Layer whose `call` takes a dict of features: SparseTensor values reach `call` untouched."""

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(inputs, dict) or not any(is_sparse(value) for value in inputs.values()):
            return super().__call__(inputs, *args, **kwargs)
        sparse = {key: as_sparse(value) for key, value in inputs.items() if is_sparse(value)}
        dense = {key: value for key, value in inputs.items() if not is_sparse(value)}
        object.__setattr__(self, "_sparse_features", sparse)
        try:
            return super().__call__(dense, *args, **kwargs)
        finally:
            object.__setattr__(self, "_sparse_features", {})

    def with_sparse_features(self, features: dict) -> dict:
        """The features dict `call` received, with the SparseTensor features put back (in their original order)."""
        sparse = getattr(self, "_sparse_features", {})
        return {**features, **sparse} if sparse else features
