"""String ops on `tf.string` tensors (bytes; unicode is UTF-8): StringJoin, ReduceJoin, StringSplit, StringSplitV2,
RegexReplace / StaticRegexReplace, RegexFullMatch / StaticRegexFullMatch. Substr, StringLength, StringLower,
StringUpper and StringStrip are string_text_ops.py; conversions (AsString, StringToNumber, the hash buckets)
string_convert_ops.py.

Work on bytes is Python work with or without NumPy, so each kernel is written once against
backends/arrays/string_values.py and needs no `portable=` twin: it runs as it is where NumPy is missing.
None is differentiable: strings carry no gradient, and TensorFlow declares them NotDifferentiable.
"""

from __future__ import annotations

import math
import re
from typing import Any

from webflow.backends.arrays.string_values import elements, numbers, strings
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError, OutOfRangeError
from webflow.framework.sparse_tensor import SparseTensor
from webflow.framework.tensor_shape import TensorShape
from webflow.ops.convert import constant_value
from webflow.ops.registry import NotDifferentiable, ShapeError, apply_op, output_spec, register_op
from webflow.ops.shapes import same_as_input, same_shape_as_input_with_dtype

STRING = (dtypes.string,)


# --- StringJoin -------------------------------------------------------------------------------------------
def _join_shape(inputs: list, attrs: dict) -> tuple:
    shape = TensorShape([])
    for tensor in inputs:
        if tensor.shape.rank != 0:
            if shape.rank == 0:
                shape = tensor.shape
            elif not shape.is_compatible_with(tensor.shape):
                raise ShapeError(f"Input shapes do not match: {shape} vs. {tensor.shape}")
            else:
                shape = shape.merge_with(tensor.shape)
    return output_spec(shape, dtypes.string)


@register_op("StringJoin", "StringJoin", inputs=("*inputs",), shape=_join_shape, same_dtype="all", allowed=STRING)
def string_join_kernel(*inputs: Any, N: int = 0, separator: str = "") -> Any:  # noqa: N803 - TF's attr
    """y[i] = separator.join(x_0[i], x_1[i], ...); scalars repeat against the inputs of one common shape."""
    parts = [elements(x) for x in inputs]
    shape = ()
    for _, part_shape in parts:
        if part_shape:
            if shape and part_shape != shape:
                raise InvalidArgumentError(None, None, f"Input shapes do not match: {list(shape)} vs. "
                                                       f"{list(part_shape)}")
            shape = part_shape
    count = math.prod(shape)
    columns = [items * count if not part_shape else items for items, part_shape in parts]
    glue = _bytes(separator)
    return strings([glue.join(row) for row in zip(*columns)] if columns else [b""] * count, shape)


def string_join(inputs: list, separator: str = "", name: str | None = None) -> Any:
    inputs = list(inputs)
    return apply_op("StringJoin", inputs, {"N": len(inputs), "separator": separator}, name=name)


def _bytes(text: Any) -> bytes:
    return text.encode() if isinstance(text, str) else bytes(text)


# --- ReduceJoin -------------------------------------------------------------------------------------------
def _reduce_join_shape(inputs: list, attrs: dict) -> tuple:
    x, axes = inputs
    known = constant_value(axes)
    if x.shape.rank is None or known is None:
        return output_spec(None, dtypes.string)
    reduced = _reduction_axes(elements(known)[0], x.shape.rank, ShapeError)
    dims = x.shape.as_tuple()
    keep = attrs.get("keep_dims", False)
    return output_spec([1 if i in reduced else d for i, d in enumerate(dims) if keep or i not in reduced],
                       dtypes.string)


def _reduction_axes(axes: list, rank: int, error: Any) -> list:
    found = []
    for axis in (int(a) for a in axes):
        if not -rank <= axis < rank:
            message = f"Invalid reduction dimension {axis} for input with {rank} dimension(s)"
            raise error(message) if error is ShapeError else error(None, None, message)
        if axis % rank in found:
            message = f"Duplicate reduction dimension {axis}"
            raise ShapeError(message) if error is ShapeError else InvalidArgumentError(None, None, message)
        found.append(axis % rank)
    return found


