"""Parsing `tf.train.SequenceExample` records: the ParseSequenceExampleV2 op, `tf.io.parse_single_sequence_example`
and `tf.io.parse_sequence_example` (batched), as TensorFlow 2.21 builds them (name scopes
"ParseSingleSequenceExample/ParseSequenceExample" and "ParseSequenceExample").

A SequenceExample has `context` features (one value list per key, as an Example) and `feature_lists` (per key, one
Feature per time step). Context: FixedLenFeature / VarLenFeature; sequence: FixedLenSequenceFeature (dense
[steps, *shape]; `allow_missing=True` puts the key in feature_list_dense_missing_assumed_empty) / VarLenFeature.
The checks and layouts are ops/sequence_parsing.py. No gradient (TensorFlow registers none: LookupError if
differentiated).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays import values as backend_values
from webflow.backends.arrays.flat_arrays import from_flat
from webflow.framework import dtypes
from webflow.framework.errors import ShapeError
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops import example_parsing, sequence_parsing
from webflow.ops.convert import is_tensor_like
from webflow.ops.example_parsing import DenseSpec, shape_list
from webflow.ops.functional_ops import kernel_result
from webflow.ops.parsing_config import FixedLenFeature, FixedLenSequenceFeature, VarLenFeature
from webflow.ops.parsing_ops import dense_default_tensors, string_input, string_vector
from webflow.ops.registry import apply_op, op_scope, output_spec, register_op


def _keys(keys: Any) -> list:
    return [bytes(k) for k in backend_values.flat_list(keys)]


def _sequence_shape(inputs: list, attrs: dict) -> list:
    serialized = inputs[0].shape
    if serialized.rank is not None and serialized.rank > 1:
        raise ShapeError(f"Shape must be at most rank 1 but is rank {serialized.rank}")
    batch = [] if serialized.rank == 0 else [serialized.as_list()[0] if serialized.rank else None]
    specs = _sparse_specs(attrs["Ncontext_sparse"], attrs["context_sparse_types"], len(batch) + 1)
    specs += [output_spec(TensorShape(batch + shape_list(s)), t)
              for t, s in zip(attrs["Tcontext_dense"], attrs["context_dense_shapes"])]
    specs += _sparse_specs(attrs["Nfeature_list_sparse"], attrs["feature_list_sparse_types"], len(batch) + 2)
    specs += [output_spec(TensorShape(batch + [None] + shape_list(s)), t)
              for t, s in zip(attrs["feature_list_dense_types"], attrs["feature_list_dense_shapes"])]
    return specs + [output_spec(batch, dtypes.int64) for _ in attrs["feature_list_dense_types"]]


def _sparse_specs(count: int, types: list, rank: int) -> list:
    return ([output_spec([None, rank], dtypes.int64) for _ in range(count)] + [output_spec([None], t) for t in types]
            + [output_spec([rank], dtypes.int64) for _ in range(count)])


def _grouped(parts: list) -> list:
    """[indices..., values..., shapes...] from one [indices, values, shape] triple per sparse feature."""
    return [p[0] for p in parts] + [p[1] for p in parts] + [p[2] for p in parts]


def parse_sequence_example_v2_kernel(serialized: Any, debug_name: Any, context_sparse_keys: Any,
                                     context_dense_keys: Any, context_ragged_keys: Any, feature_list_sparse_keys: Any,
                                     feature_list_dense_keys: Any, feature_list_ragged_keys: Any,
                                     feature_list_dense_missing_assumed_empty: Any, *context_dense_defaults: Any,
                                     **attrs: Any) -> Any:
    """Context features and feature lists of each serialized SequenceExample (see the module docstring)."""
    batched = len(backend_values.shape_of(serialized)) == 1
    names = _keys(debug_name)
    decoded = [example_parsing.decode_sequence_example(bytes(r), sequence_parsing.example_name(names, i))
               for i, r in enumerate(backend_values.flat_list(serialized))]
    dense = [DenseSpec(k, t, shape_list(s), backend_values.flat_list(d)) for k, t, s, d in zip(
        _keys(context_dense_keys), attrs["Tcontext_dense"], attrs["context_dense_shapes"], context_dense_defaults)]
    outputs = _grouped([sequence_parsing.context_sparse(k, t, decoded, names, batched)
                        for k, t in zip(_keys(context_sparse_keys), attrs["context_sparse_types"])])
    outputs += [sequence_parsing.context_dense(spec, decoded, names, batched) for spec in dense]
    outputs += _grouped([sequence_parsing.list_sparse(k, t, decoded, names, batched)
                         for k, t in zip(_keys(feature_list_sparse_keys), attrs["feature_list_sparse_types"])])
    missing_ok = backend_values.flat_list(feature_list_dense_missing_assumed_empty)
    lists = [sequence_parsing.list_dense(DenseSpec(k, t, [None] + shape_list(s), []), bool(ok), decoded, names,
                                         batched)
             for k, t, s, ok in zip(_keys(feature_list_dense_keys), attrs["feature_list_dense_types"],
                                    attrs["feature_list_dense_shapes"], missing_ok)]
    outputs += [values for values, _ in lists] + [lengths for _, lengths in lists]
    return kernel_result([from_flat(*output) for output in outputs])


register_op("ParseSequenceExampleV2", "ParseSequenceExampleV2",
            inputs=("serialized", "debug_name", "context_sparse_keys", "context_dense_keys", "context_ragged_keys",
                    "feature_list_sparse_keys", "feature_list_dense_keys", "feature_list_ragged_keys",
                    "feature_list_dense_missing_assumed_empty", "*context_dense_defaults"),
            shape=_sequence_shape, portable=parse_sequence_example_v2_kernel)(parse_sequence_example_v2_kernel)


class _Features:
    """context_features and sequence_features split into the op's sparse and dense groups (keys sorted)."""

    def __init__(self, context: dict | None, sequence: dict | None):
        context, sequence = context or {}, sequence or {}
        if not context and not sequence:
            raise ValueError("Missing features.")
        for key, feature in sorted(context.items()):
            if not isinstance(feature, (FixedLenFeature, VarLenFeature)):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
        for key, feature in sorted(sequence.items()):
            if not isinstance(feature, (FixedLenSequenceFeature, VarLenFeature)):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
        self.context_sparse = [(k, dtypes.as_dtype(f.dtype)) for k, f in sorted(context.items())
                               if isinstance(f, VarLenFeature)]
        self.context_dense = [(k, f) for k, f in sorted(context.items()) if isinstance(f, FixedLenFeature)]
        self.list_sparse = [(k, dtypes.as_dtype(f.dtype)) for k, f in sorted(sequence.items())
                            if isinstance(f, VarLenFeature)]
        self.list_dense = [(k, f) for k, f in sorted(sequence.items()) if isinstance(f, FixedLenSequenceFeature)]


