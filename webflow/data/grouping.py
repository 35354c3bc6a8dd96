"""batch, padded_batch, unbatch and window: the element_spec rules TensorFlow applies, and their ops."""

from __future__ import annotations

from typing import Any

from webflow.data import structure
from webflow.data.building import make_dataset
from webflow.framework import dtypes
from webflow.framework.tensor import EagerTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import constant_value, convert_to_tensor


def _static_int(tensor: Any) -> int | None:
    if isinstance(tensor, EagerTensor):
        return int(tensor.numpy())
    value = constant_value(tensor)
    return None if value is None else int(value)


def _tensor_leaves(dataset: Any, transformation: str) -> list:
    leaves = structure.flatten(dataset.element_spec)
    for leaf in leaves:
        if isinstance(leaf, structure.DatasetSpec):
            raise TypeError(f"`{transformation}` is not supported for datasets whose elements contain datasets.")
    return leaves


def _batched(spec: Any, size: int | None) -> Any:
    spec_type = type(spec)  # a TensorSpec or a SparseTensorSpec (batched as one SparseTensor, as TensorFlow)
    if spec.shape.rank is None:
        return spec_type(TensorShape(None), spec.dtype)
    return spec_type([size] + spec.shape.as_list(), spec.dtype)


def batch(dataset: Any, batch_size: Any, drop_remainder: Any, name: str | None) -> Any:
    size = convert_to_tensor(batch_size, dtype=dtypes.int64, name="batch_size")
    drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
    known = _static_int(size) if _static_int(drop) else None
    spec = structure.pack(dataset.element_spec, [_batched(s, known) for s in _tensor_leaves(dataset, "batch")])
    return make_dataset("BatchDatasetV2", [dataset._variant_tensor, size, drop], {"parallel_copy": False}, spec,
                        name, "_BatchDataset")


def _padded_shape(given: Any, spec: Any, index: int) -> list:
    if given is None:
        if spec.shape.rank is None:
            raise ValueError(f"You must provide `padded_shapes` argument because component {index} has unknown rank.")
        return [-1 if d is None else d for d in spec.shape.as_list()]
    dims = given.as_list() if isinstance(given, TensorShape) else list(given)
    dims = [-1 if d is None else int(d) for d in dims]
    if spec.shape.rank is not None and len(dims) != spec.shape.rank:
        raise ValueError(f"The padded shape {dims} is not compatible with the shape {spec.shape} of the "
                         f"corresponding input component.")
    return dims


def _padding_value(given: Any, spec: Any) -> Any:
    if given is None:
        given = b"" if spec.dtype == dtypes.string else 0
    return convert_to_tensor(given, dtype=spec.dtype, name="padding_value")


def padded_batch(dataset: Any, batch_size: Any, padded_shapes: Any, padding_values: Any, drop_remainder: Any,
                 name: str | None) -> Any:
    leaves = _tensor_leaves(dataset, "padded_batch")
    for leaf in leaves:
        if isinstance(leaf, structure.SparseTensorSpec):
            raise TypeError("`padded_batch` is only supported for datasets that produce tensor elements but type "
                            "spec of elements in the input dataset is not a subclass of TensorSpec: "
                            f"`{leaf!r}`.")
    element = dataset.element_spec
    shapes_given = [None] * len(leaves) if padded_shapes is None else structure.flatten_up_to(element, padded_shapes)
    values_given = [None] * len(leaves) if padding_values is None else \
        structure.flatten_up_to(element, padding_values) if structure.is_nest(element) else [padding_values]
    shapes = [_padded_shape(g, s, i) for i, (g, s) in enumerate(zip(shapes_given, leaves))]
    size = convert_to_tensor(batch_size, dtype=dtypes.int64, name="batch_size")
    drop = convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")
    shape_tensors = [convert_to_tensor(s, dtype=dtypes.int64, name="padded_shapes") for s in shapes]
    value_tensors = [_padding_value(v, s) for v, s in zip(values_given, leaves)]
    known = _static_int(size) if _static_int(drop) else None
    specs = [structure.TensorSpec([known] + [None if d < 0 else d for d in dims], s.dtype)
             for dims, s in zip(shapes, leaves)]
    return make_dataset("PaddedBatchDatasetV2", [dataset._variant_tensor, size] + shape_tensors + value_tensors +
                        [drop], {"N": len(leaves)}, structure.pack(element, specs), name,
                        "_PaddedBatchDataset")


def unbatch(dataset: Any, name: str | None) -> Any:
    specs = []
    for spec in _tensor_leaves(dataset, "unbatch"):
        if spec.shape.rank == 0:
            raise ValueError("Cannot unbatch an input with scalar components.")
        shape = spec.shape[1:] if spec.shape.rank is not None else TensorShape(None)
        specs.append(type(spec)(shape, spec.dtype))
    return make_dataset("UnbatchDataset", [dataset._variant_tensor], {},
                        structure.pack(dataset.element_spec, specs), name, "_UnbatchDataset")


def window(dataset: Any, size: Any, shift: Any, stride: Any, drop_remainder: Any, name: str | None) -> Any:
    inputs = [dataset._variant_tensor, convert_to_tensor(size, dtype=dtypes.int64, name="size"),
              convert_to_tensor(size if shift is None else shift, dtype=dtypes.int64, name="shift"),
              convert_to_tensor(stride, dtype=dtypes.int64, name="stride"),
              convert_to_tensor(drop_remainder, dtype=dtypes.bool, name="drop_remainder")]
    specs = [structure.DatasetSpec(s) for s in _tensor_leaves(dataset, "window")]
    return make_dataset("WindowDataset", inputs, {}, structure.pack(dataset.element_spec, specs), name,
                        "_WindowDataset")


__all__ = ["batch", "padded_batch", "unbatch", "window"]