@register_op("ReduceJoin", "ReduceJoin", inputs=("inputs", "reduction_indices"), shape=_reduce_join_shape,
             allowed=STRING)
def reduce_join_kernel(x: Any, axes: Any, *, keep_dims: bool = False, separator: str = "") -> Any:
    """y[kept...] = separator.join(x[...] over the reduced axes), the axes reduced in the order given: the first
    one varies fastest (so TensorFlow's all-axes order [n-1, ..., 0] joins in row-major order)."""
    items, shape = elements(x)
    reduced = _reduction_axes(elements(axes)[0], len(shape), OutOfRangeError) if shape else []
    kept = [i for i in range(len(shape)) if i not in reduced]
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    glue = _bytes(separator)
    outer_first = reduced[::-1]
    offsets = [sum(strides[axis] * i for axis, i in zip(outer_first, r)) for r in _indices([shape[i] for i in
                                                                                          outer_first])]
    out = []
    for kept_index in _indices([shape[i] for i in kept]):
        base = sum(strides[axis] * i for axis, i in zip(kept, kept_index))
        out.append(glue.join(items[base + o] for o in offsets))
    out_shape = [1 if i in reduced else d for i, d in enumerate(shape) if keep_dims or i not in reduced]
    return strings(out, tuple(out_shape))


def _indices(dims: list) -> list:
    """Every index tuple of an array of `dims`, in row-major order."""
    found = [()]
    for dim in dims:
        found = [index + (i,) for index in found for i in range(dim)]
    return found


def reduce_join(inputs: Any, axis: Any = None, keepdims: bool = False, separator: str = "",
                name: str | None = None) -> Any:
    """`tf.strings.reduce_join`: axis None joins over every axis."""
    from webflow.ops.convert import convert_to_tensor

    if axis is None:  # TensorFlow's [n-1, ..., 0]: a constant when the rank is known, else Rank and Range ops
        inputs = convert_to_tensor(inputs, dtype=dtypes.string)
        rank = inputs.shape.rank
        if rank is None:
            from webflow.ops.array_ops import rank as rank_op
            from webflow.ops.sequence_ops import range as range_op

            axis = range_op(rank_op(inputs) - 1, -1, -1)
        else:
            axis = list(range(rank - 1, -1, -1))
    axis = numbers([int(a) for a in axis], (len(axis),), dtypes.int32) if isinstance(axis, (list, tuple)) else axis
    return apply_op("ReduceJoin", [inputs, axis], {"keep_dims": bool(keepdims), "separator": separator}, name=name)


def reduce_join_v1(inputs: Any, axis: Any = None, keep_dims: Any = None, separator: str = "",
                   name: str | None = None, reduction_indices: Any = None, keepdims: Any = None) -> Any:
    """TF1's `tf.reduce_join` (keep_dims, reduction_indices)."""
    axis = reduction_indices if axis is None else axis
    keep = keepdims if keepdims is not None else bool(keep_dims)
    return reduce_join(inputs, axis, keep, separator, name)


# --- StringSplit (TF1) and StringSplitV2 -> SparseTensor components --------------------------------------
def _split_shape(inputs: list, attrs: dict) -> list:
    if inputs[0].shape.rank not in (None, 1):
        raise ShapeError(f"Shape must be rank 1 but is rank {inputs[0].shape.rank}")
    if inputs[1].shape.rank not in (None, 0):
        raise ShapeError(f"Shape must be rank 0 but is rank {inputs[1].shape.rank}")
    return [output_spec([None, 2], dtypes.int64), output_spec([None], dtypes.string), output_spec([2], dtypes.int64)]


def _sparse_rows(rows: list) -> list:
    """[indices, values, dense_shape] of a batch of token lists (row i, token j)."""
    indices = [v for i, row in enumerate(rows) for j in range(len(row)) for v in (i, j)]
    values = [token for row in rows for token in row]
    width = max((len(row) for row in rows), default=0)
    return [numbers(indices, (len(values), 2), dtypes.int64), strings(values, (len(values),)),
            numbers([len(rows), width], (2,), dtypes.int64)]


