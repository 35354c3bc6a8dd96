"""The feature configurations of `tf.io.parse_example` and friends, as TensorFlow's parsing_config.py defines them:
namedtuples a learner builds (`FixedLenFeature([784], tf.float32)`) and the split of a features dict into the
sorted sparse and dense keys, types, shapes and defaults that ParseExampleV2 / ParseSequenceExampleV2 take.
"""

from __future__ import annotations

import collections
from typing import Any

from webflow.framework import dtypes
from webflow.framework.tensor_shape import TensorShape

_PARSEABLE = (dtypes.float32, dtypes.int64, dtypes.string)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length per example, parsed into a SparseTensor."""


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of a fixed `shape` per example (a dense tensor); `default_value` when an example lacks it."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Rows of a fixed `shape`, any number per example: a dense [batch, rows, *shape] tensor, padded with
    `default_value` (in parse_example, `allow_missing` must be True)."""

    def __new__(cls, shape: Any, dtype: Any, allow_missing: bool = False,
                default_value: Any = None) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class ParseSpec:
    """A features dict split as the parsing ops take it: sparse (VarLen) and dense (FixedLen*) keys, sorted."""

    def __init__(self, features: dict):
        if not features:
            raise ValueError("Argument `features` cannot be None.")
        self.sparse_keys: list = []
        self.sparse_types: list = []
        self.dense_keys: list = []
        self.dense_types: list = []
        self.dense_shapes: list = []  # TensorShapes; a FixedLenSequenceFeature's has an unknown first dimension
        self.dense_defaults: list = []  # the default value, or None
        self.dense_sequence: list = []  # True for a FixedLenSequenceFeature
        for key in sorted(features):
            self._add(key, features[key])

    def _add(self, key: str, feature: Any) -> None:
        if not isinstance(key, str):
            raise ValueError(f"Unsupported feature key type: {key!r}")
        if isinstance(feature, VarLenFeature):
            self.sparse_keys.append(key)
            self.sparse_types.append(_dtype(feature.dtype, key))
            return
        if not isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"Unsupported {type(feature).__name__} {feature}.")
        shape = TensorShape(feature.shape)
        if not shape.is_fully_defined():
            raise ValueError(f"All dimensions of shape for feature {key} need to be known but received "
                             f"{feature.shape!s}.")
        sequence = isinstance(feature, FixedLenSequenceFeature)
        self.dense_keys.append(key)
        self.dense_types.append(_dtype(feature.dtype, key))
        self.dense_shapes.append(TensorShape([None] + shape.as_list()) if sequence else shape)
        self.dense_defaults.append(feature.default_value)
        self.dense_sequence.append(sequence)

    def require_allow_missing(self, features: dict) -> None:
        """parse_example's rule: a FixedLenSequenceFeature must allow missing values."""
        for key in sorted(features):
            feature = features[key]
            if isinstance(feature, FixedLenSequenceFeature) and not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")


def _dtype(dtype: Any, key: str) -> Any:
    dtype = dtypes.as_dtype(dtype)
    if dtype not in _PARSEABLE:
        raise ValueError(f"Unsupported dtype {dtype.name} for feature {key}: parsing supports float32, int64 "
                         f"and string.")
    return dtype
