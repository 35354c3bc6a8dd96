"""`tf.compat.v1.data`: TF1's Dataset (with make_one_shot_iterator / make_initializable_iterator and
output_types / output_shapes / output_classes), its iterators and the get_output_* functions.

TF1's Dataset is TF2's with those additions; every method returns a TF1 Dataset again (TensorFlow's
DatasetV1Adapter), so a chain of transformations keeps them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from webflow.data import experimental, readers, structure
from webflow.data.building import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from webflow.data.dataset import DatasetV2
from webflow.data.iterators import Iterator
from webflow.data.structure import DatasetSpec, TensorSpec

_TRANSFORMATIONS = ("map", "filter", "flat_map", "interleave", "apply", "enumerate", "repeat", "take", "skip",
                    "concatenate", "shard", "batch", "padded_batch", "unbatch", "window", "shuffle", "prefetch",
                    "cache", "with_options")
_SOURCES = ("from_tensor_slices", "from_tensors", "from_generator", "range", "zip", "list_files")


def as_v1(dataset: Any) -> DatasetV1:
    if isinstance(dataset, DatasetV1) or not isinstance(dataset, DatasetV2):
        return dataset
    adapted = DatasetV1(dataset._variant_tensor, dataset.element_spec)
    adapted._kind = "DatasetV1Adapter"
    return adapted


class DatasetV1(DatasetV2):
    """TF1's `tf.data.Dataset`."""

    def make_one_shot_iterator(self) -> Iterator:
        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name: str | None = None) -> Iterator:
        return Iterator.from_dataset(self, shared_name)

    @property
    def output_types(self) -> Any:
        return structure.legacy_types(self.element_spec)

    @property
    def output_shapes(self) -> Any:
        return structure.legacy_shapes(self.element_spec)

    @property
    def output_classes(self) -> Any:
        return structure.legacy_classes(self.element_spec)


def _v1_method(name: str) -> Callable:
    v2 = getattr(DatasetV2, name)

    def method(self: DatasetV1, *args: Any, **kwargs: Any) -> Any:
        return as_v1(v2(self, *args, **kwargs))

    method.__name__, method.__doc__ = name, v2.__doc__
    return method


def _v1_source(name: str) -> Callable:
    v2 = getattr(DatasetV2, name)

    def source(*args: Any, **kwargs: Any) -> Any:
        return as_v1(v2(*args, **kwargs))

    source.__name__, source.__doc__ = name, v2.__doc__
    return staticmethod(source)


for _name in _TRANSFORMATIONS:
    setattr(DatasetV1, _name, _v1_method(_name))
for _name in _SOURCES:
    setattr(DatasetV1, _name, _v1_source(_name))

Dataset = DatasetV1


class TFRecordDataset(readers.TFRecordDataset, DatasetV1):
    _kind = "TFRecordDatasetV1"


class TextLineDataset(readers.TextLineDataset, DatasetV1):
    _kind = "TextLineDatasetV1"


class FixedLengthRecordDataset(readers.FixedLengthRecordDataset, DatasetV1):
    _kind = "FixedLengthRecordDatasetV1"


def make_one_shot_iterator(dataset: Any) -> Iterator:
    """`tf.compat.v1.data.make_one_shot_iterator(dataset)`."""
    return Iterator.one_shot(dataset)


def make_initializable_iterator(dataset: Any, shared_name: str | None = None) -> Iterator:
    """`tf.compat.v1.data.make_initializable_iterator(dataset)`: run `.initializer` before `get_next()`."""
    return Iterator.from_dataset(dataset, shared_name)


def get_output_types(dataset_or_iterator: Any) -> Any:
    return structure.legacy_types(dataset_or_iterator.element_spec)


def get_output_shapes(dataset_or_iterator: Any) -> Any:
    return structure.legacy_shapes(dataset_or_iterator.element_spec)


def get_output_classes(dataset_or_iterator: Any) -> Any:
    return structure.legacy_classes(dataset_or_iterator.element_spec)


__all__ = ["Dataset", "DatasetV1", "DatasetSpec", "TensorSpec", "Iterator", "TFRecordDataset", "TextLineDataset",
           "FixedLengthRecordDataset", "make_one_shot_iterator", "make_initializable_iterator", "get_output_types",
           "get_output_shapes", "get_output_classes", "experimental", "AUTOTUNE", "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY"]
