"""Vectorised parsing of a batch of Examples that share one layout (ParseExampleV2's fast path, NumPy).

Records written by one program usually differ only in their values: MNIST's 784 packed floats and a one-byte
label sit at the same byte offsets in every record. So the first record is read once with the wire-format
reader (backends/portable/example_wire.py), which reports where each value's bytes are; if every record has
the same length and the same bytes everywhere except inside values (and every varint value has the same length,
checked on its continuation bits), all records parse the same way and each feature is a column slice of the
[records, bytes] matrix: floats are reinterpreted in place, varints decoded column by column, strings sliced.
Anything else returns None. A batch of a few layouts (a label of 100 is one varint byte, of 200 two) is read one
layout at a time and `merged` back into batch order by ops/parsing_ops.py; other batches are parsed record by record.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np
from webflow.backends.portable import example_wire
from webflow.framework import dtypes


class Layout:
    """Record 0 decoded, where its values are, and the [records, bytes] matrix of the whole batch."""

    def __init__(self, records: list, matrix: Any, features: dict):
        self.records = records
        self.matrix = matrix
        self.features = features  # key -> example_wire._Feature with .spans of record 0


def _columns(spans: list) -> Any:
    if not spans:
        return np.zeros(0, np.intp)
    return np.concatenate([np.arange(start, stop) for start, stop, _ in spans])


def layout(records: list) -> Layout | None:
    """The shared layout of `records`, or None when they do not all parse alike."""
    length = len(records[0])
    if length == 0 or len(set(map(len, records))) != 1:
        return None
    payloads: list = []
    try:
        features = example_wire.decode_example(records[0], payloads)
    except example_wire.WireError:
        return None
    matrix = np.frombuffer(b"".join(records), np.uint8).reshape(len(records), length)
    structure = np.ones(length, bool)
    last_bytes, inner_bytes = [], []
    for start, stop, is_varint in payloads:
        structure[start:stop] = False
        if is_varint:
            inner_bytes.extend(range(start, stop - 1))
            last_bytes.append(stop - 1)
    columns = np.flatnonzero(structure)
    if not (matrix[:, columns] == matrix[0, columns]).all():
        return None
    if inner_bytes and not (matrix[:, inner_bytes] >= 0x80).all():
        return None
    if last_bytes and not (matrix[:, last_bytes] < 0x80).all():
        return None
    return Layout(records, matrix, features)


def _varints(matrix: Any, spans: list) -> Any:
    """int64 [records, len(spans)]: the varint in each span, for every record (all of one length per span)."""
    starts = np.array([s for s, _, _ in spans], np.intp)
    sizes = np.array([e - s for s, e, _ in spans], np.intp)
    out = np.zeros((matrix.shape[0], len(spans)), np.uint64)
    for size in set(sizes.tolist()):
        which = np.flatnonzero(sizes == size)
        columns = starts[which][:, None] + np.arange(size)
        groups = (matrix[:, columns] & 0x7F).astype(np.uint64)
        shifts = (7 * np.arange(size)).astype(np.uint64)
        out[:, which] = np.bitwise_or.reduce(groups << shifts, axis=2)
    return out.view(np.int64)


def values(layout: Layout, key: bytes) -> Any:
    """[records, count] array of the values of feature `key` in every record (strings: an object array)."""
    feature = layout.features[key]
    spans = feature.spans
    count = len(feature.values)
    batch = layout.matrix.shape[0]
    if feature.kind == "float":
        contiguous = all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
        if contiguous and spans:  # one packed run (the usual case): a slice, copied row by row (memcpy)
            raw = np.ascontiguousarray(layout.matrix[:, spans[0][0]:spans[-1][1]])
        else:
            raw = np.ascontiguousarray(layout.matrix[:, _columns(spans)])
        return raw.view("<f4").astype(np.float32, copy=False).reshape(batch, count)
    if feature.kind == "int64":
        return _varints(layout.matrix, spans) if spans else np.zeros((batch, 0), np.int64)
    out = np.empty((batch, count), dtype=object)
    for j, (start, stop, _) in enumerate(spans):
        out[:, j] = [record[start:stop] for record in layout.records]
    return out


def _sparse(layout: Layout, key: bytes, dtype: Any) -> tuple:
    """(indices, values, dense_shape) of a VarLenFeature: every record holds the same number of values."""
    batch = layout.matrix.shape[0]
    feature = layout.features.get(key)
    got = values(layout, key) if feature is not None and feature.kind else np.zeros((batch, 0), dtype)
    count = got.shape[1]
    rows, columns = np.divmod(np.arange(batch * count, dtype=np.int64), max(count, 1))
    return np.stack([rows, columns], axis=1), got.reshape(-1), np.array([batch, count], np.int64)


def _dense(layout: Layout, spec: Any) -> Any:
    """A FixedLen(Sequence)Feature (spec: ops/example_parsing.py's DenseSpec) for every record."""
    batch = layout.matrix.shape[0]
    feature = layout.features.get(spec.key)
    inner = list(spec.shape[1:] if spec.variable else spec.shape)
    if feature is not None and feature.kind is not None:
        return values(layout, spec.key).reshape([batch, -1] + inner if spec.variable else [batch] + inner)
    if spec.variable:  # missing everywhere: no rows
        return np.zeros([batch, 0] + inner, spec.dtype.as_numpy_dtype)
    default = np.array(spec.default, dtype=spec.dtype.as_numpy_dtype).reshape(inner)
    return np.broadcast_to(default, [batch] + inner).copy()


def outputs(layout: Layout, sparse: list, dense: list) -> list:
    """ParseExampleV2's outputs for a batch of one layout whose record 0 passed TensorFlow's checks: every
    sparse (key, dtype)'s indices, values, dense_shape, then every dense spec's values."""
    parts = [_sparse(layout, key, dtypes.as_dtype(dtype).as_numpy_dtype) for key, dtype in sparse]
    return ([p[0] for p in parts] + [p[1] for p in parts] + [p[2] for p in parts]
            + [_dense(layout, spec) for spec in dense])


def _pad_rows(value: Any, rows: int, pad: Any) -> Any:
    """A [records, steps, ...] FixedLenSequenceFeature output padded with `pad` to `rows` steps."""
    if value.shape[1] == rows:
        return value
    extra = np.full((value.shape[0], rows - value.shape[1]) + value.shape[2:], pad, dtype=value.dtype)
    return np.concatenate([value, extra], axis=1)


def merged(parts: list, batch: int, sparse_count: int, dense: list) -> list:
    """The outputs of a whole batch from (positions in the batch, outputs) of each layout's records."""
    order = np.argsort(np.concatenate([np.asarray(p, np.int64) for p, _ in parts]), kind="stable")
    indices, values, shapes = [], [], []
    for j in range(sparse_count):
        rows = np.concatenate([np.asarray(p, np.int64)[out[j][:, 0]] for p, out in parts])
        picked = np.argsort(rows, kind="stable")  # row-major: by record, each record's values kept in order
        columns = np.concatenate([out[j][:, 1] for _, out in parts])
        indices.append(np.stack([rows, columns], axis=1)[picked])
        values.append(np.concatenate([out[sparse_count + j] for _, out in parts])[picked])
        shapes.append(np.array([batch, max(int(out[2 * sparse_count + j][1]) for _, out in parts)], np.int64))
    outputs = indices + values + shapes
    for d, spec in enumerate(dense):
        pieces = [out[3 * sparse_count + d] for _, out in parts]
        if spec.variable:
            steps = max(piece.shape[1] for piece in pieces)
            pad = spec.default[0] if spec.default else (b"" if spec.kind == "bytes" else 0)
            pieces = [_pad_rows(piece, steps, pad) for piece in pieces]
        outputs.append(np.concatenate(pieces)[order])
    return outputs