def _vector(x: Any) -> list:
    items, shape = elements(x)
    if len(shape) != 1:
        raise InvalidArgumentError(None, None, f"input must be a vector, got shape: {list(shape)}")
    return items


@register_op("StringSplit", "StringSplit", inputs=("input", "delimiter"), shape=_split_shape, same_dtype="all",
             allowed=STRING)
def string_split_kernel(x: Any, delimiter: Any, *, skip_empty: bool = True) -> list:
    """Row i = x[i] cut at every byte that is in `delimiter` (into single bytes if it is empty); empty tokens
    dropped if skip_empty; an empty x[i] has no tokens."""
    cut = elements(delimiter)[0][0]
    rows = []
    for text in _vector(x):
        if not text:
            tokens = []
        elif not cut:
            tokens = [text[i:i + 1] for i in range(len(text))]
        else:
            tokens = re.split(b"[" + re.escape(cut) + b"]", text)
        rows.append([t for t in tokens if t or not skip_empty])
    return _sparse_rows(rows)


@register_op("StringSplitV2", "StringSplitV2", inputs=("input", "sep"), shape=_split_shape, same_dtype="all",
             allowed=STRING)
def string_split_v2_kernel(x: Any, sep: Any, *, maxsplit: int = -1) -> list:
    """Row i = Python's x[i].split(sep, maxsplit): an empty sep splits at runs of whitespace (an empty string has
    no tokens then, and one empty token otherwise); maxsplit 0 leaves each string whole."""
    sep = elements(sep)[0][0]
    rows = [[text] if maxsplit == 0 else text.split(sep or None, maxsplit) for text in _vector(x)]
    return _sparse_rows(rows)


def string_split(source: Any, sep: Any = None, skip_empty: bool = True, delimiter: Any = None,
                 result_type: str = "SparseTensor", name: str | None = None) -> Any:
    """TF1's `tf.string_split`: a SparseTensor of the tokens of each string of a vector (delimiter " ")."""
    delimiter = sep if sep is not None else (" " if delimiter is None else delimiter)
    parts = apply_op("StringSplit", [source, delimiter], {"skip_empty": bool(skip_empty)}, name=name)
    return _split_result(parts, result_type)


def split_v1(input: Any = None, sep: Any = None, maxsplit: int = -1, result_type: str = "SparseTensor",  # noqa: A002
             source: Any = None, name: str | None = None) -> Any:
    """TF1's `tf.strings.split`: StringSplitV2, a SparseTensor by default."""
    parts = apply_op("StringSplitV2", [source if input is None else input, "" if sep is None else sep],
                     {"maxsplit": int(maxsplit)}, name=name)
    return _split_result(parts, result_type)


def split(input: Any, sep: Any = None, maxsplit: int = -1, name: str | None = None) -> Any:  # noqa: A002
    """TF2's `tf.strings.split`: a RaggedTensor of tokens for a vector, a 1-D tensor of tokens for a scalar."""
    from webflow.ops.convert import convert_to_tensor
    from webflow.ops.manip_ops import expand_dims

    input = convert_to_tensor(input, dtype=dtypes.string)  # noqa: A001
    if input.shape.rank == 0:
        parts = apply_op("StringSplitV2", [expand_dims(input, 0), "" if sep is None else sep],
                         {"maxsplit": int(maxsplit)}, name=name)
        return parts[1]
    if input.shape.rank is None:
        raise ValueError("Rank of `input` must be statically known.")
    if input.shape.rank != 1:
        raise NotImplementedError("webflow's tf.strings.split takes a scalar or a vector of strings")
    parts = apply_op("StringSplitV2", [input, "" if sep is None else sep], {"maxsplit": int(maxsplit)}, name=name)
    return _split_result(parts, "RaggedTensor")


def _split_result(parts: list, result_type: str) -> Any:
    sparse = SparseTensor(*parts)
    if result_type == "SparseTensor":
        return sparse
    if result_type == "RaggedTensor":
        from webflow.ops.ragged_ops import from_sparse

        return from_sparse(sparse)
    raise ValueError(f"result_type must be 'RaggedTensor' or 'SparseTensor', got {result_type!r}.")


