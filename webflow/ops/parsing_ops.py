"""Parsing `tf.train.Example` records: the ParseExampleV2 op and `tf.io.parse_example` / `parse_single_example`.

`parse_example(serialized, {"image": FixedLenFeature([784], tf.float32), "label": FixedLenFeature([], tf.int64)})`
builds one ParseExampleV2 op, as TensorFlow 2.21 does, under the name scope "ParseExample" (parse_single_example
under "ParseSingleExample/ParseExample"): its inputs are the records, the example names, the sorted sparse (VarLen),
dense (FixedLen*) and ragged keys, and one default per dense key; it returns a dict with a SparseTensor per
VarLenFeature and a dense tensor per FixedLen(Sequence)Feature.

The kernel: a batch whose records fall into a few byte layouts is parsed column-wise with NumPy
(backends/numpy/example_batch.py; benchmarks/parse_example.py measures it on MNIST next to TensorFlow); any other
input record by record (ops/example_parsing.py, which also holds TensorFlow's error messages). No gradient
(TensorFlow registers none: LookupError if differentiated).
SequenceExamples: ops/sequence_parsing_ops.py.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.flat_arrays import from_flat
from webflow.backends.numpy import example_batch
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError, ShapeError
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import example_parsing
from webflow.ops.array_ops import reshape
from webflow.ops.constants import constant
from webflow.ops.convert import convert_to_tensor, is_tensor_like
from webflow.ops.example_parsing import DenseSpec, shape_list
from webflow.ops.functional_ops import kernel_result
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, ParseSpec, VarLenFeature
from webflow.ops.registry import apply_op, op_scope, output_spec, register_op


def string_input(value: Any) -> Any:
    """`value` (records as Python bytes / str, nested lists of them, or a tensor) as a string tensor or array,
    keeping every byte: NumPy's fixed-width bytes type would drop a record's trailing zero bytes."""
    if is_tensor_like(value) or backend_values.is_array(value):
        return value
    flat, shape = _flatten_strings(value)
    return from_flat([v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in flat], shape, dtypes.string)


def _flatten_strings(value: Any) -> tuple[list, list]:
    if isinstance(value, (list, tuple)):
        parts = [_flatten_strings(v) for v in value]
        inner = parts[0][1] if parts else []
        return [v for flat, _ in parts for v in flat], [len(parts)] + inner
    return [value], []


def _records(serialized: Any) -> tuple[list, bool]:
    """(records as bytes, batched?): a vector of records or one scalar record."""
    shape = tuple(serialized.shape)
    if len(shape) > 1:
        raise InvalidArgumentError(None, None, f"Expected serialized to be a scalar or vector, got shape: "
                                               f"[{','.join(str(d) for d in shape)}]")
    batched = len(shape) == 1
    flat = backend_values.flat_list(serialized)
    return [bytes(r) for r in flat], batched


def _dense_specs(dense_keys: Any, dense_defaults: tuple, Tdense: list, dense_shapes: list) -> list:  # noqa: N803
    keys = backend_values.flat_list(dense_keys)
    return [DenseSpec(bytes(k), t, shape_list(s), backend_values.flat_list(d))
            for k, t, s, d in zip(keys, Tdense, dense_shapes, dense_defaults)]


# --- ParseExampleV2 ---------------------------------------------------------------------------------------------
def _parse_example_shape(inputs: list, attrs: dict) -> list:
    """Sparse: indices [?, rank+1], values [?], dense_shape [rank+1]; dense: [batch] + shape ([batch, ?, ...] for a
    FixedLenSequenceFeature); rank is 0 for one scalar record, 1 for a vector of them."""
    serialized = inputs[0].shape
    if serialized.rank is not None and serialized.rank > 1:
        raise ShapeError(f"Shape must be at most rank 1 but is rank {serialized.rank}")
    batch = [] if serialized.rank == 0 else [serialized.as_list()[0] if serialized.rank else None]
    rank = len(batch) + 1
    count, types = attrs["num_sparse"], attrs["sparse_types"]
    specs = [output_spec([None, rank], dtypes.int64) for _ in range(count)]
    specs += [output_spec([None], t) for t in types]
    specs += [output_spec([rank], dtypes.int64) for _ in range(count)]
    for dtype, shape in zip(attrs["Tdense"], attrs["dense_shapes"]):
        specs.append(output_spec(TensorShape(batch + shape_list(shape)), dtype))
    return specs


def _parse_general(serialized: Any, names: Any, sparse_keys: Any, dense_keys: Any, dense_defaults: tuple,
                   attrs: dict) -> Any:
    """Record by record (ops/example_parsing.py), outputs on this process's storage (NumPy or CArrays)."""
    records, batched = _records(serialized)
    sparse = list(zip([bytes(k) for k in backend_values.flat_list(sparse_keys)], attrs["sparse_types"]))
    dense = _dense_specs(dense_keys, dense_defaults, attrs["Tdense"], attrs["dense_shapes"])
    names = [bytes(n) for n in backend_values.flat_list(names)]
    sparse_out, dense_out = example_parsing.parse_examples(records, names, batched, sparse, dense)
    return kernel_result(example_parsing.flatten_outputs(sparse_out, dense_out, from_flat))