def _attrs(features: _Features) -> dict:
    return {"Ncontext_sparse": len(features.context_sparse),
            "Tcontext_dense": [dtypes.as_dtype(f.dtype) for _, f in features.context_dense],
            "context_sparse_types": [t for _, t in features.context_sparse], "context_ragged_value_types": [],
            "context_ragged_split_types": [],
            "context_dense_shapes": [TensorShape(f.shape) for _, f in features.context_dense],
            "Nfeature_list_sparse": len(features.list_sparse), "Nfeature_list_dense": len(features.list_dense),
            "feature_list_dense_types": [dtypes.as_dtype(f.dtype) for _, f in features.list_dense],
            "feature_list_sparse_types": [t for _, t in features.list_sparse], "feature_list_ragged_value_types": [],
            "feature_list_ragged_split_types": [],
            "feature_list_dense_shapes": [TensorShape(f.shape) for _, f in features.list_dense]}


def _build(serialized: Any, features: _Features, names: Any) -> tuple:
    defaults = dense_default_tensors([(k, dtypes.as_dtype(f.dtype), TensorShape(f.shape), f.default_value, False)
                                      for k, f in features.context_dense])
    missing_ok = backend_values.vector([bool(f.allow_missing) for _, f in features.list_dense], dtypes.bool)
    inputs = [string_input(serialized), string_vector(names or []),
              string_vector([k for k, _ in features.context_sparse]),
              string_vector([k for k, _ in features.context_dense]), string_vector([]),
              string_vector([k for k, _ in features.list_sparse]), string_vector([k for k, _ in features.list_dense]),
              string_vector([]), missing_ok] + defaults
    outputs = apply_op("ParseSequenceExampleV2", inputs, _attrs(features))
    outputs = outputs if isinstance(outputs, list) else [outputs]
    return _unpack(outputs, features)


def _unpack(outputs: list, features: _Features) -> tuple:
    position = [0]

    def take(count: int) -> list:
        taken = outputs[position[0]:position[0] + count]
        position[0] += count
        return taken

    def sparse(keys: list) -> dict:
        indices, values, shapes = take(len(keys)), take(len(keys)), take(len(keys))
        return {k: SparseTensor(i, v, s) for (k, _), i, v, s in zip(keys, indices, values, shapes)}

    context = sparse(features.context_sparse)
    context.update(zip([k for k, _ in features.context_dense], take(len(features.context_dense))))
    lists = sparse(features.list_sparse)
    lists.update(zip([k for k, _ in features.list_dense], take(len(features.list_dense))))
    lengths = dict(zip([k for k, _ in features.list_dense], take(len(features.list_dense))))
    return context, lists, lengths


def parse_single_sequence_example(serialized: Any, context_features: dict | None = None,
                                  sequence_features: dict | None = None, example_name: Any = None,
                                  name: str | None = None) -> tuple:
    """`tf.io.parse_single_sequence_example`: (context dict, feature_lists dict) of one scalar SequenceExample."""
    features = _Features(context_features, sequence_features)
    serialized = string_input(serialized)
    rank = len(serialized.shape) if not is_tensor_like(serialized) else serialized.shape.rank
    if rank not in (None, 0):
        raise ValueError("Input serialized must be a scalar")
    with op_scope(name or "ParseSingleSequenceExample"), op_scope("ParseSequenceExample"):
        context, lists, _ = _build(serialized, features, None if example_name is None else [example_name])
    return context, lists


def parse_sequence_example(serialized: Any, context_features: dict | None = None,
                           sequence_features: dict | None = None, example_names: Any = None,
                           name: str | None = None) -> tuple:
    """`tf.io.parse_sequence_example`: (context, feature_lists, feature_list lengths) of a batch of records."""
    features = _Features(context_features, sequence_features)
    with op_scope(name or "ParseSequenceExample"):
        return _build(serialized, features, example_names)


__all__ = ["parse_sequence_example", "parse_single_sequence_example"]
