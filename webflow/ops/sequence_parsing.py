"""What ParseSequenceExampleV2 does with decoded SequenceExamples, in plain Python, in TensorFlow's order of checks
(its example_proto_fast_parsing.cc): first every feature's type and length over all examples, then the context
features, then the feature lists. Outputs are `(flat values, shape, dtype)`, as in ops/example_parsing.py.

Context features are like an Example's (FixedLenFeature -> dense, VarLenFeature -> sparse); feature lists hold one
Feature per time step: a FixedLenSequenceFeature gives dense [steps, *shape] (padded to the longest example when
batched, with its length per example), a VarLenFeature a sparse [steps, values] tensor.
"""

from __future__ import annotations

from typing import Any

from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.example_parsing import KIND_OF, TYPE_NAME, DenseSpec

_EMPTY = (None, [])


def _error(message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, None, message)


def example_name(names: list, index: int) -> str:
    """How TensorFlow names example `index` in a message: its debug name, else <unknown>."""
    return names[index].decode("utf-8", "backslashreplace") if index < len(names) else "<unknown>"


def _expected_kind(dtype: Any) -> str:
    return KIND_OF[dtypes.as_dtype(dtype).name]


def _check_context_type(feature: Any, key: str, kind: str, name: str) -> None:
    if feature is not None and feature.kind is not None and feature.kind != kind:
        raise _error(f"Name: {name}, Context feature: {key}.  Data types don't match. Expected type: "
                     f"{TYPE_NAME[kind]}")


def _check_rows(rows: list, key: str, kind: str, name: str) -> int:
    """The number of values in a feature list, after checking each step's type."""
    total = 0
    for step, feature in enumerate(rows):
        if feature.kind is not None and feature.kind != kind:
            raise _error(f"Name: {name}, Feature list: {key}, Index: {step}.  Data types don't match. Expected "
                         f"type: {TYPE_NAME[kind]}")
        total += len(feature.values)
    return total


def context_dense(spec: DenseSpec, decoded: list, names: list, batched: bool) -> tuple:
    """A context FixedLenFeature over the examples: (flat, shape, dtype)."""
    length = len(spec.default)
    for i, (context, _) in enumerate(decoded):
        feature = context.get(spec.key)
        _check_context_type(feature, spec.name, spec.kind, example_name(names, i))
        if feature is not None and feature.kind is not None:
            length = max(length, len(feature.values))
    if length != spec.stride:
        raise _error(f"Inconsistent max number of elements for feature {spec.name}: expected {spec.stride}, but "
                     f"found {length}")
    flat: list = []
    for i, (context, _) in enumerate(decoded):
        feature = context.get(spec.key)
        values = spec.default if feature is None else (feature.values if feature.kind else [])
        if len(values) != length:
            raise _error(f"Unexpected number of elements in example {example_name(names, i)}")
        flat.extend(values)
    return flat, ([len(decoded)] if batched else []) + list(spec.shape), spec.dtype


def context_sparse(key: bytes, dtype: Any, decoded: list, names: list, batched: bool) -> list:
    """A context VarLenFeature: [indices, values, dense_shape] as (flat, shape, dtype)."""
    kind, text = _expected_kind(dtype), key.decode("utf-8", "backslashreplace")
    indices: list = []
    flat: list = []
    widest = 0
    for i, (context, _) in enumerate(decoded):
        feature = context.get(key)
        _check_context_type(feature, text, kind, example_name(names, i))
        values = feature.values if feature is not None and feature.kind else []
        indices.extend(v for k in range(len(values)) for v in ((i, k) if batched else (k,)))
        flat.extend(values)
        widest = max(widest, len(values))
    rank = 2 if batched else 1
    shape = [len(decoded), widest] if batched else [widest]
    return [(indices, [len(flat), rank], dtypes.int64), (flat, [len(flat)], dtypes.as_dtype(dtype)),
            (shape, [rank], dtypes.int64)]


def _list_dense_total(spec: DenseSpec, decoded: list, names: list) -> int:
    longest = 0
    for i, (_, lists) in enumerate(decoded):
        longest = max(longest, _check_rows(lists.get(spec.key, []), spec.name, spec.kind, example_name(names, i)))
    stride = max(spec.stride, 1)
    if longest % stride:
        raise _error(f"Feature list '{spec.name}' has an unexpected number of values.  Total values size: {longest} "
                     f"is not consistent with output shape: {spec.shape_text()}")
    return longest


def list_dense(spec: DenseSpec, missing_ok: bool, decoded: list, names: list, batched: bool) -> list:
    """A FixedLenSequenceFeature: [values (flat, shape, dtype), lengths (flat, shape, int64)]."""
    longest = _list_dense_total(spec, decoded, names)
    pad = b"" if spec.kind == "bytes" else 0
    flat: list = []
    lengths: list = []
    for i, (_, lists) in enumerate(decoded):
        if spec.key not in lists and not missing_ok:
            raise _error(f"Name: {example_name(names, i)}, Feature list '{spec.name}' is required but could not be "
                         f"found.  Did you mean to include it in feature_list_dense_missing_assumed_empty or "
                         f"feature_list_dense_defaults?")
        rows = lists.get(spec.key, [])
        count = 0
        for step, feature in enumerate(rows):
            if len(feature.values) != spec.stride:
                raise _error(f"Name: {example_name(names, i)}, Key: {spec.name}, Index: {step}.  Number of values != "
                             f"expected.  values size: {len(feature.values)} but output shape: "
                             f"[{','.join(str(d) for d in spec.shape[1:])}]")
            flat.extend(feature.values)
            count += len(feature.values)
        lengths.append(len(rows))
        flat.extend([pad] * (longest - count))
    steps = longest // max(spec.stride, 1)
    shape = ([len(decoded)] if batched else []) + [steps] + list(spec.shape[1:])
    return [(flat, shape, spec.dtype), (lengths if batched else lengths[:1], [len(decoded)] if batched else [],
                                        dtypes.int64)]


def list_sparse(key: bytes, dtype: Any, decoded: list, names: list, batched: bool) -> list:
    """A VarLenFeature in the feature lists: [indices ([example,] step, position), values, dense_shape]."""
    kind, text = _expected_kind(dtype), key.decode("utf-8", "backslashreplace")
    indices: list = []
    flat: list = []
    most_steps = widest = 0
    for i, (_, lists) in enumerate(decoded):
        rows = lists.get(key, [])
        _check_rows(rows, text, kind, example_name(names, i))
        for step, feature in enumerate(rows):
            for k in range(len(feature.values)):
                indices.extend((i, step, k) if batched else (step, k))
            flat.extend(feature.values)
            widest = max(widest, len(feature.values))
        most_steps = max(most_steps, len(rows))
    rank = 3 if batched else 2
    shape = ([len(decoded)] if batched else []) + [most_steps, widest]
    return [(indices, [len(flat), rank], dtypes.int64), (flat, [len(flat)], dtypes.as_dtype(dtype)),
            (shape, [rank], dtypes.int64)]
