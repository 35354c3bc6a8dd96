"""SparseCross: the crosses of sparse and dense features row by row (`tf.sparse.cross`, `tf.sparse.cross_hashed`,
`tf.feature_column.crossed_column`).

For each row b, every combination that takes one value from each column (sparse columns first, then dense
ones, each in its order; the last column varies fastest) gives one output value:
- hashed_output: h = hash_key; for each value v, h = FingerprintCat64(h, Fingerprint64(v) for a string, else
  v as uint64); the output is h mod num_buckets (mod 2^63 - 1 when num_buckets is 0);
- otherwise: the values as strings joined by "_X_".
A row where some column has no value gives nothing. Outputs: indices [n, 2] (row, position in the row),
values [n], dense_shape [batch, the most values of a row].

TensorFlow's op has four input lists (indices N, values, shapes N, dense_inputs); webflow's registry declares
one list, so the op takes them as one flat list in that order, as the NodeDef lists them, and splits it by
the attributes N and dense_types. Written once for both backends (plain Python on the elements).
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.string_values import elements, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError
from webflow.ops.registry import NotDifferentiable, apply_op, output_spec, register_op
from webflow.ops.string_hashes import fingerprint64

MASK = (1 << 64) - 1
K_MUL = 0xC6A4A7935BD1E995
DEFAULT_HASH_KEY = 0xDECAFCAFFE  # tf.sparse.cross_hashed's hash_key when none is given


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def fingerprint_cat64(first: int, second: int) -> int:
    """TensorFlow's FingerprintCat64: combines two 64-bit fingerprints (unsigned arithmetic mod 2^64)."""
    result = first ^ K_MUL
    result ^= (_shift_mix((second * K_MUL) & MASK) * K_MUL) & MASK
    result = (result * K_MUL) & MASK
    result = (_shift_mix(result) * K_MUL) & MASK
    return _shift_mix(result)


def _split(inputs: tuple, count: int) -> tuple:
    indices, values, shapes = inputs[:count], inputs[count:2 * count], inputs[2 * count:3 * count]
    return indices, values, shapes, inputs[3 * count:]


def _columns(inputs: tuple, count: int) -> tuple:
    """(batch size, per column: a list of each row's values)."""
    indices, values, shapes, dense = _split(inputs, count)
    batch = None
    columns = []
    for index, value, shape in zip(indices, values, shapes):
        rows, _ = elements(index)
        items, _ = elements(value)
        size = int(elements(shape)[0][0])
        per_row: list = [[] for _ in range(size)]
        for n, item in enumerate(items):
            per_row[int(rows[2 * n])].append(item)
        columns.append(per_row)
        batch = size if batch is None else batch
    for value in dense:
        items, shape = elements(value)
        if len(shape) != 2:
            raise InvalidArgumentError(None, None, f"Dense inputs should be a matrix but received shape: {list(shape)}")
        width = shape[1]
        columns.append([items[b * width:(b + 1) * width] for b in range(shape[0])])
        batch = shape[0] if batch is None else batch
    for column in columns:
        if len(column) != batch:
            raise InvalidArgumentError(None, None, f"Expected batch size {batch} got {len(column)}")
    return batch or 0, columns


def _feature(value: Any) -> int:
    return fingerprint64(value) if isinstance(value, bytes) else int(value) & MASK


def _text(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(int(value)).encode()


def _row_crosses(row_values: list, hashed: bool, num_buckets: int, hash_key: int) -> list:
    crosses: list = [[]]
    for values in row_values:  # the last column varies fastest
        crosses = [cross + [v] for cross in crosses for v in values]
    if not hashed:
        return [b"_X_".join(_text(v) for v in cross) for cross in crosses]
    out = []
    for cross in crosses:
        hashed_value = hash_key & MASK
        for value in cross:
            hashed_value = fingerprint_cat64(hashed_value, _feature(value))
        out.append(hashed_value % (num_buckets if num_buckets > 0 else (1 << 63) - 1))
    return out


def _sparse_cross_shape(inputs: list, attrs: dict) -> list:
    out_type = dtypes.int64 if attrs.get("hashed_output") else dtypes.string
    return [output_spec([None, 2], dtypes.int64), output_spec([None], out_type), output_spec([2], dtypes.int64)]


def sparse_cross_kernel(*inputs: Any, N: int, hashed_output: bool, num_buckets: int, hash_key: int,  # noqa: N803
                        sparse_types: Any = (), dense_types: Any = (), out_type: Any = None,
                        internal_type: Any = None) -> list:
    """Each row's crosses (module docstring): hashed ids, or strings joined by "_X_"."""
    batch, columns = _columns(inputs, N)
    indices, values, width = [], [], 0
    for b in range(batch):
        row = _row_crosses([column[b] for column in columns], hashed_output, num_buckets, hash_key)
        if any(not column[b] for column in columns):
            row = []
        indices.extend(v for n in range(len(row)) for v in (b, n))
        values.extend(row)
        width = max(width, len(row))
    value_array = numbers(values, (len(values),), dtypes.int64) if hashed_output else strings(values, (len(values),))
    return [numbers(indices, (len(values), 2), dtypes.int64), value_array,
            numbers([batch, width], (2,), dtypes.int64)]


register_op("SparseCross", "SparseCross", inputs=("*inputs",), shape=_sparse_cross_shape,
            portable=sparse_cross_kernel)(sparse_cross_kernel)  # plain Python: the same kernel without NumPy
NotDifferentiable("SparseCross")


def sparse_cross(sparse_inputs: list, dense_inputs: list, hashed_output: bool, num_buckets: int = 0,
                 hash_key: int = DEFAULT_HASH_KEY, name: str | None = None) -> list:
    """SparseCross on SparseTensor-like (indices, values, dense_shape) triples and [batch, k] dense tensors;
    returns [indices, values, dense_shape]."""
    flat = [s.indices for s in sparse_inputs] + [s.values for s in sparse_inputs] + \
        [s.dense_shape for s in sparse_inputs] + list(dense_inputs)
    # TF's rule: the columns are compared as int64 when any column holds numbers (given as int64), else as strings
    types = [s.values.dtype for s in sparse_inputs] + [d.dtype for d in dense_inputs]
    internal = dtypes.string if all(t == dtypes.string for t in types) else dtypes.int64
    attrs = {"N": len(sparse_inputs), "hashed_output": bool(hashed_output), "num_buckets": int(num_buckets),
             "hash_key": int(hash_key), "sparse_types": types[:len(sparse_inputs)],
             "dense_types": types[len(sparse_inputs):],
             "out_type": dtypes.int64 if hashed_output else dtypes.string, "internal_type": internal}
    return apply_op("SparseCross", flat, attrs, name=name)
