"""Where datasets start: from_tensor_slices, from_tensors, from_generator, range, zip, list_files."""

from __future__ import annotations

import glob
from collections.abc import Callable
from typing import Any

from webflow.data import sparse_elements, structure
from webflow.data.building import make_dataset
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import dataset_elements, dataset_sparse
from webflow.ops.convert import convert_to_tensor
from webflow.ops.registry import op_scope


def normalize_element(element: Any) -> Any:
    """The element as a nest of tensors: tuples and dicts are structure, anything else one tensor."""
    counter = iter(range(1 << 30))

    def convert(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: convert(value[key]) for key in value}
        if isinstance(value, tuple):
            parts = [convert(item) for item in value]
            return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
        if hasattr(value, "_variant_tensor"):
            return value
        if sparse_elements.is_sparse(value):
            return sparse_elements.as_sparse_tensor(value)
        return convert_to_tensor(value, name=f"component_{next(counter)}")

    return convert(element)


def tensor_slices(tensors: Any, name: str | None = None) -> Any:
    """Dataset.from_tensor_slices: slices of every component along its first dimension."""
    with op_scope("normalize_element"):  # (TensorFlow's structure.normalize_element scope)
        element = normalize_element(tensors)
    leaves = structure.flatten(element)
    specs = []
    for leaf in leaves:
        shape = leaf.shape
        if shape.rank == 0:
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        spec_type = structure.SparseTensorSpec if sparse_elements.is_sparse(leaf) else structure.TensorSpec
        specs.append(spec_type(shape[1:] if shape.rank is not None else TensorShape(None), leaf.dtype.base_dtype))
    _check_leading_dims(leaves)
    spec = structure.pack(element, specs)
    return make_dataset("TensorSliceDataset", _components(leaves), {}, spec, name, "_TensorSliceDataset",
                        types_attr="Toutput_types")


def _components(leaves: list) -> list:
    """The tensors the dataset op takes: a SparseTensor leaf as its one variant (ops/dataset_sparse.py)."""
    return [sparse_elements.to_component(leaf) if sparse_elements.is_sparse(leaf) else leaf for leaf in leaves]


def _check_leading_dims(leaves: list) -> None:
    known = [leaf.shape[0] for leaf in leaves if leaf.shape.rank and leaf.shape[0] is not None]
    for size in known[1:]:
        if size != known[0]:
            raise ValueError(f"Dimensions {known[0]} and {size} are not compatible")


def tensors(tensors: Any, name: str | None = None) -> Any:
    """Dataset.from_tensors: one element, the whole structure."""
    with op_scope("normalize_element"):
        element = normalize_element(tensors)
    spec = structure.map_structure(structure.spec_of, element)
    return make_dataset("TensorDataset", _components(structure.flatten(element)), {}, spec, name, "_TensorDataset",
                        types_attr="Toutput_types")


def range_dataset(*args: Any, output_type: Any = dtypes.int64, name: str | None = None) -> Any:
    """Dataset.range([start,] stop[, step]): as Python's range, elements of `output_type` (int64)."""
    if not 1 <= len(args) <= 3:
        raise ValueError("Invalid arguments to RangeDataset: " + str(args))
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    # Consts "start", "stop", "step" in the current scope, as TensorFlow's RangeDataset makes them
    inputs = [convert_to_tensor(v, dtype=dtypes.int64, name=n) for v, n in ((start, "start"), (stop, "stop"),
                                                                             (step, "step"))]
    spec = structure.TensorSpec([], dtypes.as_dtype(output_type))
    return make_dataset("RangeDataset", inputs, {}, spec, name, "_RangeDataset")


def zip_datasets(datasets: Any, name: str | None = None) -> Any:
    """Dataset.zip: elements side by side, nested as `datasets` is; ends with the shortest."""
    if not structure.is_nest(datasets):
        raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                        f"objects but encountered object of type {type(datasets)}.")
    flat = structure.flatten(datasets)
    for item in flat:
        if not hasattr(item, "_variant_tensor"):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            f"`tf.data.Dataset` objects but encountered object of type {type(item)}.")
    spec = structure.pack(datasets, [d.element_spec for d in flat])
    return make_dataset("ZipDataset", [d._variant_tensor for d in flat], {"N": len(flat)}, spec, name,
                        "_ZipDataset")


def list_files(file_pattern: Any, shuffle: bool | None = None, seed: int | None = None,
               name: str | None = None) -> Any:
    """Dataset.list_files: the files matching the pattern(s), sorted, then shuffled unless shuffle=False.

    The patterns are matched when the dataset is built (TensorFlow's MatchingFiles op matches them when the
    iterator starts); they must be Python strings here."""
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    patterns = [p.decode() if isinstance(p, bytes) else p for p in patterns]
    if not all(isinstance(p, str) for p in patterns):
        raise TypeError("list_files needs Python string patterns here (TensorFlow also accepts string tensors)")
    files = sorted({path for pattern in patterns for path in glob.glob(pattern)})
    if not files:
        raise InvalidArgumentError(None, None, f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. "
                                   f"Summarized data: b'No files matched pattern: {', '.join(patterns)}'")
    dataset = tensor_slices(convert_to_tensor(dataset_elements.string_array(files, (len(files),))))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(files), seed=seed)
    return dataset