def _parse_by_layout(records: list, sparse: list, dense: list) -> list | None:
    """The outputs for a batch whose records fall into a few byte layouts (None otherwise, e.g. JPEGs of every
    size): the first record of each layout is checked with the record-by-record rules, in batch order (so the
    error is TensorFlow's, naming the first bad record), then each layout's records are read column-wise."""
    groups: dict = {}
    for i, record in enumerate(records):
        groups.setdefault(len(record), []).append(i)
    if len(groups) > max(2, len(records) // 16):
        return None
    parts = []
    for positions in groups.values():
        layout = example_batch.layout([records[i] for i in positions])
        if layout is None:
            return None
        parts.append((positions, layout))
    for positions, _ in sorted(parts, key=lambda part: part[0][0]):
        example_parsing.parse_examples([records[positions[0]]], [], True, sparse, dense, assemble=False,
                                       first_index=positions[0])
    if len(parts) == 1:
        return example_batch.outputs(parts[0][1], sparse, dense)
    return example_batch.merged([(p, example_batch.outputs(layout, sparse, dense)) for p, layout in parts],
                                len(records), len(sparse), dense)


def parse_example_v2_portable(serialized: Any, names: Any, sparse_keys: Any, dense_keys: Any, ragged_keys: Any,
                              *dense_defaults: Any, **attrs: Any) -> Any:
    """ParseExampleV2 without NumPy: record by record, on CArrays."""
    return _parse_general(serialized, names, sparse_keys, dense_keys, dense_defaults, attrs)


@register_op("ParseExampleV2", "ParseExampleV2",
             inputs=("serialized", "names", "sparse_keys", "dense_keys", "ragged_keys", "*dense_defaults"),
             shape=_parse_example_shape, portable=parse_example_v2_portable)
def parse_example_v2_kernel(serialized: Any, names: Any, sparse_keys: Any, dense_keys: Any, ragged_keys: Any,
                            *dense_defaults: Any, **attrs: Any) -> Any:
    """Reads the features named by the keys out of each serialized Example: VarLenFeatures as (indices, values,
    dense_shape), FixedLenFeatures as dense [batch, *shape] arrays (a missing feature takes its default)."""
    records, batched = _records(serialized)
    if batched and len(records) > 1 and not backend_values.flat_list(names):
        sparse = list(zip([bytes(k) for k in backend_values.flat_list(sparse_keys)], attrs["sparse_types"]))
        dense = _dense_specs(dense_keys, dense_defaults, attrs["Tdense"], attrs["dense_shapes"])
        outputs = _parse_by_layout(records, sparse, dense)
        if outputs is not None:
            return kernel_result(outputs)
    return _parse_general(serialized, names, sparse_keys, dense_keys, dense_defaults, attrs)




def string_vector(items: list) -> Any:
    return backend_values.vector([k.encode("utf-8") if isinstance(k, str) else k for k in items], dtypes.string)


def dense_default_tensors(entries: list) -> list:
    """One default per dense (key, dtype, shape, default, is_sequence), as TensorFlow builds them: `key_<k>` reshaped
    to the feature's shape, a FixedLenSequenceFeature's `padding_<k>` reshaped to a scalar, or an empty `Const`."""
    tensors = []
    for key, dtype, shape, default, sequence in entries:
        if default is None:
            tensors.append(constant(0 if dtype != dtypes.string else b"", dtype=dtype) if sequence
                           else constant(backend_values.vector([], dtype), dtype=dtype))
        elif sequence:
            tensors.append(reshape(convert_to_tensor(default, dtype=dtype, name=f"padding_{key}"), []))
        else:
            tensors.append(reshape(convert_to_tensor(default, dtype=dtype, name=f"key_{key}"), shape.as_list()))
    return tensors


def _parse_example_raw(serialized: Any, spec: ParseSpec, names: Any) -> dict:
    defaults = dense_default_tensors(list(zip(spec.dense_keys, spec.dense_types, spec.dense_shapes,
                                              spec.dense_defaults, spec.dense_sequence)))
    attrs = {"Tdense": list(spec.dense_types), "num_sparse": len(spec.sparse_keys),
             "sparse_types": list(spec.sparse_types), "ragged_value_types": [], "ragged_split_types": [],
             "dense_shapes": list(spec.dense_shapes)}
    inputs = [string_input(serialized), string_vector(names or []), string_vector(spec.sparse_keys),
              string_vector(spec.dense_keys), string_vector([])] + defaults
    outputs = apply_op("ParseExampleV2", inputs, attrs)
    outputs = outputs if isinstance(outputs, list) else [outputs]
    count = len(spec.sparse_keys)
    result: dict = {}
    for i, key in enumerate(spec.sparse_keys):
        result[key] = SparseTensor(outputs[i], outputs[count + i], outputs[2 * count + i])
    for i, key in enumerate(spec.dense_keys):
        result[key] = outputs[3 * count + i]
    return result


def parse_example_v2(serialized: Any, features: dict, example_names: Any = None, name: str | None = None) -> dict:
    """TF2's `tf.io.parse_example`: a batch (vector) of serialized Examples -> dict of tensors / SparseTensors."""
    spec = ParseSpec(features)
    spec.require_allow_missing(features)
    with op_scope(name or "ParseExample"):
        return _parse_example_raw(serialized, spec, example_names)


def parse_example(serialized: Any, features: dict, name: str | None = None, example_names: Any = None) -> dict:
    """TF1's `tf.parse_example` (`tf.compat.v1.io.parse_example`): `name` before `example_names`."""
    return parse_example_v2(serialized, features, example_names, name)


def parse_single_example_v2(serialized: Any, features: dict, example_names: Any = None,
                            name: str | None = None) -> dict:
    """TF2's `tf.io.parse_single_example`: one scalar serialized Example; outputs lose the batch dimension."""
    with op_scope(name or "ParseSingleExample"):
        return parse_example_v2(serialized, features, example_names)


def parse_single_example(serialized: Any, features: dict, name: str | None = None, example_names: Any = None) -> dict:
    """TF1's `tf.parse_single_example`."""
    return parse_single_example_v2(serialized, features, example_names, name)


__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example", "parse_example_v2",
           "parse_single_example", "parse_single_example_v2"]
