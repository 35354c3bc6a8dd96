"""Elements as TensorFlow's tf.data sees them: nests (tuples, namedtuples, dicts) of tensors, and their specs.

A dataset's `element_spec` is the nest of its element with a TensorSpec (or, for a nested dataset such as
`window`'s, a DatasetSpec) at each leaf. Flattening follows `tf.nest`: dict values in sorted key order.
Unlike `tf.nest` elsewhere, a Python *list* given to tf.data is one tensor (`from_tensor_slices([1, 2])` has
one int32 component), as TensorFlow decides.
"""

from __future__ import annotations

import collections
from typing import Any

from webflow.framework import dtypes
from webflow.framework.sparse_tensor_spec import SparseTensorSpec
from webflow.framework.tensor_shape import TensorShape
from webflow.runtime.function import TensorSpec


class DatasetSpec:
    """The spec of a component that is itself a dataset (a window): its element_spec; a scalar variant."""

    dtype = dtypes.variant
    shape = TensorShape([])

    def __init__(self, element_spec: Any):
        self.element_spec = element_spec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        return f"DatasetSpec({self.element_spec!r}, TensorShape([]))"


def is_nest(value: Any) -> bool:
    return isinstance(value, (tuple, dict))


def flatten(structure: Any) -> list:
    """The leaves of a nest, dict values in sorted key order."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, tuple):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack(structure: Any, leaves: list) -> Any:
    """`structure` with its leaves replaced, in order, by `leaves`."""
    iterator = iter(leaves)

    def build(item: Any) -> Any:
        if isinstance(item, dict):
            built = {key: build(item[key]) for key in sorted(item)}
            pairs = [(key, built[key]) for key in item]  # in the item's own key order
            return collections.OrderedDict(pairs) if isinstance(item, collections.OrderedDict) else dict(pairs)
        if isinstance(item, tuple):
            parts = [build(part) for part in item]
            return type(item)(*parts) if hasattr(item, "_fields") else tuple(parts)
        return next(iterator)

    return build(structure)


def map_structure(function: Any, structure: Any) -> Any:
    return pack(structure, [function(leaf) for leaf in flatten(structure)])


def paths(structure: Any, prefix: str = "") -> list:
    """A readable name per leaf, for error messages: `[0]`, `['label']`, `[1]['image']` ..."""
    if isinstance(structure, dict):
        return [p for key in sorted(structure) for p in paths(structure[key], f"{prefix}[{key!r}]")]
    if isinstance(structure, tuple):
        return [p for i, item in enumerate(structure) for p in paths(item, f"{prefix}[{i}]")]
    return [prefix or "the element"]


def spec_of(tensor: Any) -> Any:
    """The spec of one component tensor (a DatasetSpec for a dataset's variant tensor, when known)."""
    element_spec = getattr(tensor, "_dataset_element_spec", None)
    if element_spec is not None:
        return DatasetSpec(element_spec)
    if hasattr(tensor, "dense_shape"):  # a SparseTensor: one variant component
        return SparseTensorSpec(tensor.shape, tensor.dtype.base_dtype)
    return TensorSpec(tensor.shape, tensor.dtype.base_dtype)


def component_types(spec: Any) -> list:
    """The dtypes of the tensors the dataset ops move: a SparseTensor is one variant (ops/dataset_sparse.py)."""
    return [dtypes.variant if isinstance(leaf, SparseTensorSpec) else leaf.dtype for leaf in flatten(spec)]


def component_shapes(spec: Any) -> list:
    return [TensorShape([]) if isinstance(leaf, SparseTensorSpec) else leaf.shape for leaf in flatten(spec)]


def legacy_types(spec: Any) -> Any:
    """TF1's `output_types`: the nest with each leaf's dtype (a DatasetSpec's nested types for a dataset)."""
    return map_structure(lambda s: legacy_types(s.element_spec) if isinstance(s, DatasetSpec) else s.dtype, spec)


def legacy_shapes(spec: Any) -> Any:
    return map_structure(lambda s: legacy_shapes(s.element_spec) if isinstance(s, DatasetSpec) else s.shape, spec)


def legacy_classes(spec: Any) -> Any:
    from webflow.framework.tensor import Tensor

    def leaf_class(s: Any) -> Any:
        if isinstance(s, SparseTensorSpec):
            return s.value_type
        return DatasetSpec if isinstance(s, DatasetSpec) else Tensor

    return map_structure(leaf_class, spec)


def describe_types(spec: Any) -> str:
    """`(tf.int32, tf.float32)`-style text of a nest's dtypes, as TensorFlow's messages show them."""
    return repr(map_structure(lambda s: _DtypeText(s.dtype), spec))


class _DtypeText:
    def __init__(self, dtype: Any):
        self.dtype = dtype

    def __repr__(self) -> str:
        return f"tf.{self.dtype.name}"


def spec_from_legacy(types: Any, shapes: Any = None, classes: Any = None) -> Any:
    """An element_spec from TF1's output_types / output_shapes / output_classes nests (shapes None: unknown;
    a leaf whose class is SparseTensor gets a SparseTensorSpec)."""
    type_leaves = flatten(types)
    shape_leaves = [None] * len(type_leaves) if shapes is None else flatten_up_to(types, shapes)
    class_leaves = [None] * len(type_leaves) if classes is None else flatten_up_to(types, classes)
    leaves = [_legacy_leaf(TensorShape(shape) if shape is not None else TensorShape(None), dtypes.as_dtype(dtype),
                           leaf_class) for dtype, shape, leaf_class in zip(type_leaves, shape_leaves, class_leaves)]
    return pack(types, leaves)


def _legacy_leaf(shape: TensorShape, dtype: Any, leaf_class: Any) -> Any:
    if isinstance(leaf_class, type) and leaf_class.__name__ == "SparseTensor":
        return SparseTensorSpec(shape, dtype)
    return TensorSpec(shape, dtype)


def flatten_up_to(structure: Any, values: Any) -> list:
    """`values` flattened only as deep as `structure` goes (a shape list stays one leaf)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten_up_to(structure[key], values[key])]
    if isinstance(structure, tuple):
        return [leaf for s, v in zip(structure, values) for leaf in flatten_up_to(s, v)]
    return [values]


def same_structure(first: Any, second: Any) -> bool:
    return skeleton(first) == skeleton(second)


def skeleton(structure: Any) -> Any:
    if isinstance(structure, dict):
        return ("dict", tuple((key, skeleton(structure[key])) for key in sorted(structure)))
    if isinstance(structure, tuple):
        return ("tuple", tuple(skeleton(item) for item in structure))
    return "."


__all__ = ["TensorSpec", "DatasetSpec", "SparseTensorSpec", "flatten", "pack", "map_structure", "paths", "spec_of",
           "component_types", "component_shapes", "legacy_types", "legacy_shapes", "legacy_classes", "spec_from_legacy",
           "same_structure", "describe_types", "flatten_up_to"]
