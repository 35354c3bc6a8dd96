"""Adding a dataset op and wrapping its variant tensor as a Dataset: what every source and transformation does.

The Dataset class (dataset.py) installs itself here on import, so the modules that build datasets
(sources.py, grouping.py, readers.py, tracing.py, iterators.py) need not import it: it imports them.
"""

from __future__ import annotations

from typing import Any

from webflow.data import structure
from webflow.ops import (
    dataset_ops,  # noqa: F401 - registers the dataset ops
    iterator_ops,  # noqa: F401 - registers the iterator ops
)
from webflow.ops.dataset_values import INFINITE, UNKNOWN
from webflow.ops.registry import apply_op

AUTOTUNE = -1
INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN

_dataset_class: Any = None


def install_dataset_class(cls: type) -> None:
    """Called by dataset.py on import with DatasetV2."""
    global _dataset_class
    _dataset_class = cls


def as_dataset(variant: Any, element_spec: Any, kind: str | None = None) -> Any:
    """A Dataset object for a variant tensor whose elements are `element_spec`."""
    dataset = _dataset_class(variant, element_spec)
    if kind is not None:
        dataset._kind = kind
    return dataset


def is_dataset(value: Any) -> bool:
    return _dataset_class is not None and isinstance(value, _dataset_class)


def make_dataset(op_type: str, inputs: list, attrs: dict, element_spec: Any, name: str | None, kind: str,
                 types_attr: str | None = "output_types") -> Any:
    """Adds (or runs) dataset op `op_type` with the element attrs TensorFlow gives it (the file readers, whose
    elements are always scalar strings, have none: types_attr None)."""
    if types_attr is not None:
        attrs = dict(attrs, **{types_attr: structure.component_types(element_spec),
                               "output_shapes": structure.component_shapes(element_spec)})
    return as_dataset(apply_op(op_type, inputs, attrs, name=name), element_spec, kind)


class Options:
    """`tf.data.Options`: accepted and kept; they tune TensorFlow's runtime, not what a pipeline yields."""

    def __init__(self) -> None:
        self.deterministic = None
        self.experimental_deterministic = None

    def merge(self, options: Any) -> Options:
        return self


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "install_dataset_class", "as_dataset",
           "is_dataset", "make_dataset", "Options"]