# --- regular expressions (RE2 syntax; Python's re agrees on the common subset) ---------------------------------
def _compile(pattern: Any) -> Any:
    pattern = _bytes(pattern)
    try:
        return re.compile(pattern)
    except re.error as error:
        raise InvalidArgumentError(None, None, f"Invalid pattern: {pattern.decode('latin-1')}, error: {error}") \
            from None


def _rewrite(rewrite: bytes) -> Any:
    """RE2's rewrite string: \\0 .. \\9 are groups (0 the whole match), \\\\ a backslash."""
    parts = re.split(rb"\\(\d|\\)", rewrite)

    def expand_match(match: Any) -> bytes:
        out = []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                out.append(part)
            else:
                out.append(b"\\" if part == b"\\" else (match.group(int(part)) or b""))
        return b"".join(out)

    return expand_match


def _regex_replace(x: Any, pattern: Any, rewrite: Any, replace_global: bool) -> Any:
    compiled, expand_match = _compile(pattern), _rewrite(_bytes(rewrite))
    items, shape = elements(x)
    count = 0 if replace_global else 1
    return strings([compiled.sub(expand_match, text, count=count) for text in items], shape)


@register_op("RegexReplace", "RegexReplace", inputs=("input", "pattern", "rewrite"), shape=same_as_input,
             same_dtype="all", allowed=STRING)
def regex_replace_kernel(x: Any, pattern: Any, rewrite: Any, *, replace_global: bool = True) -> Any:
    """y[i] = x[i] with the first (or every, if replace_global) match of `pattern` replaced by `rewrite`."""
    return _regex_replace(x, elements(pattern)[0][0], elements(rewrite)[0][0], replace_global)


@register_op("StaticRegexReplace", "StaticRegexReplace", inputs=("input",), shape=same_as_input, allowed=STRING)
def static_regex_replace_kernel(x: Any, *, pattern: str, rewrite: str, replace_global: bool = True) -> Any:
    """RegexReplace with the pattern and rewrite as attributes (what the wrapper builds for Python strings)."""
    return _regex_replace(x, pattern, rewrite, replace_global)


def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> Any:
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        attrs = {"pattern": pattern, "rewrite": rewrite, "replace_global": bool(replace_global)}
        return apply_op("StaticRegexReplace", [input], attrs, name=name)
    return apply_op("RegexReplace", [input, pattern, rewrite], {"replace_global": bool(replace_global)}, name=name)


def _full_match(x: Any, pattern: Any) -> Any:
    compiled = _compile(pattern)
    items, shape = elements(x)
    return numbers([compiled.fullmatch(text) is not None for text in items], shape, dtypes.bool)


@register_op("RegexFullMatch", "RegexFullMatch", inputs=("input", "pattern"), shape=same_shape_as_input_with_dtype(
    dtypes.bool), same_dtype="all", allowed=STRING)
def regex_full_match_kernel(x: Any, pattern: Any) -> Any:
    """y[i] = whether all of x[i] matches `pattern`."""
    return _full_match(x, elements(pattern)[0][0])


@register_op("StaticRegexFullMatch", "StaticRegexFullMatch", inputs=("input",),
             shape=same_shape_as_input_with_dtype(dtypes.bool), allowed=STRING)
def static_regex_full_match_kernel(x: Any, *, pattern: str) -> Any:
    """RegexFullMatch with the pattern as an attribute (TF's sharded Saver matches `^s3://.*` with it)."""
    return _full_match(x, pattern)


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> Any:  # noqa: A002
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", [input], {"pattern": pattern}, name=name)
    return apply_op("RegexFullMatch", [input, pattern], name=name)


for _op_type in ("StringJoin", "ReduceJoin", "StringSplit", "StringSplitV2", "RegexReplace", "StaticRegexReplace",
                 "RegexFullMatch", "StaticRegexFullMatch"):
    NotDifferentiable(_op_type)