# --- from_generator -----------------------------------------------------------------------------------------------
def from_generator(generator: Callable, output_types: Any = None, output_shapes: Any = None, args: Any = None,
                   output_signature: Any = None, name: str | None = None) -> Any:
    """Dataset.from_generator: elements from `generator(*args)`, checked against the declared types/shapes."""
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("The `output_types` and `output_shapes` arguments cannot be used together with the "
                            "`output_signature` argument.")
        spec = output_signature
    else:
        if output_types is None:
            raise TypeError("To specify the output signature you need to provide either the `output_signature` "
                            "argument or the `output_types` argument.")
        spec = structure.spec_from_legacy(output_types, output_shapes)
    with op_scope("args"):
        arguments = [convert_to_tensor(a) for a in (args or ())]
    attrs = {"generator": _ArgumentsAsPython(generator), "convert": ElementConverter(spec)}
    return make_dataset("GeneratorDataset", arguments, attrs, spec, name, "_GeneratorDataset")


class _ArgumentsAsPython:
    """Calls the generator with its args as NumPy values (bytes for strings), as TensorFlow passes them."""

    def __init__(self, generator: Callable):
        self.generator = generator

    def __call__(self, *args: Any) -> Any:
        return self.generator(*[a[()] if getattr(a, "ndim", 1) == 0 else a for a in args])


class ElementConverter:
    """Turns one yielded item into the flat list of arrays the spec declares, with TensorFlow's messages."""

    def __init__(self, spec: Any):
        self.spec = spec
        self.leaves = structure.flatten(spec)

    def __call__(self, item: Any) -> list:
        try:
            values = structure.flatten_up_to(self.spec, _as_nest_like(self.spec, item))
        except (TypeError, KeyError, IndexError, ValueError):
            raise InvalidArgumentError(None, None, "TypeError: `generator` yielded an element that did not match "
                                       f"the expected structure. The expected structure was "
                                       f"{structure.describe_types(self.spec)}, but the yielded element was "
                                       f"{item!r}.") from None
        return [self._convert(value, leaf) for value, leaf in zip(values, self.leaves)]

    def _convert(self, value: Any, leaf: Any) -> Any:
        if isinstance(leaf, structure.SparseTensorSpec):
            return _sparse_value(value, leaf)
        try:
            array = dataset_elements.as_value(value, leaf.dtype)
        except (TypeError, ValueError, OverflowError):
            raise InvalidArgumentError(None, None, "TypeError: `generator` yielded an element that could not be "
                                       f"converted to the expected type. The expected type was {leaf.dtype.name}, "
                                       f"but the yielded element was {value!r}.") from None
        shape = tuple(getattr(array, "shape", ()))
        if not leaf.shape.is_compatible_with(shape):
            raise InvalidArgumentError(None, None, f"`generator` yielded an element of shape {_shape_text(shape)} "
                                       f"where an element of shape {_shape_text(leaf.shape)} was expected.")
        return array


def _sparse_value(value: Any, leaf: Any) -> Any:
    """A yielded SparseTensor / SparseTensorValue as the one variant component that carries it."""
    if not hasattr(value, "dense_shape"):
        raise InvalidArgumentError(None, None, "TypeError: `generator` yielded an element that could not be "
                                   f"converted to the expected type. The expected type was {leaf!r}, but the "
                                   f"yielded element was {value!r}.")
    parts = [part.numpy() if hasattr(part, "numpy") else part for part in
             (value.indices, value.values, value.dense_shape)]
    return dataset_sparse.SparseValue.from_arrays(dataset_elements.as_value(parts[0], dtypes.int64),
                                                  dataset_elements.as_value(parts[1], leaf.dtype),
                                                  dataset_elements.as_value(parts[2], dtypes.int64))


def _shape_text(shape: Any) -> str:
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return "(" + ", ".join("None" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _as_nest_like(spec: Any, item: Any) -> Any:
    """A yielded list where the spec has a tuple is accepted as that tuple (TensorFlow does the same)."""
    if isinstance(spec, tuple):
        if not isinstance(item, (tuple, list)) or len(item) != len(spec):
            raise TypeError("structure")
        return tuple(_as_nest_like(s, i) for s, i in zip(spec, item))
    if isinstance(spec, dict):
        if not isinstance(item, dict) or set(item) != set(spec):
            raise TypeError("structure")
        return {key: _as_nest_like(spec[key], item[key]) for key in spec}
    return item


__all__ = ["tensor_slices", "tensors", "range_dataset", "zip_datasets", "list_files", "from_generator",
           "normalize_element", "ElementConverter"]
